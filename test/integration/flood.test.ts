// One hot uncached document must not stall the server: concurrent requests for
// one document share its render, renders are bounded, a connection's pipelined requests enter the
// app a few at a time, and past the bound the answer is 503 with Retry-After.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { loadSources } from '../../src/load/loadSources';
import type { Dataset, DescriptionSource, Institution } from '../../src/store/dataset';
import { Documents } from '../../src/documents/documents';
import type { Answer } from '../../src/documents/representation';
import { createApp } from '../../src/http/app';
import { boundPipelining, PIPELINE_DEPTH } from '../../src/http/pipeline';
import { createLogger } from '../../src/util/logger';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { RenderQueue, RendersBusy } from '../../src/documents/renderQueue';
import { Service } from '../../src/documents/service';
import { testConfig, needsThirdParty } from '../support';

/** The origin the documents are asked on. */
const ORIGIN = 'https://ld.zdb-services.de';
/** Documents asked for here are read, not answered: they need no headers. */
const READ: Answer = { status: 200, headers: () => ({}) };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Counts the describe queries a dataset's store answers. */
function countDescribes(dataset: Dataset): { count: number } {
  const counter = { count: 0 };
  const store = dataset.store;
  const describe = store.describe.bind(store);
  store.describe = (iri) => {
    counter.count++;
    return describe(iri);
  };
  return counter;
}

