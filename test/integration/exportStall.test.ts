// A bulk export's write deadline (src/http/searchExport.ts): a client that stops reading keeps its
// slot within EXPORT_STALL_MS and loses it after, so that clients that never read cannot hold every
// slot. Real sockets that never read, on a Unix socket (fixed buffers: the writes block soon).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { generate } from '../../cli/generate';
import { createApp } from '../../src/http/app';
import { MAX_EXPORTS } from '../../src/http/searchExport';
import { createLogger } from '../../src/util/logger';
import { Service } from '../../src/documents/service';
import { BASE, openDataset, tempDir, testConfig } from '../support';

/** Enough institutions that an export outgrows a Unix socket's buffers and Node's. */
const COUNT = 2000;

/** A server on a Unix socket that counts the answers it cut short. */
interface Listening {
  readonly server: http.Server;
  readonly socket: string;
  /** Resolves once `n` answers have closed unfinished. */
  cut(n: number): Promise<void>;
}

function listen(app: Express, socket: string): Promise<Listening> {
  const server = http.createServer(app);
  let cut = 0;
  const waiting: { n: number; resolve: () => void }[] = [];
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) =>
    res.on('close', () => {
      if (res.writableFinished) return;
      cut++;
      for (const w of waiting) if (cut >= w.n) w.resolve();
    }),
  );
  return new Promise((resolve) =>
    server.listen(socket, () =>
      resolve({
        server,
        socket,
        cut: (n) =>
          new Promise<void>((done) => (cut >= n ? done() : waiting.push({ n, resolve: done }))),
      }),
    ),
  );
}

/** A client that asks for an export, and reads nothing more once the first bytes came. */
interface Stalled {
  readonly client: net.Socket;
  /** What it read: the first bytes, then the rest once it reads again. */
  readonly chunks: Buffer[];
}

/** A client that asks for an export, takes the first bytes (the export has begun) and reads no more. */
function neverReads(socket: string): Promise<Stalled> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const client = net.connect(socket, () =>
      client.write('GET /search?format=jsonl HTTP/1.1\r\nHost: isil.test\r\n\r\n'),
    );
    client.on('data', (c: Buffer) => chunks.push(c));
    client.once('data', () => {
      client.pause();
      resolve({ client, chunks });
    });
    client.on('error', reject);
  });
}

/** What a paused client received, once it reads again to the end. */
function rest({ client, chunks }: Stalled): Promise<string> {
  client.resume();
  return new Promise((resolve) =>
    client.on('close', () => resolve(Buffer.concat(chunks).toString('utf8'))),
  );
}

describe('a bulk export whose client stops reading', function () {
  this.timeout(120_000);
  const folder = tempDir();
  let service: Service;
  const appWith = (exportStallMs: number) =>
    createApp({ service, logger: createLogger('silent'), exportStallMs });
  before(async () => {
    const source = path.join(folder, 'generated.nt');
    fs.writeFileSync(source, [...generate({ count: COUNT, seed: 47, base: BASE })].join(''));
    const config = testConfig();
    const { dataset } = await openDataset([source], config);
    service = new Service(config, {});
    service.use(dataset);
    await service.search.ensure();
  });
  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('keeps its slot within the deadline: the next export is refused', async () => {
    const app = appWith(60_000);
    const listening = await listen(app, path.join(folder, 'long.sock'));
    const clients: Stalled[] = [];
    try {
      for (let i = 0; i < MAX_EXPORTS; i++) clients.push(await neverReads(listening.socket));
      await request(app).get('/search?format=jsonl').expect(503).expect('Retry-After', /\d/);
    } finally {
      for (const { client } of clients) client.destroy();
      listening.server.close();
    }
  });

  describe('past the deadline', () => {
    let received: string[];
    let after: request.Response;
    before(async () => {
      const app = appWith(200);
      const listening = await listen(app, path.join(folder, 'short.sock'));
      try {
        const clients: Stalled[] = [];
        for (let i = 0; i < MAX_EXPORTS; i++) clients.push(await neverReads(listening.socket));
        await listening.cut(MAX_EXPORTS);
        after = await request(app).get('/search?format=jsonl');
        received = await Promise.all(clients.map(rest));
      } finally {
        listening.server.close();
      }
    });

    it('gives its slot up: the next export is answered in full', () => {
      assert.equal(after.status, 200);
      assert.equal(after.text.split('\n').filter(Boolean).length, COUNT);
    });
    it('has its answer cut short: the stalled clients got part of the export', () => {
      for (const text of received) {
        assert.match(text, /^HTTP\/1\.1 200 /);
        assert.ok(!text.endsWith('0\r\n\r\n'), 'the chunked body never ended');
        assert.ok(text.split('\n').length < COUNT, `${text.length} characters`);
      }
    });
  });
});
