// The base of the URLs a client is told to fetch: PUBLIC_URL, else the origin the request asked,
// read through a real Express app (its `req.host` and `req.protocol`), never a raw odd Host.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { loadConfig } from '../../../src/config/config';
import { publicOrigin, useOriginSettings } from '../../../src/http/publicOrigin';

/** What the app answers for a request with these headers (sent raw: supertest sets Host). */
async function originFor(
  env: Record<string, string>,
  headers: Record<string, string>,
  trustProxy = false,
): Promise<string> {
  const config = loadConfig({ LOG_LEVEL: 'silent', ...env });
  const app = express();
  app.set('trust proxy', trustProxy);
  useOriginSettings(app, config);
  app.get('/', (req, res) => {
    res.end(publicOrigin(req));
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<string>((resolve, reject) => {
      const req = http.get(
        { port, host: '127.0.0.1', path: '/', headers, setHost: false },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve(body));
        },
      );
      req.on('error', reject);
    });
  } finally {
    server.close();
  }
}

describe('publicOrigin', () => {
  const BASE = { BASE_IRI: 'https://example.org' };
  it('is the origin asked, in plain HTTP, when the host is not BASE_IRI’s', async () =>
    assert.equal(
      await originFor(BASE, { Host: 'Staging.Local:8080' }),
      'http://staging.local:8080',
    ));
  it('takes BASE_IRI’s scheme when the host asked is BASE_IRI’s (a TLS proxy in front)', async () =>
    assert.equal(await originFor(BASE, { Host: 'example.org' }), 'https://example.org'));
  it('is PUBLIC_URL whatever the host asked', async () =>
    assert.equal(
      await originFor({ ...BASE, PUBLIC_URL: 'https://staging.example.net/' }, { Host: 'x.y' }),
      'https://staging.example.net',
    ));
  it('ignores X-Forwarded-* while the proxy is not trusted (the app’s setting)', async () =>
    assert.equal(
      await originFor(BASE, {
        Host: 'a.local',
        'X-Forwarded-Proto': 'https',
        'X-Forwarded-Host': 'evil.example',
      }),
      'http://a.local',
    ));
  it('follows X-Forwarded-* once the proxy is trusted', async () =>
    assert.equal(
      await originFor(
        BASE,
        { Host: 'a.local', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'b.local' },
        true,
      ),
      'https://b.local',
    ));
  for (const host of [
    'a"b',
    'a<b>',
    "a'b",
    'a b',
    'a/b',
    'a@b',
    '',
    'a.local:99999',
    '[::1]:65536',
  ])
    it(`answers on BASE_IRI’s origin for the Host ${JSON.stringify(host)}`, async () =>
      assert.equal(await originFor(BASE, { Host: host }), 'https://example.org'));
});
