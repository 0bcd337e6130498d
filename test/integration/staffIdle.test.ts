// The staff endpoint's workers while nobody queries (docs/sparql.md, Idle workers): they end after
// SPARQL_IDLE_SECONDS, /readyz lists the ones running, the next query starts one from the version's
// dump and is answered, queries racing a start wait for it, and a reload while they are idle starts
// none. The real app, the real pool of workers, real sources.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { generate } from '../../cli/generate';
import { loadSources } from '../../src/load/loadSources';
import { StaffPool } from '../../src/store/embedded/staffPool';
import { basic, buildStaffApp, type StaffApp } from '../staffSupport';
import { BASE, DE_1A_RDF, REAL_DATA, tempDir } from '../support';

const PICA_PLAIN = path.join(REAL_DATA, 'isil-directory_pica-plain_8-records.dat');
const COUNT_ALL = 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const poolOf = (own: StaffApp) => own.pool as StaffPool;
const count = (own: StaffApp) =>
  request(own.app).get('/sparql').query({ query: COUNT_ALL }).set('Authorization', basic());
const triplesIn = (res: request.Response) =>
  Number(
    (JSON.parse(res.text) as { results: { bindings: { n: { value: string } }[] } }).results
      .bindings[0]!.n.value,
  );

/** Resolves once no worker of `own` runs (they ended for idleness), within 10 s. */
async function asleep(own: StaffApp): Promise<void> {
  for (let i = 0; i < 400 && poolOf(own).workers().length > 0; i++) await sleep(25);
  assert.deepEqual(poolOf(own).workers(), [], 'every worker ended');
}

describe('the staff workers while nobody queries', function () {
  this.timeout(120_000);
  let own: StaffApp;
  let source: string;
  let triples: number;

  before(async () => {
    // The sources in a file of their own, removed once the workers have dumped them: a worker
    // started after that can only have loaded the version's dump.
    source = path.join(tempDir(), 'DE-1a.rdf');
    fs.copyFileSync(DE_1A_RDF, source);
    own = await buildStaffApp([source], {
      SPARQL_IDLE_SECONDS: '1',
      SPARQL_WORKERS: '2',
      SPARQL_PER_USER: '8',
    });
    triples = triplesIn(await count(own).expect(200));
    fs.rmSync(source);
  });
  after(() => own.close());

  it('end after SPARQL_IDLE_SECONDS without a query; /readyz lists none running', async () => {
    await asleep(own);
    const ready = await request(own.app).get('/readyz').expect(200);
    assert.deepEqual(ready.body.sparql.workers, []);
  });

  it('start again from the version dump on the next query, which is answered', async () => {
    await asleep(own);
    const res = await count(own).expect(200);
    assert.equal(triplesIn(res), triples);
    assert.equal(res.headers['dataset-version'], own.version);
    const ready = await request(own.app).get('/readyz').expect(200);
    assert.deepEqual(
      (ready.body.sparql.workers as { state: string }[]).map((w) => w.state),
      ['idle'],
      'one worker started, for the one query',
    );
  });

  it('answer every query that races a start: several at once, and one while a worker loads', async () => {
    await asleep(own);
    const first = count(own).then((r) => r);
    await sleep(20);
    const rest = await Promise.all(Array.from({ length: 5 }, () => count(own).then((r) => r)));
    for (const res of [await first, ...rest]) {
      assert.equal(res.status, 200, res.text);
      assert.equal(triplesIn(res), triples);
    }
    assert.ok(poolOf(own).workers().length <= 2, 'no more workers than SPARQL_WORKERS');
  });

  it('answer queries that come as a worker ends for idleness', async () => {
    await asleep(own);
    await count(own).expect(200);
    for (const wait of [950, 1000, 1050, 980, 1020]) {
      await sleep(wait);
      const res = await count(own);
      assert.equal(res.status, 200, res.text);
    }
  });

  it('a reload while they are idle starts none; the next query runs on the new version', async () => {
    await asleep(own);
    const sources = [PICA_PLAIN];
    const options = { baseIri: BASE };
    const { dataset } = await loadSources(sources, options);
    own.service.use(dataset);
    poolOf(own).serve({ sources, options }, dataset.version);
    await sleep(1500);
    assert.deepEqual(poolOf(own).workers(), [], 'no worker started by the reload');
    const res = await count(own).expect(200);
    assert.equal(res.headers['dataset-version'], dataset.version);
    assert.equal(triplesIn(res), dataset.tripleCount);
    assert.ok(
      poolOf(own)
        .workers()
        .every((w) => w.version === dataset.version),
    );
  });
});

describe('a staff worker woken from the version dump', function () {
  this.timeout(120_000);
  // Paths through blank nodes: a blank node cut in two where the dump is split would lose some.
  const THROUGH_BLANKS =
    'SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?b . ?b ?q ?o } FILTER(isBlank(?b)) }';
  let own: StaffApp;
  let dir: string;
  before(async () => {
    // 700 generated institutions: a dump of about 5 MB, loaded in two reads of 4 MiB and more.
    dir = tempDir();
    const source = path.join(dir, 'generated.nt');
    fs.writeFileSync(source, [...generate({ count: 700, seed: 3, base: BASE })].join(''));
    own = await buildStaffApp([source], { SPARQL_IDLE_SECONDS: '1', SPARQL_WORKERS: '1' });
  });
  after(async () => {
    await own.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('has every blank node whole: the same paths through them as the worker that loaded the sources', async () => {
    const paths = async () =>
      triplesIn(
        await request(own.app)
          .get('/sparql')
          .query({ query: THROUGH_BLANKS })
          .set('Authorization', basic())
          .expect(200),
      );
    const loaded = await paths();
    assert.ok(loaded > 1000, `${loaded} paths through blank nodes`);
    await asleep(own);
    assert.equal(await paths(), loaded);
  });
});
