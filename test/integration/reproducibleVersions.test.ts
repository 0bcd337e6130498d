// Reproducible versions: the same sources give the same snapshot, byte for byte, and the same
// version from every writer (the loader, the generator, the remote loader's check, the bundled
// sources at start); a change to one record changes that institution's hash and no other; a
// description the canonicaliser refuses is a load error naming its ISIL.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { generate, generateSnapshot } from '../../cli/generate';
import { checkSnapshot } from '../../cli/remote';
import { LoadError, loadSources, writeSnapshot, type Loaded } from '../../src/load/loadSources';
import { readTrailer, type Trailer } from '../../src/load/snapshot/snapshot';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { datasetLoad } from '../../src/config/config';
import { BASE, knotNTriples, needsThirdParty, tempDir, testConfig } from '../support';

const ORG = `${BASE}/resource/organisations`;
const V = 'http://www.w3.org/2006/vcard/ns#';
const FOAF = 'http://xmlns.com/foaf/0.1/';

/** An institution with a nested tie (equal children of different blank parents) and blank chains. */
const TIED = [
  `<${ORG}/DE-Tie1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${FOAF}Organization> .`,
  `<${ORG}/DE-Tie1> <${FOAF}name> "Tie" .`,
  `<${ORG}/DE-Tie1> <${V}adr> _:p1 .`,
  `_:p1 <${V}locality> "Tübingen" .`,
  `_:p1 <${V}geo> _:c1 .`,
  `_:c1 <${V}note> "checked" .`,
  `<${ORG}/DE-Tie1> <${V}adr> _:p2 .`,
  `_:p2 <${V}locality> "Berlin" .`,
  `_:p2 <${V}geo> _:c2 .`,
  `_:c2 <${V}note> "checked" .`,
  // Triples no description holds: a chain of alike blank nodes in the default graph, and one
  // that goes on below the last level a description holds (MAX_BLANK_NODE_DEPTH).
  ...Array.from({ length: 20 }, (_, i) => `_:x${i} <http://example.org/next> _:x${i + 1} .`),
  `<${ORG}/DE-Tie1> <http://example.org/next> _:y0 .`,
  ...Array.from({ length: 30 }, (_, i) => `_:y${i} <http://example.org/next> _:y${i + 1} .`),
].join('\n');

function trailerOf(file: string): Trailer {
  const fd = fs.openSync(file, 'r');
  try {
    return readTrailer(file, fd, BASE);
  } finally {
    fs.closeSync(fd);
  }
}

