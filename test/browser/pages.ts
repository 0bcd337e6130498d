// What the browser tests and `npm run screenshots` share: the service on the bundled dataset (or
// the sources a test names) on a free local port, its search index built, a stand-in for the map's tile server (an external
// service the tests cannot reach: it answers one small PNG for every tile), and Chromium.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { buildApp } from '../support';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) =>
  fs.existsSync(p),
);

/** A 1×1 PNG, light grey. */
const TILE = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4//8/AAX+Av4N70a4AAAAAElFTkSuQmCC',
  'base64',
);

export interface Site {
  readonly base: string;
  readonly tiles: string;
  /** The tile paths asked for. */
  readonly tilesAsked: string[];
  readonly browser: Browser;
  close(): Promise<void>;
}

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
  });
}

/** What a site is served from: the bundled dataset unless `sources` say otherwise; more settings. */
export interface SiteOptions {
  readonly sources?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

export async function startSite({
  sources = BUNDLED_DATASET,
  env = {},
}: SiteOptions = {}): Promise<Site> {
  const tilesAsked: string[] = [];
  const tileServer = http.createServer((req, res) => {
    tilesAsked.push(req.url ?? '');
    res.writeHead(200, { 'Content-Type': 'image/png', 'Access-Control-Allow-Origin': '*' });
    res.end(TILE);
  });
  const tiles = await listen(tileServer);
  // A browser follows the URLs it is told: they are on the origin it asked, as in production.
  const { app, service } = await buildApp(sources, {
    PUBLIC_URL: '',
    MAP_TILES: `${tiles}/{z}/{x}/{y}.png`,
    MAP_ATTRIBUTION: 'Test tiles',
    ...env,
  });
  await service.search.ensure();
  const server = http.createServer(app);
  const base = await listen(server);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  return {
    base,
    tiles,
    tilesAsked,
    browser,
    async close() {
      await browser.close();
      server.close();
      tileServer.close();
    },
  };
}

/** Where a page's Content-Security-Policy violations are kept, in the page. */
const VIOLATIONS = '__policyViolations';

/** Has every page of `context` keep the violations of its Content-Security-Policy. */
export async function watchPolicy(context: BrowserContext): Promise<void> {
  await context.addInitScript((key: string) => {
    const all: string[] = [];
    (globalThis as unknown as Record<string, string[]>)[key] = all;
    document.addEventListener('securitypolicyviolation', (e) =>
      all.push(
        `${e.effectiveDirective} refused ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`,
      ),
    );
  }, VIOLATIONS);
}

/** The violations `page` met so far (watchPolicy), after a moment for the last to be reported. */
export async function policyViolations(page: Page): Promise<string[]> {
  await page.waitForTimeout(100);
  return page.evaluate(
    (key: string) => (globalThis as unknown as Record<string, string[]>)[key] ?? [],
    VIOLATIONS,
  );
}
