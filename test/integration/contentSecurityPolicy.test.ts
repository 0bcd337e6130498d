// Every HTML page sends a Content-Security-Policy that lets it run only this host's scripts and
// styles and load images from this host and the tile server; in Chromium no page meets a violation
// of it, and a MAP_ATTRIBUTION holding markup (`<img src=x onerror=…>`, which ran as script) is
// shown as text on the map. Over generated data.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { generate } from '../../cli/generate';
import { CHROMIUM, policyViolations, startSite, watchPolicy, type Site } from '../browser/pages';
import { BASE, tempDir } from '../support';

const HOSTILE = '<img src=x onerror="window.attributionRan=1">© Tiles & Co';

describe('the pages’ Content-Security-Policy in a browser', function () {
  this.timeout(120_000);
  let dir: string;
  let site: Site;
  let context: BrowserContext;
  /** An institution whose page has the map, and a town to search for. */
  let mapped: string;
  let town: string;

  before(async function () {
    if (!CHROMIUM) {
      if (process.env.CI) throw new Error('Chromium is missing: .ci/packages installs it');
      this.skip();
    }
    dir = tempDir();
    const lines = [...generate({ count: 30, seed: 11, base: BASE })];
    const file = path.join(dir, 'generated.nt');
    fs.writeFileSync(file, lines.join(''));
    site = await startSite({ sources: [file], env: { MAP_ATTRIBUTION: HOSTILE } });
    context = await site.browser.newContext({ locale: 'en-GB' });
    await watchPolicy(context);
    for (const line of lines) {
      const isil = /\/resource\/organisations\/([^>]+)>/.exec(line)![1]!;
      const page = await fetch(`${site.base}/isil/${isil}`).then((r) => r.text());
      if (!page.includes('id="map"')) continue;
      mapped = isil;
      town = /locality> "([^"]+)"/.exec(line)?.[1] ?? 'Bibliothek';
      break;
    }
    assert.ok(mapped, 'a generated institution with coordinates');
  });

  after(async () => {
    await context?.close();
    await site?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const pages = () =>
    [
      ['/', 200],
      ['/?lang=de', 200],
      [`/search?q=${encodeURIComponent(town)}`, 200],
      [`/isil/${mapped}`, 200],
      [`/isil/${mapped}?lang=de`, 200],
      ['/dumps/', 200],
      ['/isil/XX-NOPE', 404],
      [`/reconcile/preview?id=${mapped}`, 200],
    ] as const;

  it('sends the policy with every HTML page, the tile server among the image sources', async () => {
    for (const [url, status] of pages()) {
      const res = await fetch(`${site.base}${url}`, { headers: { Accept: 'text/html' } });
      assert.equal(res.status, status, url);
      const policy = res.headers.get('content-security-policy') ?? '';
      assert.match(policy, /default-src 'none'/, url);
      assert.match(policy, /script-src 'self'(;|$)/, url);
      assert.match(policy, /style-src 'self'(;|$)/, url);
      if (url.startsWith('/isil/') && status === 200)
        assert.match(policy, new RegExp(`img-src 'self' ${site.tiles}(;|$)`), url);
    }
  });

  it('shows MAP_ATTRIBUTION as text: the markup in it runs nothing and loads nothing', async () => {
    const page = await context.newPage();
    await page.goto(`${site.base}/isil/${mapped}`);
    await page.locator('#map .leaflet-tile-loaded').first().waitFor();
    const attribution = page.locator('#map .leaflet-control-attribution');
    assert.match((await attribution.textContent()) ?? '', /<img src=x onerror=.*© Tiles & Co/);
    assert.equal(await attribution.locator('img').count(), 0);
    assert.equal(await page.evaluate(() => 'attributionRan' in window), false);
    assert.deepEqual(await policyViolations(page), []);
    await page.close();
  });

  it('meets no violation on any page, the lookup’s autocomplete included', async () => {
    const problems: string[] = [];
    for (const [url, status] of pages()) {
      const page = await context.newPage();
      page.on('pageerror', (e) => problems.push(`script error on ${url}: ${e.message}`));
      const res = await page.goto(`${site.base}${url}`);
      assert.equal(res?.status(), status, url);
      if (url.startsWith('/isil/') && status === 200)
        await page.locator('#map .leaflet-marker-icon').waitFor();
      if (url === '/') {
        await page.fill('#home-q', town);
        await page.locator('#home-list [role=option]').first().waitFor();
      }
      problems.push(...(await policyViolations(page)).map((v) => `${url}: ${v}`));
      await page.close();
    }
    assert.deepEqual(problems, []);
  });
});