describe('reproducible versions', () => {
  let dir: string;
  let source: string;
  before(() => {
    dir = tempDir();
    source = path.join(dir, 'sources.nt');
    fs.writeFileSync(
      source,
      `${[...generate({ count: 200, seed: 11, base: BASE })].join('')}${TIED}\n`,
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('two loads of the same sources', () => {
    const loads: Loaded[] = [];
    const snapshots: string[] = [];
    before(async () => {
      for (const n of [1, 2]) {
        const loaded = await loadSources([source], { baseIri: BASE });
        loads.push(loaded);
        const file = path.join(dir, `dataset-${n}.nq`);
        await writeSnapshot(loaded, file);
        snapshots.push(file);
      }
    });
    after(() => loads.forEach((loaded) => loaded.dataset.free()));

    it('write byte-identical snapshots', () =>
      assert.ok(fs.readFileSync(snapshots[0]!).equals(fs.readFileSync(snapshots[1]!))));
    it('have the same version', () =>
      assert.equal(loads[0]!.dataset.version, loads[1]!.dataset.version));
    it('name it in the trailer', () =>
      assert.equal(trailerOf(snapshots[0]!).version, loads[0]!.dataset.version));
    it('keep every ISIL’s state in the trailer', () =>
      assert.deepEqual(trailerOf(snapshots[0]!).states, loads[0]!.history.states));
    it('hold every institution’s canonical description', () =>
      assert.equal(loads[0]!.history.descriptions.size, 201));
    it('give the snapshot, loaded again and read canonically, the same version and bytes', async () => {
      const again = await loadSources([snapshots[0]!], { baseIri: BASE });
      try {
        assert.equal(again.dataset.version, loads[0]!.dataset.version);
        const file = path.join(dir, 'dataset-again.nq');
        await writeSnapshot(again, file);
        assert.ok(fs.readFileSync(file).equals(fs.readFileSync(snapshots[0]!)));
      } finally {
        again.dataset.free();
      }
    });
    it('give a server loading the snapshot the trailer’s version, read without canonicalising', async () => {
      const served = await loadSources([snapshots[0]!], { baseIri: BASE, reuseStates: true });
      try {
        assert.equal(served.dataset.version, loads[0]!.dataset.version);
        assert.equal(served.history.descriptions.size, 0);
        assert.equal(served.canonical, undefined);
      } finally {
        served.dataset.free();
      }
    });
    it('keep the change log’s pointer in the trailer when given one', async () => {
      const file = path.join(dir, 'dataset-pointer.nq');
      const history = { version: loads[0]!.dataset.version, time: 1_700_000_000 };
      await writeSnapshot(loads[0]!, file, { history });
      assert.deepEqual(trailerOf(file).history, history);
      assert.equal(trailerOf(snapshots[0]!).history, undefined);
    });
    it('give the remote loader the same version name', () =>
      assert.equal(checkSnapshot(snapshots[0]!, BASE), loads[0]!.dataset.version));
  });

  it('a change to one record changes that institution’s hash and no other', async () => {
    const text = fs.readFileSync(source, 'utf8');
    const named = new RegExp(`(<${ORG}/(DE-[^>]+)> <${FOAF}name> ")([^"]*)"`).exec(text)!;
    const changed = path.join(dir, 'changed.nt');
    fs.writeFileSync(changed, text.replace(named[0], `${named[1]}${named[3]} (renamed)"`));
    const before = await loadSources([source], { baseIri: BASE });
    const after = await loadSources([changed], { baseIri: BASE });
    try {
      const differ = [...before.history.states.keys()].filter(
        (isil) => before.history.states.get(isil)!.hash !== after.history.states.get(isil)?.hash,
      );
      assert.deepEqual(differ, [named[2]]);
      assert.equal(after.history.states.size, before.history.states.size);
      assert.notEqual(after.dataset.version, before.dataset.version);
    } finally {
      before.dataset.free();
      after.dataset.free();
    }
  });

  it('the generator’s snapshot has the version the loader gives its N-Triples', async () => {
    const options = { count: 150, seed: 5, base: BASE };
    const nt = path.join(dir, 'generated.nt');
    const nq = path.join(dir, 'generated.nq');
    fs.writeFileSync(nt, [...generate(options)].join(''));
    fs.writeFileSync(nq, [...generateSnapshot(options)].join(''));
    const loaded = await loadSources([nt], { baseIri: BASE });
    try {
      assert.equal(trailerOf(nq).version, loaded.dataset.version);
      assert.deepEqual(trailerOf(nq).states, loaded.history.states);
    } finally {
      loaded.dataset.free();
    }
  });

  it('a description past the canonicaliser’s work limit is a load error naming its ISIL', async () => {
    const knot = path.join(dir, 'knot.nt');
    fs.writeFileSync(knot, knotNTriples());
    const started = Date.now();
    await assert.rejects(
      loadSources([knot], { baseIri: BASE }),
      (error: unknown) =>
        error instanceof LoadError &&
        /^DE-Knot: .*too intricate to label canonically/.test(error.message),
    );
    assert.ok(Date.now() - started < 10_000, 'refused, not hung on');
  });

  describe('the bundled sources', function () {
    this.timeout(180_000);
    const config = testConfig();
    let served: Loaded;
    let snapshot: string;
    let written: string;
    before(async function () {
      needsThirdParty.call(this);
      // What a server with DATASET unset loads, and what `npm run load` writes of the same files.
      const request = datasetLoad(config);
      assert.deepEqual(request.sources, [...BUNDLED_DATASET]);
      served = await loadSources(request.sources, request.options);
      const loaded = await loadSources([...BUNDLED_DATASET], { baseIri: config.baseIri });
      snapshot = path.join(dir, 'bundled.nq');
      written = (await writeSnapshot(loaded, snapshot)).version;
      loaded.dataset.free();
    });
    after(() => served?.dataset.free());

    it('are served with the version of the snapshot `npm run load` writes of them', () =>
      assert.equal(served.dataset.version, written));
    it('name it in that snapshot’s trailer, which a server loading it shows', async () => {
      assert.equal(trailerOf(snapshot).version, written);
      const again = await loadSources(
        [snapshot],
        datasetLoad(testConfig({ DATASET: snapshot })).options,
      );
      assert.equal(again.dataset.version, written);
      again.dataset.free();
    });
    it('name the successors of withdrawn ISILs in their states', () =>
      assert.ok(
        [...served.history.states.values()].some(
          (state) => state.status === 'withdrawn' && (state.successors?.length ?? 0) > 0,
        ),
      ));
    it('are canonicalised once: a later start reads their states from the cache', async () => {
      const request = datasetLoad(config);
      const again = await loadSources(request.sources, request.options);
      assert.equal(again.dataset.version, written);
      assert.equal(again.canonical, undefined, 'not read canonically');
      assert.deepEqual(again.history.states, served.history.states);
      again.dataset.free();
    });
    it('ignore a broken cache, and write it again', async () => {
      // The folder keeps the sources' snapshot too (src/load/servedSnapshot.ts).
      const files = fs.readdirSync(config.statesCache).filter((f) => f.startsWith('states-'));
      assert.equal(files.length, 1);
      assert.match(files[0]!, /^states-[0-9a-f]{32}\.json$/);
      const file = path.join(config.statesCache, files[0]!);
      fs.writeFileSync(file, '{"version": "broken');
      const request = datasetLoad(config);
      const again = await loadSources(request.sources, request.options);
      assert.equal(again.dataset.version, written);
      assert.ok(again.canonical !== undefined, 'read canonically');
      again.dataset.free();
      assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).version, written);
    });
  });
});
