// Redirects reuse one header object per kind: each answer must still carry its own Location and id.
import assert from 'node:assert/strict';
import express from 'express';
import request from 'supertest';
import { redirect, RedirectHeaders } from '../../../src/http/respond';

describe('redirect', () => {
  const headers = new RedirectHeaders({ Vary: 'Accept', 'Cache-Control': 'public, max-age=60' });
  const app = express();
  app.use((req, res, next) => {
    res.locals.requestId = `id-${req.path.slice(1)}`;
    next();
  });
  app.get('/a', (_req, res) => redirect(res, 303, '/to-a', headers));
  app.get('/b', (_req, res) => redirect(res, 302, '/to-b', headers));

  it('answers each request with its own Location and request id', async () => {
    const a = await request(app).get('/a');
    const b = await request(app).get('/b');
    const again = await request(app).get('/a');
    assert.deepEqual(
      [a, b, again].map((r) => [r.status, r.headers.location, r.headers['x-request-id']]),
      [
        [303, '/to-a', 'id-a'],
        [302, '/to-b', 'id-b'],
        [303, '/to-a', 'id-a'],
      ],
    );
  });
  it('carries the caller headers, CORS and an empty body', async () => {
    const res = await request(app).get('/a');
    assert.equal(res.headers.vary, 'Accept');
    assert.equal(res.headers['cache-control'], 'public, max-age=60');
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['content-length'], '0');
  });
});
