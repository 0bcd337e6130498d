// GET /shapes.ttl: the SHACL shapes the loader validates against, as the repository holds them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import zlib from 'node:zlib';
import request from 'supertest';
import type { Express } from 'express';
import { Parser } from 'n3';
import { DescribePool } from '../../src/load/describe/describePool';
import { SHAPES_FILE } from '../../src/load/describe/shapes';
import { BASE, buildApp, rawRequest, sameGraph, needsThirdParty } from '../support';

const SH = 'http://www.w3.org/ns/shacl#';
const CORS_EXPOSE =
  'Link, Location, Content-Location, ETag, Last-Modified, Vary, Dataset-Version, Retry-After, X-Request-Id, Content-Disposition, Allow, WWW-Authenticate, Results-Truncated, Memento-Datetime, Content-Profile';

describe('GET /shapes.ttl', () => {
  before(needsThirdParty);
  let app: Express;
  let res: request.Response;
  before(async () => {
    app = (await buildApp()).app;
    res = await request(app).get('/shapes.ttl').set('Accept-Encoding', 'identity');
  });

  it('answers 200', () => assert.equal(res.status, 200));
  it('is Turtle in UTF-8', () =>
    assert.equal(res.headers['content-type'], 'text/turtle;charset=UTF-8'));
  it('is the file the loader validates with, byte for byte', () =>
    assert.equal(res.text, fs.readFileSync(SHAPES_FILE, 'utf8')));
  it('has an exact Content-Length', () =>
    assert.equal(Number(res.headers['content-length']), Buffer.byteLength(res.text)));
  it('parses as Turtle, its relative IRIs resolved against the URL it is served from', () => {
    const quads = new Parser({ baseIRI: `${BASE}/shapes.ttl` }).parse(res.text);
    assert.ok(
      quads.some(
        (q) =>
          q.subject.value === `${BASE}/shapes.ttl#Organization` &&
          q.object.value === `${SH}NodeShape`,
      ),
    );
  });
  it('is read the same wherever it is resolved', () => {
    const here = new Parser({ baseIRI: `${BASE}/shapes.ttl` }).parse(res.text);
    const there = new Parser({ baseIRI: `${BASE}/shapes.ttl` }).parse(
      fs.readFileSync(SHAPES_FILE, 'utf8'),
    );
    assert.ok(sameGraph(here, there));
  });
  it('is usable by the loader: every reporting shape names a defect class', () =>
    DescribePool.start({ validate: true, workers: 1 }).close());
  it('has a strong ETag', () => assert.match(res.headers.etag!, /^"[A-Za-z0-9_-]{27}"$/));
  it('has Last-Modified', () => assert.ok(Date.parse(res.headers['last-modified']!) > 0));
  it('is cacheable', () => assert.match(res.headers['cache-control']!, /^public, max-age=\d+$/));
  it('varies on Accept-Encoding', () => assert.equal(res.headers.vary, 'Accept-Encoding'));
  it('allows any origin', () => assert.equal(res.headers['access-control-allow-origin'], '*'));
  it('exposes the headers every route exposes', () =>
    assert.equal(res.headers['access-control-expose-headers'], CORS_EXPOSE));

  it('If-None-Match with its ETag answers 304 without a body', async () => {
    const again = await request(app)
      .get('/shapes.ttl')
      .set('Accept-Encoding', 'identity')
      .set('If-None-Match', res.headers.etag!);
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
  });
  it('gzip when asked for: the same bytes once decoded, under its own ETag', async () => {
    const gz = await rawRequest(app, '/shapes.ttl', { 'Accept-Encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(zlib.gunzipSync(gz.body as Buffer).toString('utf8'), res.text);
    assert.notEqual(gz.headers.etag, res.headers.etag);
  });
  it('HEAD: the same headers, no body', async () => {
    const head = await request(app).head('/shapes.ttl').set('Accept-Encoding', 'identity');
    assert.equal(head.status, 200);
    assert.equal(head.headers.etag, res.headers.etag);
    assert.equal(head.headers['content-length'], res.headers['content-length']);
    assert.equal(head.text, undefined);
  });
  it('OPTIONS: the CORS preflight', async () => {
    const options = await request(app).options('/shapes.ttl');
    assert.equal(options.status, 204);
    assert.equal(options.headers['access-control-allow-origin'], '*');
  });
  it('POST: 405', async () => {
    const post = await request(app).post('/shapes.ttl');
    assert.equal(post.status, 405);
  });
});
