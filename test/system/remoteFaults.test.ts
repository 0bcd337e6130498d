// The remote store failing under the service, with a real Virtuoso of the test's own: killed in
// the middle of a load (the live version untouched), stopped while the service serves (503 with
// Retry-After for what is not cached, cached documents still served, /readyz ready and saying the
// store is unavailable, service back without a restart once the store is), and slow (the
// deadline holds).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { loadRemote, type RemoteTarget } from '../../cli/remote';
import { generate } from '../../cli/generate';
import { createApp } from '../../src/http/app';
import { createLogger } from '../../src/util/logger';
import { loadSources, writeSnapshot } from '../../src/load/loadSources';
import { Service } from '../../src/documents/service';
import type { Dataset, Institution } from '../../src/store/dataset';
import type { Isil } from '../../src/rdf/isil';
import { SparqlStore } from '../../src/store/remote/sparqlStore';
import { startVirtuoso, type Virtuoso } from '../servers/virtuoso';
import { BASE, DE_1A_RDF, tempDir, testConfig, needsThirdParty, needsStore } from '../support';

const DEADLINE_MS = 1500;

/** The live institution `isil` of `dataset` (the test fails when there is none). */
function live(dataset: Dataset, isil: string): Institution {
  const found = dataset.lookup(isil as Isil);
  assert.equal(found.kind, 'found', isil);
  return (found as { institution: Institution }).institution;
}

/** A snapshot of `count` generated institutions, written in `dir`. */
async function snapshotOf(dir: string, count: number, seed: number): Promise<string> {
  const nt = path.join(dir, `generated-${count}-${seed}.nt`);
  fs.writeFileSync(nt, [...generate({ count, seed, base: BASE })].join(''));
  const loaded = await loadSources([nt], { baseIri: BASE });
  const file = path.join(dir, `generated-${count}-${seed}.nq`);
  await writeSnapshot(loaded, file);
  loaded.dataset.free();
  return file;
}

describe('a remote store that fails', function () {
  before(needsStore('remote'));
  before(needsThirdParty);
  this.timeout(180_000);
  let virtuoso: Virtuoso;
  let dir: string;
  let target: RemoteTarget;
  let store: SparqlStore;
  before(async () => {
    virtuoso = await startVirtuoso(60_000, 10);
    dir = tempDir();
    target = {
      endpoint: virtuoso.endpoint,
      via: { kind: 'graph-store', url: virtuoso.openGraphStore() },
    };
    store = new SparqlStore(
      { endpoint: virtuoso.endpoint, connections: 4, deadlineMs: DEADLINE_MS },
      BASE,
    );
  });
  after(async () => {
    await store.close();
    await virtuoso.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('killed in the middle of a load', () => {
    let served: Dataset;
    let big: string;
    before(async () => {
      await loadRemote([DE_1A_RDF], { baseIri: BASE }, { baseIri: BASE }, target);
      served = (await store.open()).dataset;
      big = await snapshotOf(dir, 3000, 7);
    });

    it('leaves the live version current and whole; the same load afterwards replaces what the killed one left', async () => {
      const before = (await served.describe(live(served, 'DE-1a'))).quads;
      let killed = false;
      let failure: Error | undefined;
      try {
        await assert.rejects(
          loadRemote(
            [big],
            {
              baseIri: BASE,
              onProgress: (phase) => {
                if (phase === 'transfer' && !killed) {
                  killed = true;
                  void virtuoso.kill();
                }
              },
            },
            { baseIri: BASE },
            target,
          ).catch((error: Error) => {
            failure = error;
            throw error;
          }),
        );
        assert.ok(
          killed,
          `the store was killed while the load wrote; the load ended first: ${failure}`,
        );
      } finally {
        // Whatever happened above, the store is up again for what follows.
        await virtuoso.restart();
      }
      const { current } = await store.registry();
      assert.equal(current.version, served.version, 'the registry still marks the live version');
      const reopened = (await store.open()).dataset;
      assert.equal(reopened.version, served.version);
      const after = (await reopened.describe(live(reopened, 'DE-1a'))).quads;
      assert.equal(after.length, before.length);
      // The same snapshot again: the same version, written over what the killed load left.
      const written = await loadRemote([big], { baseIri: BASE }, { baseIri: BASE }, target);
      const next = (await store.open()).dataset;
      assert.equal(next.version, written.version);
      assert.equal(next.institutionCount, 3000);
      const embedded = (await loadSources([big], { baseIri: BASE })).dataset;
      try {
        for (const institution of [...embedded.institutions()].slice(0, 50)) {
          const there = await next.describe(live(next, institution.isil));
          const here = await embedded.describe(institution);
          assert.equal(there.triples.length, here.triples.length, institution.isil);
        }
      } finally {
        embedded.free();
      }
    });
  });

  describe('stopped, or slow, while the service serves', () => {
    let service: Service;
    let app: ReturnType<typeof createApp>;
    let isils: string[];
    before(async () => {
      const snapshot = await snapshotOf(dir, 200, 11);
      await loadRemote([snapshot], { baseIri: BASE }, { baseIri: BASE }, target);
      service = new Service(testConfig(), { storeHealth: () => store.health() });
      const { dataset } = await store.open();
      service.use(dataset);
      app = createApp({ service, logger: createLogger('silent') });
      isils = [...dataset.institutions()].map((i) => i.isil);
    });

    it('answers 503 with Retry-After for what is not cached, serves what is, stays ready, and recovers by itself', async () => {
      const cached = `/data/organisations/${isils[0]}.ttl`;
      const first = await request(app).get(cached).expect(200);
      await virtuoso.kill();
      const again = await request(app).get(cached).expect(200);
      assert.equal(again.text, first.text, 'the cached document');
      const started = Date.now();
      const down = await request(app).get(`/data/organisations/${isils[1]}.ttl`).expect(503);
      assert.ok(Date.now() - started < DEADLINE_MS + 2000, 'within the deadline');
      assert.ok(Number(down.headers['retry-after']) >= 1);
      assert.equal(down.headers['cache-control'], 'no-store');
      const ready = await request(app).get('/readyz').expect(200);
      assert.equal(ready.body.status, 'ready');
      assert.equal(ready.body.store.state, 'unavailable');
      await virtuoso.restart();
      await request(app).get(`/data/organisations/${isils[1]}.ttl`).expect(200);
      const back = await request(app).get('/readyz').expect(200);
      assert.equal(back.body.store.state, 'available');
    });

    it('holds its deadline when the store takes connections and answers nothing', async () => {
      virtuoso.pause();
      try {
        const started = Date.now();
        const res = await request(app).get(`/data/organisations/${isils[2]}.nt`).expect(503);
        const took = Date.now() - started;
        assert.ok(took >= DEADLINE_MS - 100 && took < DEADLINE_MS + 2000, `${took} ms`);
        assert.ok(Number(res.headers['retry-after']) >= 1);
      } finally {
        virtuoso.resume();
      }
      await request(app).get(`/data/organisations/${isils[2]}.nt`).expect(200);
    });
  });
});