describe('renders under a flood', function () {
  before(needsThirdParty);
  this.timeout(60_000);
  let dataset: Dataset;
  let isils: Institution[];

  before(async () => {
    ({ dataset } = await loadSources(BUNDLED_DATASET, {
      baseIri: 'https://ld.zdb-services.de',
    }));
    isils = [...dataset.institutions()];
  });
  after(() => dataset.free());

  describe('single flight', () => {
    it('concurrent requests for one document share one query and one serialization', async () => {
      const counter = countDescribes(dataset);
      const documents = new Documents(dataset, 0);
      const institution = isils[0]!;
      const answers = await Promise.all(
        Array.from({ length: 200 }, () => documents.get(ORIGIN, institution, 'ttl', READ)),
      );
      assert.equal(counter.count, 1);
      assert.equal(new Set(answers).size, 1, 'one rendered document for all');
    });

    it('each format is its own render; one done is rendered again when the cache is off', async () => {
      const counter = countDescribes(dataset);
      const documents = new Documents(dataset, 0);
      const institution = isils[0]!;
      await Promise.all(
        (['ttl', 'nt', 'rdf', 'jsonld', 'html'] as const).flatMap((f) => [
          documents.get(ORIGIN, institution, f, READ),
          documents.get(ORIGIN, institution, f, READ),
        ]),
      );
      assert.equal(counter.count, 5);
      await documents.get(ORIGIN, institution, 'ttl', READ);
      assert.equal(counter.count, 6);
      assert.equal(documents.renderingCount, 0, 'nothing is left in flight');
    });
  });

  describe('a swap while renders wait in the queue', () => {
    it('each finishes from the dataset its request took, and that store is freed after', async () => {
      const { dataset: old } = await loadSources(BUNDLED_DATASET, {
        baseIri: 'https://ld.zdb-services.de',
      });
      const { dataset: next } = await loadSources(BUNDLED_DATASET, {
        baseIri: 'https://ld.zdb-services.de',
      });
      // The old store answers 10 ms late, so that one render runs and the others wait.
      const store: DescriptionSource = old.store;
      const describe = store.describe.bind(store);
      store.describe = (iri) =>
        new Promise((resolve) => setTimeout(() => resolve(describe(iri)), 10));
      let freed = false;
      const free = old.free.bind(old);
      old.free = () => {
        freed = true;
        free();
      };
      const service = new Service(testConfig({ CACHE_MAX_BYTES: '0' }), {
        renders: new RenderQueue(1, 10),
      });
      service.use(old);
      const documents = service.current!;
      const some = [...old.institutions()].slice(0, 5);
      const renders = some.map((i) => documents.get(ORIGIN, i, 'ttl', READ));
      assert.equal(service.renders.queued, 4);
      service.use(next);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(freed, false, 'not freed while renders of it wait');
      const rendered = await Promise.all(renders);
      for (const [n, r] of rendered.entries())
        assert.match(r.body.toString(), new RegExp(some[n]!.isil.replace(/[-/]/g, '.')));
      assert.equal(freed, true, 'freed once the last render settled');
      service.close();
    });
  });

  describe('the pipelining bound holds on the socket, not in memory', () => {
    /**
     * A server whose requests are counted: those Node parsed (before the bound), and the answers
     * open at once in the app (after it), at most.
     */
    async function counted(answer: (res: http.ServerResponse) => void) {
      const counts = { parsed: 0, open: 0, mostOpen: 0 };
      const bounded = boundPipelining((_req, res) => {
        counts.open++;
        counts.mostOpen = Math.max(counts.mostOpen, counts.open);
        res.once('close', () => counts.open--);
        answer(res);
      });
      const server = http.createServer((req, res) => {
        counts.parsed++;
        bounded(req, res);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as net.AddressInfo;
      return { server, port, counts };
    }
    /** Writes `n` pipelined GETs and never reads an answer. */
    function flood(port: number, n: number): net.Socket {
      const socket = net.connect(port, '127.0.0.1');
      socket.write('GET /x HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(n));
      return socket;
    }

    it('requests past the bound are not read while the app works on the first ones', async () => {
      const { server, port, counts } = await counted((res) =>
        setTimeout(() => res.end('ok'), 5_000),
      );
      const socket = flood(port, 50_000);
      await sleep(1000);
      socket.destroy();
      server.closeAllConnections();
      server.close();
      // One read (64 KiB, some 2,300 of these requests) may be parsed past the bound, not 50,000.
      assert.ok(counts.parsed <= 5_000, `${counts.parsed} of 50,000 requests read`);
    });

    it('synchronous answers queued behind an unsent one count against the bound', async () => {
      const body = Buffer.alloc(20_000, 97);
      const { server, port, counts } = await counted((res) => res.end(body));
      const socket = flood(port, 2_000);
      await sleep(1000);
      socket.destroy();
      server.closeAllConnections();
      server.close();
      // The client reads nothing: the first answers fill the socket, the rest wait unanswered.
      assert.ok(counts.mostOpen <= PIPELINE_DEPTH + 1, `${counts.mostOpen} answers open at once`);
    });
  });

  describe('the render queue', () => {
    it('runs at most its bound at once, in the order asked', async () => {
      const queue = new RenderQueue(3, 100);
      let running = 0;
      let most = 0;
      const order: number[] = [];
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          queue.run(async () => {
            running++;
            most = Math.max(most, running);
            await sleep(2);
            order.push(i);
            running--;
          }),
        ),
      );
      assert.equal(most, 3);
      assert.deepEqual(
        order.slice(0, 3).sort((a, b) => a - b),
        [0, 1, 2],
      );
      assert.equal(queue.active + queue.queued, 0);
    });

    it('refuses at once past the bound on waiting renders', async () => {
      const queue = new RenderQueue(2, 3);
      const slow = () => queue.run(() => sleep(20));
      const accepted = [slow(), slow(), slow(), slow(), slow()];
      await assert.rejects(slow(), RendersBusy);
      await Promise.all(accepted);
      await slow();
    });

    it('a render that throws gives its place back', async () => {
      const queue = new RenderQueue(1, 10);
      await assert.rejects(
        queue.run(() => {
          throw new Error('broken');
        }),
        /broken/,
      );
      await assert.rejects(
        queue.run(() => Promise.reject(new Error('rejected'))),
        /rejected/,
      );
      assert.equal(await queue.run(() => Promise.resolve(7)), 7);
    });
  });

  describe('over HTTP', () => {
    let server: http.Server;
    let port: number;
    let service: Service;
    /** Requests of the flooding connection in the app at once, at most. */
    let most = 0;
    let inApp = 0;
    let slow = false;

    before(async () => {
      service = new Service(testConfig({ CACHE_MAX_BYTES: '0' }), {
        renders: new RenderQueue(2, 4),
      });
      const { dataset: served } = await loadSources(BUNDLED_DATASET, {
        baseIri: 'https://ld.zdb-services.de',
      });
      // While `slow`, the real store answers 20 ms late, as a store in another thread or host does
      // under load: renders then overlap, as they do in the server.
      const store: DescriptionSource = served.store;
      const describe = store.describe.bind(store);
      store.describe = (iri) =>
        slow
          ? new Promise((resolve) => setTimeout(() => resolve(describe(iri)), 20))
          : describe(iri);
      service.use(served);
      const app = createApp({ service, logger: createLogger('silent') });
      const counted: http.RequestListener = (req, res) => {
        inApp++;
        most = Math.max(most, inApp);
        res.once('close', () => inApp--);
        app(req, res);
      };
      server = http.createServer(boundPipelining(counted));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as net.AddressInfo).port;
    });
    after(() => {
      server.closeAllConnections();
      server.close();
      service.close();
    });

    /** Writes `paths` pipelined on one connection; resolves with the status of each answer. */
    function pipeline(paths: readonly string[]): Promise<number[]> {
      return new Promise((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1');
        const request = (p: string) => `GET ${p} HTTP/1.1\r\nHost: x\r\n\r\n`;
        socket.write(paths.map(request).join(''));
        let text = '';
        const statuses: number[] = [];
        socket.setEncoding('latin1');
        socket.on('data', (chunk: string) => {
          text += chunk;
          // Each answer has a Content-Length: walk them as they come.
          for (;;) {
            const head = text.indexOf('\r\n\r\n');
            if (head < 0) break;
            const length = Number(/content-length: (\d+)/i.exec(text.slice(0, head))?.[1] ?? 0);
            if (text.length < head + 4 + length) break;
            statuses.push(Number(text.slice(9, 12)));
            text = text.slice(head + 4 + length);
          }
          if (statuses.length === paths.length) {
            socket.end();
            resolve(statuses);
          }
        });
        socket.on('error', reject);
      });
    }

    it(`lets at most ${PIPELINE_DEPTH} pipelined requests of a connection into the app; all are answered, in order`, async () => {
      most = 0;
      const hot = isils.slice(0, 3).map((i) => `/data/organisations/${i.isil}.ttl`);
      const paths = Array.from({ length: 3000 }, (_, i) => hot[i % hot.length]!);
      const statuses = await pipeline(paths);
      assert.equal(statuses.length, paths.length);
      assert.ok(
        statuses.every((s) => s === 200),
        `not all 200: ${[...new Set(statuses)].join(', ')}`,
      );
      assert.ok(most <= PIPELINE_DEPTH, `${most} in the app at once`);
      assert.ok(most >= 2, 'requests of one connection did run side by side');
    });

    it('another client is answered while a connection floods', async () => {
      const paths = Array.from(
        { length: 5000 },
        (_, i) => `/data/organisations/${isils[i % 50]!.isil}.nt`,
      );
      const flood = pipeline(paths);
      await sleep(20);
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(res.status, 200);
      const statuses = await flood;
      assert.equal(statuses.length, paths.length);
    });

    it('past the bound on renders: 503 with Retry-After, never an unbounded queue', async () => {
      // Many connections at once, each asking for another uncached document: 2 renders run, 4
      // wait, the rest are refused.
      slow = true;
      const answers = await Promise.all(
        isils
          .slice(0, 60)
          .map((i) => fetch(`http://127.0.0.1:${port}/data/organisations/${i.isil}.rdf`)),
      );
      const refused = answers.filter((r) => r.status === 503);
      assert.ok(refused.length > 0, 'some were refused');
      assert.ok(
        answers.some((r) => r.status === 200),
        'some were rendered',
      );
      for (const r of refused) {
        assert.equal(r.headers.get('retry-after'), '1');
        assert.match(await r.text(), /busy/);
      }
      assert.equal(service.renders.active + service.renders.queued, 0);
      slow = false;
    });
  });
});
