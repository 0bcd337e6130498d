// The pages for people in a real browser (Chromium from Debian, driven by playwright-core):
// a lookup from the home page to an institution's page through autocomplete, the language switch,
// the map's marker, a search narrowed by a facet, no console errors and no request to another
// host but the tiles; axe-core finds no WCAG 2.1 A or AA violation on the home, search,
// institution and feed pages, nor on an error page.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { CHROMIUM, startSite, type Site } from '../browser/pages';
import { needsThirdParty } from '../support';
import { skipWithout } from '../support/missing';

const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeResult {
  violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
}

describe('the pages in a browser', function () {
  this.timeout(120_000);
  before(needsThirdParty);
  let site: Site;
  let context: BrowserContext;
  const problems: string[] = [];

  before(async function () {
    if (!CHROMIUM) skipWithout(this, 'chromium', 'sudo bash .ci/packages installs it');
    site = await startSite();
    context = await site.browser.newContext({ locale: 'de-DE' });
    // Every request goes to this service or to the tiles; anything else is a failure.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(site.base) || url.startsWith(site.tiles)) return route.continue();
      problems.push(`a request to another host: ${url}`);
      return route.abort();
    });
  });

  after(async () => {
    await context?.close();
    await site?.close();
  });

  /** `path` in a new page, answered `status`: an error page's own status is no console error. */
  async function open(path: string, status = 200): Promise<Page> {
    const page = await context.newPage();
    page.on('console', (m) => {
      const own = status !== 200 && m.text().includes(`status of ${status}`);
      if (m.type() === 'error' && !own) problems.push(`console on ${path}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`script error on ${path}: ${e.message}`));
    const res = await page.goto(`${site.base}${path}`);
    assert.equal(res?.status(), status, path);
    return page;
  }

  async function axe(page: Page): Promise<AxeResult['violations']> {
    // Evaluated by the browser's debugger: a script tag would be inline, which the pages'
    // Content-Security-Policy refuses (as it should).
    await page.evaluate(AXE);
    const result = await page.evaluate(() =>
      (
        globalThis as unknown as {
          axe: { run(c: unknown, o: unknown): Promise<AxeResult> };
        }
      ).axe.run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      }),
    );
    return result.violations;
  }

  it('looks an institution up from the home page through autocomplete', async () => {
    const page = await open('/');
    await page.fill('#home-q', 'staatsbib pots');
    const options = page.locator('#home-list [role=option]');
    await options.first().waitFor();
    const count = await options.count();
    assert.ok(count >= 1 && count <= 10, String(count));
    assert.match((await options.first().textContent()) ?? '', /Staatsbibliothek zu Berlin/);
    await page.keyboard.press('ArrowDown');
    await Promise.all([page.waitForURL(/\/isil\/DE-1a$/), page.keyboard.press('Enter')]);
    assert.match((await page.textContent('h1')) ?? '', /Staatsbibliothek zu Berlin/);
    await page.close();
  });

  it("offers an ISIL typed whole first in the home page's lookup, and goes to its page", async () => {
    const page = await open('/');
    await page.fill('#home-q', 'DE-1');
    const first = page.locator('#home-list [role=option]').first();
    await first.waitFor();
    assert.match((await first.textContent()) ?? '', /^Staatsbibliothek zu Berlin.*DE-1\b(?!\w)/);
    await page.keyboard.press('ArrowDown');
    await Promise.all([page.waitForURL(/\/isil\/DE-1$/), page.keyboard.press('Enter')]);
    await page.close();
  });

  it('switches the language, and the links keep it', async () => {
    const page = await open('/isil/DE-1a');
    assert.equal(await page.getAttribute('html', 'lang'), 'de');
    await Promise.all([page.waitForURL(/lang=en/), page.click('a[hreflang=en]')]);
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    assert.match((await page.textContent('main')) ?? '', /Visiting address/);
    assert.equal(await page.inputValue('input[name=lang]'), 'en');
    await page.close();
  });

  it('shows the marker on the map, with tiles from the configured server', async () => {
    const page = await open('/isil/DE-1a');
    await page.locator('#map .leaflet-marker-icon').waitFor();
    await page.locator('#map .leaflet-tile-loaded').first().waitFor();
    assert.ok(
      site.tilesAsked.some((t) => /^\/15\/\d+\/\d+\.png$/.test(t)),
      site.tilesAsked.join(),
    );
    assert.match((await page.textContent('.coordinates')) ?? '', /52\.50771, 13\.37063/);
    await page.close();
  });

  it('searches, then narrows the results by a facet', async () => {
    const page = await open('/search?q=museum');
    const total = async () =>
      Number(((await page.textContent('main > p')) ?? '').replace(/\D/g, '').slice(0, 7));
    const before = await total();
    assert.ok(before > 100);
    await Promise.all([
      page.waitForURL(/[?&](type|country|city)=/),
      page.click('.facets section:first-child li:first-child a'),
    ]);
    const after = await total();
    assert.ok(after > 0 && after <= before, `${after} of ${before}`);
    assert.ok((await page.locator('.hits li').count()) > 0);
    await page.close();
  });

  for (const [path, status] of [
    ['/', 200],
    ['/search?q=Berlin', 200],
    ['/isil/DE-1a', 200],
    ['/?lang=en', 200],
    ['/isil/DE-1a?lang=en', 200],
    ['/feed', 200],
    ['/isil/DE-2', 404],
    ['/isil/DE-2?lang=en', 404],
  ] as const)
    it(`has no WCAG 2.1 A or AA violation on ${path}`, async () => {
      const page = await open(path, status);
      const violations = await axe(page);
      assert.deepEqual(
        violations.map(
          (v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
        ),
        [],
      );
      await page.close();
    });

  it('met no console error, script error or request to another host on the way', () => {
    assert.deepEqual(problems, []);
  });
});
