// The stores in threads of their own (src/store/embedded/storeThread.ts), as the server runs them: the same
// dataset, descriptions and documents as a load in this thread; load errors as they were thrown;
// a thread for each load, ended once its store is freed and its queries answered; a thread that
// ends.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import request from 'supertest';
import { LoadError, loadSources } from '../../src/load/loadSources';
import { inProcessStore } from '../../src/store/embedded/inProcessStore';
import { createApp } from '../../src/http/app';
import { createLogger } from '../../src/util/logger';
import { Reloader } from '../../src/process/reloader';
import type { Isil } from '../../src/rdf/isil';
import { PROJECT_ROOT } from '../../src/util/paths';
import { Service } from '../../src/documents/service';
import { institutionIriFor, type CheckedIri } from '../../src/store/queries';
import { StoreInThread, StoreThread } from '../../src/store/embedded/storeThread';
import { BASE, FIXTURES, tempDir, testConfig, needsThirdParty } from '../support';

const WITHDRAWN = path.join(FIXTURES, 'test', 'withdrawn.ttl');

/**
 * The worker thread of the store `storeNumber`, or of the load sent last (reached inside the
 * StoreThread: a test ends it from outside as a crash would, or waits for its end).
 */
function workerOf(thread: StoreThread, storeNumber?: number): Worker {
  const inside = thread as unknown as {
    stores: Map<number, { client: { worker: Worker } }>;
    storesOpened: number;
  };
  return inside.stores.get(storeNumber ?? inside.storesOpened)!.client.worker;
}

const exitOf = (worker: Worker) => new Promise<number>((resolve) => worker.once('exit', resolve));

/** supertest's parser for any body as its bytes. */
function bytes(res: request.Response, done: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}

