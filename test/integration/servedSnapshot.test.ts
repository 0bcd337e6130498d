// The snapshot of the sources a server serves without one of its own (docs/operations.md, "Start
// time"): kept at the first start, loaded at the next, and the same data either way.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { datasetLoad } from '../../src/config/config';
import { canonicalDataset } from '../../src/load/describe/canonicalDataset';
import type { Loaded } from '../../src/load/loadSources';
import { loadServed } from '../../src/load/servedSnapshot';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { needsThirdParty, tempDir, testConfig } from '../support';

describe('The served sources’ snapshot', function () {
  this.timeout(180_000);
  let folder: string;
  let request: ReturnType<typeof datasetLoad>;
  let first: Loaded;
  const kept = () => fs.readdirSync(folder).filter((f) => f.startsWith('snapshot-'));
  const fromSnapshot = (loaded: Loaded) =>
    loaded.report.files.length === 1 && path.dirname(loaded.report.files[0]!.file) === folder;

  before(async function () {
    needsThirdParty.call(this);
    folder = path.join(tempDir(), 'cache');
    request = datasetLoad({ ...testConfig(), statesCache: folder });
    assert.deepEqual(request.sources, BUNDLED_DATASET, 'the bundled sources are served');
    first = await loadServed(request.sources, request.options);
  });
  after(() => first?.dataset.free());

  it('is kept after the first load, which reads the sources', () => {
    assert.equal(fromSnapshot(first), false);
    assert.equal(first.report.files.length, BUNDLED_DATASET.length);
    assert.equal(kept().length, 1);
    assert.match(kept()[0]!, /^snapshot-[0-9a-f]{32}\.nq$/);
  });

  it('is loaded by the next, with the same version, institutions and index', async () => {
    const again = await loadServed(request.sources, request.options);
    try {
      assert.ok(fromSnapshot(again), 'loaded from the kept snapshot');
      assert.equal(again.dataset.version, first.dataset.version);
      assert.equal(again.dataset.institutionCount, first.dataset.institutionCount);
      assert.equal(again.dataset.withdrawnCount, first.dataset.withdrawnCount);
      assert.equal(again.report.triples, first.report.triples);
      assert.deepEqual(again.rows, first.rows);
      assert.deepEqual(
        again.dataset.warnings.map((w) => w.message),
        first.dataset.warnings.map((w) => w.message),
      );
      assert.deepEqual(again.dataset.links, first.dataset.links);
      // Read canonically from what was loaded (not taken from the trailer): the same data.
      const canonical = await canonicalDataset(again.dataset);
      assert.equal(canonical.history.version, first.dataset.version);
      assert.deepEqual(canonical.history.states, first.history.states);
    } finally {
      again.dataset.free();
    }
  });

  it('is removed when cut, and the sources are read again and kept anew', async () => {
    const file = path.join(folder, kept()[0]!);
    const whole = fs.statSync(file).size;
    fs.truncateSync(file, Math.floor(whole / 2));
    const again = await loadServed(request.sources, request.options);
    try {
      assert.equal(fromSnapshot(again), false);
      assert.equal(again.dataset.version, first.dataset.version);
      assert.equal(fs.statSync(file).size, whole);
    } finally {
      again.dataset.free();
    }
  });

  it('is not taken for a trailer whose states do not fit the data', async () => {
    const file = path.join(folder, kept()[0]!);
    const text = fs.readFileSync(file, 'utf8');
    // One institution's description moved out of the snapshot: the trailer counts it still.
    const isil = 'DE-1a';
    const graph = `<https://ld.zdb-services.de/data/organisations/${isil}> .\n`;
    const cut = text
      .split('\n')
      .filter((line) => !`${line}\n`.endsWith(graph))
      .join('\n');
    assert.ok(cut.length < text.length);
    fs.writeFileSync(file, cut);
    const again = await loadServed(request.sources, request.options);
    try {
      assert.equal(fromSnapshot(again), false);
      assert.equal(again.dataset.version, first.dataset.version);
    } finally {
      again.dataset.free();
    }
  });

  it('is never used by a load that validates (a snapshot keeps no defects)', async () => {
    const again = await loadServed(request.sources, { ...request.options, validate: true });
    try {
      assert.equal(fromSnapshot(again), false);
      assert.ok(again.report.validated);
    } finally {
      again.dataset.free();
    }
  });

  it('is not used for sources of other bytes', async () => {
    const other = path.join(tempDir(), 'names.tsv');
    fs.copyFileSync(request.sources[0]!, other);
    fs.appendFileSync(
      other,
      'http://lobid.org/organisations/DE-Zz999#!\tDE-Zz999\t\tEine Bibliothek, nur hier\n',
    );
    const sources = [other, ...request.sources.slice(1)];
    const again = await loadServed(sources, request.options);
    try {
      assert.equal(fromSnapshot(again), false);
      assert.notEqual(again.dataset.version, first.dataset.version);
      assert.equal(kept().length, 1, 'the snapshot of the other bytes replaces the one kept');
    } finally {
      again.dataset.free();
    }
  });

  it('takes a folder in its place for none, and reads the sources without failing', async () => {
    (await loadServed(request.sources, request.options)).dataset.free();
    const file = path.join(folder, kept()[0]!);
    fs.rmSync(file);
    fs.mkdirSync(file);
    const again = await loadServed(request.sources, request.options);
    try {
      assert.equal(fromSnapshot(again), false);
      assert.equal(again.dataset.version, first.dataset.version);
      assert.ok(fs.statSync(file).isDirectory(), 'left as it is');
    } finally {
      again.dataset.free();
    }
  });
});
