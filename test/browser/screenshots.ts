// `npm run screenshots`: each page for people, at desktop and phone width, in German and English,
// written as PNG into screenshots/ (not committed). The service runs on the bundled dataset with a
// stand-in tile server (test/browser/pages.ts), so the map shows its marker on blank tiles.
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/util/paths';
import { CHROMIUM, startSite } from './pages';

const PAGES: readonly [string, string][] = [
  ['home', '/'],
  ['search', '/search?q=museum%20berlin'],
  ['institution', '/isil/DE-1a'],
  ['dumps', '/dumps/'],
];

const WIDTHS: readonly [string, { width: number; height: number }][] = [
  ['desktop', { width: 1280, height: 900 }],
  ['phone', { width: 390, height: 844 }],
];

async function main(): Promise<void> {
  if (!CHROMIUM) throw new Error('Chromium is missing: bash .ci/packages installs it');
  const out = path.join(PROJECT_ROOT, 'screenshots');
  fs.mkdirSync(out, { recursive: true });
  const site = await startSite();
  try {
    for (const [width, viewport] of WIDTHS)
      for (const lang of ['de', 'en']) {
        const context = await site.browser.newContext({ viewport, locale: lang });
        const page = await context.newPage();
        for (const [name, url] of PAGES) {
          await page.goto(`${site.base}${url}${url.includes('?') ? '&' : '?'}lang=${lang}`);
          if (name === 'institution') await page.locator('#map .leaflet-marker-icon').waitFor();
          const file = path.join(out, `${name}-${width}-${lang}.png`);
          await page.screenshot({ path: file, fullPage: true });
          console.log(file);
        }
        await context.close();
      }
  } finally {
    await site.close();
  }
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
