// A pipelined request Node's parser refuses (garbage, a bad header line) behind one whose answer
// is still being made: the earlier answer is sent in full first, then the refusal, in the order
// of the requests (RFC 9112 §9.3.2); before, the refusal ended the connection and the earlier
// answer was lost.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../src/util/logger';
import { startServer } from '../../src/process/listen';
import { loadInto } from '../../src/process/reloader';
import { inProcessStore } from '../../src/store/embedded/inProcessStore';
import { testConfig } from '../support';
import { generatedSnapshot } from '../support/serverProcess';

/** Writes `raw` at once and reads until the server closes: every answer's status line, in order. */
function exchange(port: number, raw: string): Promise<{ statuses: string[]; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(raw));
    let text = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error('no end within 10 s')));
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () =>
      resolve({ statuses: text.match(/^HTTP\/1\.1 \d{3}[^\r]*/gm) ?? [], text }),
    );
  });
}

describe('a refused request pipelined behind one still being answered', () => {
  let server: http.Server;
  let port: number;
  let isils: string[];

  before(async () => {
    const snapshot = generatedSnapshot(50);
    isils = [
      ...new Set(
        [...fs.readFileSync(snapshot, 'utf8').matchAll(/\/resource\/organisations\/([^>]+)>/g)].map(
          (m) => m[1]!,
        ),
      ),
    ];
    const started = startServer(testConfig({ DATASET: snapshot }), createLogger('silent'), {
      storeHealth: inProcessStore.health,
    });
    server = started.server;
    await loadInto(started.service, createLogger('silent'), inProcessStore);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const cases: [string, string, string][] = [
    ['garbage', 'GARBAGE\r\n\r\n', 'HTTP/1.1 400 Bad Request'],
    [
      'a bad header line',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n',
      'HTTP/1.1 400 Bad Request',
    ],
    [
      'an unknown method',
      'BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n',
      'HTTP/1.1 405 Method Not Allowed',
    ],
  ];
  cases.forEach(([name, refused, status], n) => {
    it(`${name}: the uncached documents before it are answered in full, then the refusal`, async () => {
      // Documents not asked for before: rendered in the store, answered after this turn.
      const asked = isils.slice(n * 3, n * 3 + 3);
      const raw = asked.map(
        (isil) => `GET /data/organisations/${isil}.ttl HTTP/1.1\r\nHost: x\r\n\r\n`,
      );
      const { statuses, text } = await exchange(port, `${raw.join('')}${refused}`);
      assert.deepEqual(statuses, ['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', status]);
      for (const isil of asked) assert.ok(text.includes(`/resource/organisations/${isil}>`));
    });
  });

  it('answers normally afterwards', async () => {
    const { statuses } = await exchange(
      port,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    assert.deepEqual(statuses, ['HTTP/1.1 200 OK']);
  });
});
