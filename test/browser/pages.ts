// What the browser tests and `npm run screenshots` share: the service on the bundled dataset on a
// free local port, its search index built, a stand-in for the map's tile server (an external
// service the tests cannot reach: it answers one small PNG for every tile), and Chromium.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
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

export async function startSite(): Promise<Site> {
  const tilesAsked: string[] = [];
  const tileServer = http.createServer((req, res) => {
    tilesAsked.push(req.url ?? '');
    res.writeHead(200, { 'Content-Type': 'image/png', 'Access-Control-Allow-Origin': '*' });
    res.end(TILE);
  });
  const tiles = await listen(tileServer);
  const { app, service } = await buildApp(BUNDLED_DATASET, {
    MAP_TILES: `${tiles}/{z}/{x}/{y}.png`,
    MAP_ATTRIBUTION: 'Test tiles',
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
