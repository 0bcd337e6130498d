// The pages' static files, `GET /assets/<name>`: the stylesheet, scripts and icon of this
// project, and Leaflet's from npm, so that no page loads anything from another host but map
// tiles. A fixed list read once at start: a name not on it is 404, whatever it holds. Each file
// has a strong ETag (its SHA-256) and is cached for a day.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'express';
import { notModified } from './conditional';
import { notFound } from './errors';
import { commonHeaders } from './middleware';
import { pathBelow } from './deps';
import { PROJECT_ROOT } from '../util/paths';

interface Asset {
  readonly bytes: Buffer;
  readonly type: string;
  readonly etag: string;
}

const LEAFLET = path.dirname(require.resolve('leaflet/dist/leaflet.js'));
const OWN = path.join(PROJECT_ROOT, 'src', 'http', 'assets');

const FILES: Readonly<Record<string, string>> = {
  'site.css': path.join(OWN, 'site.css'),
  'favicon.svg': path.join(OWN, 'favicon.svg'),
  'preview.css': path.join(OWN, 'preview.css'),
  'suggest.js': path.join(OWN, 'suggest.js'),
  'map.js': path.join(OWN, 'map.js'),
  'leaflet/leaflet.js': path.join(LEAFLET, 'leaflet.js'),
  'leaflet/leaflet.css': path.join(LEAFLET, 'leaflet.css'),
  'leaflet/images/marker-icon.png': path.join(LEAFLET, 'images', 'marker-icon.png'),
  'leaflet/images/marker-icon-2x.png': path.join(LEAFLET, 'images', 'marker-icon-2x.png'),
  'leaflet/images/marker-shadow.png': path.join(LEAFLET, 'images', 'marker-shadow.png'),
  'leaflet/images/layers.png': path.join(LEAFLET, 'images', 'layers.png'),
  'leaflet/images/layers-2x.png': path.join(LEAFLET, 'images', 'layers-2x.png'),
};

const TYPES: Readonly<Record<string, string>> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

let loaded: ReadonlyMap<string, Asset> | undefined;

function assets(): ReadonlyMap<string, Asset> {
  loaded ??= new Map(
    Object.entries(FILES).map(([name, file]) => {
      const bytes = fs.readFileSync(file);
      const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
      return [name, { bytes, type: TYPES[path.extname(file)]!, etag }];
    }),
  );
  return loaded;
}

const STARTED = new Date();

export function assetFiles(): RequestHandler {
  const all = assets();
  return function asset(req, res) {
    const found = all.get(pathBelow(req));
    if (!found) throw notFound('No such asset.');
    const headers = {
      ...commonHeaders(res),
      'Content-Type': found.type,
      'Cache-Control': 'public, max-age=86400',
      ETag: found.etag,
      'Last-Modified': STARTED.toUTCString(),
      'X-Content-Type-Options': 'nosniff',
    };
    if (notModified(req.headers, found.etag, STARTED)) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Length': String(found.bytes.length) });
    res.end(req.method === 'HEAD' ? undefined : found.bytes);
  };
}