describe('the store in its own thread', function () {
  before(needsThirdParty);
  this.timeout(60_000);
  const config = testConfig();
  const sources = [...config.bundledDataset, WITHDRAWN];
  let thread: StoreThread;
  const failures: Error[] = [];

  before(() => {
    thread = new StoreThread((error) => failures.push(error));
  });
  after(() => thread.close());

  it('loads the same dataset as a load in this thread: index, figures, links and every description', async () => {
    const here = await loadSources(sources, { baseIri: BASE });
    const there = await thread.open({ sources: sources, options: { baseIri: BASE } });
    try {
      assert.equal(there.dataset.version, here.dataset.version);
      assert.equal(there.dataset.institutionCount, here.dataset.institutionCount);
      assert.ok(there.dataset.institutionCount > 18_000);
      assert.equal(there.dataset.withdrawnCount, here.dataset.withdrawnCount);
      assert.ok(there.dataset.withdrawnCount > 0);
      assert.equal(there.dataset.tripleCount, here.dataset.tripleCount);
      assert.deepEqual(there.dataset.warnings, here.dataset.warnings);
      assert.deepEqual(there.dataset.links, here.dataset.links);
      for (const isil of ['DE-1a', 'de-1A', 'DE-L1', 'DE-W1', 'DE-W5', 'DE-W6', 'DE-X99'] as Isil[])
        assert.deepEqual(there.dataset.lookup(isil), here.dataset.lookup(isil));
      // Every 50th institution: the same triples, labelled and ordered alike.
      const institutions = [...here.dataset.institutions()];
      for (let i = 0; i < institutions.length; i += 50) {
        const mine = await here.dataset.describe(institutions[i]!);
        const theirs = await there.dataset.describe(institutions[i]!);
        assert.deepEqual(theirs.triples, mine.triples, institutions[i]!.isil);
        assert.ok(mine.triples.length > 0);
      }
    } finally {
      here.dataset.free();
      there.dataset.free();
    }
  });

  it('serves the same documents, byte for byte with the same ETags, as a store in this thread', async () => {
    const apps = [];
    for (const store of [inProcessStore, thread]) {
      const service = new Service(config);
      service.use((await store.open({ sources, options: { baseIri: BASE } })).dataset);
      apps.push({ service, app: createApp({ service, logger: createLogger('silent') }) });
    }
    try {
      for (const target of [
        '/data/organisations/DE-1a.ttl',
        '/data/organisations/DE-1a.rdf',
        '/data/organisations/DE-1a.jsonld',
        '/data/organisations/DE-1a.nt',
        '/isil/DE-1a',
      ]) {
        const [mine, theirs] = (await Promise.all(
          apps.map(({ app }) => request(app).get(target).buffer(true).parse(bytes)),
        )) as [request.Response, request.Response];
        assert.equal(theirs.status, 200, target);
        assert.equal(theirs.headers.etag, mine.headers.etag, target);
        assert.ok(Buffer.isBuffer(theirs.body) && theirs.body.length > 1000, target);
        assert.deepEqual(theirs.body, mine.body, target);
      }
    } finally {
      for (const { service } of apps) service.close();
    }
  });

  it('a broken file rejects with its LoadError (file, line, column); what is loaded stays served', async () => {
    const dir = tempDir();
    try {
      const good = path.join(dir, 'good.nt');
      fs.writeFileSync(
        good,
        `<${BASE}/resource/organisations/DE-T1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Organization> .\n` +
          `<${BASE}/resource/organisations/DE-T1> <http://xmlns.com/foaf/0.1/name> "Test library" .\n`,
      );
      const broken = path.join(dir, 'broken.nt');
      fs.writeFileSync(
        broken,
        `<${BASE}/a> <${BASE}/b> <${BASE}/c> .\n<${BASE}/a> <${BASE}/b> "open .\n`,
      );
      const loaded = await thread.open({ sources: [good], options: { baseIri: BASE } });
      const here = await loadSources([broken], { baseIri: BASE }).catch((error: unknown) => error);
      const there = await thread
        .open({ sources: [broken], options: { baseIri: BASE } })
        .catch((error: unknown) => error);
      assert.ok(here instanceof LoadError);
      assert.ok(there instanceof LoadError, String(there));
      assert.equal(there.message, here.message);
      assert.deepEqual(
        [there.file, there.line, there.column, there.reason],
        [here.file, here.line, here.column, here.reason],
      );
      assert.equal(there.line, 2);
      const found = loaded.dataset.lookup('DE-T1' as Isil);
      assert.equal(found.kind, 'found');
      assert.equal((await loaded.dataset.describe(found.institution)).triples.length, 2);
      loaded.dataset.free();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('frees a store after the queries sent before, and refuses the ones after', async () => {
    const { dataset } = await thread.open({
      sources: config.bundledDataset,
      options: { baseIri: BASE },
    });
    const found = dataset.lookup('DE-1a' as Isil);
    assert.equal(found.kind, 'found');
    const exited = exitOf(workerOf(thread, dataset.store.storeNumber));
    const before = dataset.describe(found.institution);
    dataset.free();
    assert.ok((await before).triples.length > 20);
    assert.throws(() => dataset.describe(found.institution), /freed/);
    // The StoreThread refuses a store it freed too, whatever a handle on it believes.
    const iri = institutionIriFor(BASE, 'DE-1a' as Isil);
    await assert.rejects(thread.describe(dataset.store.storeNumber, iri), /freed/);
    // Its thread was terminated, which released its memory: no failure.
    await exited;
    assert.deepEqual(failures, []);
  });

  it('each load has a thread of its own: freeing the old store ends its thread, once its queries are answered, while the new one answers', async () => {
    const iri = institutionIriFor(BASE, 'DE-1a' as Isil);
    const old = await thread.open({ sources: config.bundledDataset, options: { baseIri: BASE } });
    const fresh = await thread.open({ sources: config.bundledDataset, options: { baseIri: BASE } });
    try {
      assert.notEqual(fresh.dataset.store.threadId, old.dataset.store.threadId);
      const found = old.dataset.lookup('DE-1a' as Isil);
      assert.equal(found.kind, 'found');
      const oldThread = workerOf(thread, old.dataset.store.storeNumber);
      const exited = exitOf(oldThread);
      // Queries in flight for the old store, as requests begun before a swap leave them.
      const owed = Array.from({ length: 20 }, () => old.dataset.describe(found.institution));
      old.dataset.free();
      const answers = await Promise.all(owed);
      assert.ok(answers.every((answer) => answer.triples.length > 20));
      assert.equal(await exited, 1, 'terminated');
      assert.deepEqual(failures, [], 'the end of a freed store is no failure');
      assert.ok((await thread.describe(fresh.dataset.store.storeNumber, iri)).length > 0);
    } finally {
      old.dataset.free();
      fresh.dataset.free();
    }
  });

  it('a failed load ends its thread and leaves the store in use answering', async () => {
    const iri = institutionIriFor(BASE, 'DE-1a' as Isil);
    const dir = tempDir();
    const { dataset } = await thread.open({
      sources: config.bundledDataset,
      options: { baseIri: BASE },
    });
    try {
      const broken = path.join(dir, 'broken.nt');
      fs.writeFileSync(broken, `<${BASE}/a> <${BASE}/b> "open .\n`);
      const failing = thread.open({ sources: [broken], options: { baseIri: BASE } });
      const exited = exitOf(workerOf(thread));
      await assert.rejects(failing, LoadError);
      await exited;
      assert.deepEqual(failures, []);
      assert.ok((await thread.describe(dataset.store.storeNumber, iri)).length > 0);
    } finally {
      dataset.free();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a thread that ends during its load (an out-of-memory abort) fails that load only', async () => {
    const iri = institutionIriFor(BASE, 'DE-1a' as Isil);
    const { dataset } = await thread.open({
      sources: config.bundledDataset,
      options: { baseIri: BASE },
    });
    try {
      const dying = thread.open({ sources: config.bundledDataset, options: { baseIri: BASE } });
      await workerOf(thread).terminate();
      await assert.rejects(dying, /store's thread stopped/);
      assert.deepEqual(failures, [], 'not fatal: the store in use is in another thread');
      assert.ok((await thread.describe(dataset.store.storeNumber, iri)).length > 0);
      const again = await thread.open({
        sources: config.bundledDataset,
        options: { baseIri: BASE },
      });
      again.dataset.free();
    } finally {
      dataset.free();
    }
  });

  it('checks an IRI again before it becomes query text in the thread', async () => {
    const { dataset } = await thread.open({
      sources: config.bundledDataset,
      options: { baseIri: BASE },
    });
    try {
      for (const hostile of [
        `${BASE}/resource/organisations/DE-1a> ?p ?o } #`,
        `${BASE}/resource/organisations/DE-1a\u003E`,
        'urn:x-bind:description',
      ]) {
        await assert.rejects(
          thread.describe(dataset.store.storeNumber, hostile as CheckedIri),
          /refused to bind/,
          hostile,
        );
      }
    } finally {
      dataset.free();
    }
  });

  it('a reload through the thread swaps the dataset in and ends the thread of the previous store', async () => {
    const service = new Service(testConfig());
    try {
      const reloader = new Reloader(service, createLogger('silent'), thread);
      await reloader.start();
      const first = service.current!.dataset;
      const found = first.lookup('DE-1a' as Isil);
      assert.equal(found.kind, 'found');
      const storeNumber = (first.store as StoreInThread).storeNumber;
      const exited = exitOf(workerOf(thread, storeNumber));
      await reloader.reload();
      assert.notEqual(service.current!.dataset, first);
      await new Promise((resolve) => setImmediate(resolve));
      assert.throws(() => first.describe(found.institution), /freed/);
      // And its thread ended, not only marked freed here.
      await exited;
      await assert.rejects(
        thread.describe(storeNumber, institutionIriFor(BASE, 'DE-1a' as Isil)),
        /freed/,
      );
      assert.deepEqual(failures, []);
      const app = createApp({ service, logger: createLogger('silent') });
      const answer = await request(app).get('/data/organisations/DE-1a.ttl');
      assert.equal(answer.status, 200);
    } finally {
      service.close();
    }
  });

  it('a request the closed thread cannot answer (the process stopping) gets 503, logged as abandoned', async () => {
    const closing = new StoreThread();
    const { dataset } = await closing.open({
      sources: config.bundledDataset,
      options: { baseIri: BASE },
    });
    const service = new Service(testConfig({ CACHE_MAX_BYTES: '0' }));
    const lines: { level: number; msg: string }[] = [];
    const logger = createLogger('info', {
      write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }),
    });
    try {
      service.use(dataset);
      const app = createApp({ service, logger });
      assert.equal((await request(app).get('/data/organisations/DE-1a.ttl')).status, 200);
      await closing.close();
      const answer = await request(app).get('/data/organisations/DE-1a.ttl');
      assert.equal(answer.status, 503);
      assert.equal(answer.headers['retry-after'], '5');
      assert.ok(lines.some((line) => line.msg === 'request abandoned: stopping'));
      assert.deepEqual(
        lines.filter((line) => line.level >= 50),
        [],
      );
    } finally {
      service.close();
    }
  });

  describe('a load sent ahead (the first, while the process boots)', () => {
    const bundled = () => ({ sources: [...config.bundledDataset], options: { baseIri: BASE } });
    const sent = (of: StoreThread) => (of as unknown as { storesOpened: number }).storesOpened;
    let ahead: StoreThread;
    let ended: Error[];
    beforeEach(() => {
      ended = [];
      ahead = new StoreThread((error) => ended.push(error));
    });
    afterEach(() => ahead.close());

    it('is taken by the open of the same request: loaded once', async () => {
      ahead.preload(bundled());
      assert.equal(sent(ahead), 1);
      const { dataset } = await ahead.open(bundled());
      try {
        assert.equal(sent(ahead), 1, 'no second load');
        assert.equal(dataset.store.storeNumber, 1);
        assert.ok(dataset.institutionCount > 18_000);
      } finally {
        dataset.free();
      }
    });

    it('is not served to the open of another request, and its thread ends once loaded', async () => {
      ahead.preload({ sources: [WITHDRAWN], options: { baseIri: BASE } });
      const exited = exitOf(workerOf(ahead, 1));
      const { dataset } = await ahead.open(bundled());
      try {
        assert.equal(dataset.store.storeNumber, 2);
        assert.ok(dataset.institutionCount > 18_000);
        await exited;
        assert.deepEqual(ended, []);
      } finally {
        dataset.free();
      }
    });

    it('that fails rejects the open that takes it, with its LoadError', async () => {
      const broken = path.join(tempDir(), 'broken.nt');
      fs.writeFileSync(broken, `<${BASE}/a> <${BASE}/b> "open .\n`);
      const request = { sources: [broken], options: { baseIri: BASE } };
      ahead.preload(request);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await assert.rejects(ahead.open(request), LoadError);
      assert.deepEqual(ended, []);
    });
  });

  it('the HTTP thread does not load Oxigraph or the loader: only the store thread does', () => {
    // What the entry and the HTTP side's module pull in, in a fresh process (neither runs main()).
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `require(${JSON.stringify(path.join(PROJECT_ROOT, 'src', 'main.ts'))});
         require(${JSON.stringify(path.join(PROJECT_ROOT, 'src', 'process', 'servers.ts'))});
         console.log(JSON.stringify(Object.keys(require.cache)));`,
      ],
      { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 30_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    const loaded = JSON.parse(run.stdout) as string[];
    assert.ok(
      loaded.some((file) => file.endsWith(path.join('src', 'store', 'embedded', 'storeThread.ts'))),
    );
    assert.ok(
      loaded.some((file) => file.endsWith(path.join('node_modules', 'express', 'index.js'))),
    );
    assert.deepEqual(
      loaded.filter((file) => /[/\\]oxigraph[/\\]|loadSources|datasetStore/.test(file)),
      [],
    );
  });

  it('the thread of a store in use that ends fails what it owes and tells its owner; close does not', async () => {
    const ending = new StoreThread((error) => failures.push(error));
    const { dataset } = await ending.open({
      sources: config.bundledDataset,
      options: { baseIri: BASE },
    });
    const found = dataset.lookup('DE-1a' as Isil);
    assert.equal(found.kind, 'found');
    const owed = dataset.describe(found.institution);
    const count = failures.length;
    // As if the thread died (an out-of-memory abort, say): the worker is ended from outside.
    await workerOf(ending, dataset.store.storeNumber).terminate();
    await assert.rejects(owed, /store's thread stopped/);
    assert.equal(failures.length, count + 1);
    await assert.rejects(
      ending.open({ sources: config.bundledDataset, options: { baseIri: BASE } }),
      /stopped/,
    );

    const closed = new StoreThread((error) => failures.push(error));
    await closed.close();
    await assert.rejects(
      closed.open({ sources: config.bundledDataset, options: { baseIri: BASE } }),
      /closed/,
    );
    assert.equal(failures.length, count + 1);
  });
});
