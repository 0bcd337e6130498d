// Loading in time slices (what keeps a reloading server answering): the index read a slice of
// institutions at a time equals the one-query index, and a snapshot with its marks every few KiB
// loads whole, with the version of its bytes.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { generate } from '../../loader/generate';
import { loadSources, writeSnapshot } from '../../loader/loadSources';
import { Dataset } from '../../src/dataset';
import { DatasetStore, type SelectBinding } from '../../src/store/datasetStore';
import { BASE, FIXTURES, tempDir } from '../support';

const WITHDRAWN_TTL = path.join(FIXTURES, 'test', 'withdrawn.ttl');

/** Rows in one order, whatever order the queries returned them in. */
const sorted = (rows: SelectBinding[]) =>
  [...rows].sort((a, b) => (a.institution!.value < b.institution!.value ? -1 : 1));

/** A store with generated institutions (more than one slice) and the withdrawn fixture. */
function fixtureStore(): DatasetStore {
  const store = new DatasetStore();
  store.load([...generate({ count: 250, seed: 5, base: BASE })].join(''), 'nt');
  store.load(fs.readFileSync(WITHDRAWN_TTL), 'ttl', `${BASE}/`);
  return store;
}

describe('loading in time slices', () => {
  describe('the index', () => {
    it('reads the same rows in slices as in one query, pausing between slices', async () => {
      const store = fixtureStore();
      try {
        let pauses = 0;
        // Contended, as while requests wait: the slices are smallest.
        const sliced = await store.institutionsInSlices({
          pause: async () => {
            pauses++;
          },
          contended: true,
        });
        const whole = store.institutions();
        assert.ok(whole.length > 250, `${whole.length} institutions`);
        assert.ok(whole.some((row) => row.deprecated !== undefined));
        assert.deepEqual(sorted(sliced), sorted(whole));
        assert.ok(pauses >= 3, `${pauses} pauses`);
      } finally {
        store.free();
      }
    });

    it('builds the same dataset: lookups, successors, counts and warnings', async () => {
      const store = fixtureStore();
      try {
        const whole = new Dataset(store, BASE, 'v');
        const sliced = await Dataset.fromRows(store, BASE, 'v', await Dataset.indexRows(store));
        assert.deepEqual([...sliced.institutions()], [...whole.institutions()]);
        assert.equal(sliced.withdrawnCount, whole.withdrawnCount);
        assert.ok(whole.withdrawnCount > 0);
        assert.deepEqual(sliced.warnings, whole.warnings);
        assert.ok(whole.warnings.length > 0);
        for (const isil of ['DE-W1', 'DE-W2', 'DE-W3', 'DE-W5', 'de-w1', 'DE-NONE'] as const)
          assert.deepEqual(sliced.lookup(isil as never), whole.lookup(isil as never), isil);
      } finally {
        store.free();
      }
    });

    it('falls back to the one query when an institution cannot be bound (a blank node)', async () => {
      const store = fixtureStore();
      try {
        store.load(
          '_:b <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Organization> .\n',
          'nt',
        );
        const sliced = await store.institutionsInSlices({
          pause: async () => undefined,
          contended: false,
        });
        assert.ok(sliced.some((row) => row.institution!.type === 'bnode'));
        assert.deepEqual(sorted(sliced), sorted(store.institutions()));
      } finally {
        store.free();
      }
    });
  });

  describe('snapshots with fine marks', () => {
    let dir: string;
    before(() => {
      dir = tempDir();
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('load whole, versioned by all their bytes', async () => {
      const source = path.join(dir, 'synthetic.nt');
      fs.writeFileSync(source, [...generate({ count: 300, seed: 7, base: BASE })].join(''));
      const first = await loadSources([source], { baseIri: BASE });
      const snapshot = path.join(dir, 'dataset.nq');
      writeSnapshot(first.dataset, snapshot);
      // A comment after the last mark, as the reload bench appends: the last piece has no mark.
      fs.appendFileSync(snapshot, '# appended\n');
      const bytes = fs.readFileSync(snapshot);
      const again = await loadSources([snapshot], { baseIri: BASE });
      try {
        const pieces = bytes.toString('utf8').split('\n# chunk\n');
        // More pieces than 1 MiB reads: pieces end inside reads and reads end inside pieces.
        assert.ok(pieces.length > Math.ceil(bytes.length / (1 << 20)) + 2, `${pieces.length}`);
        const version = crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 12);
        assert.equal(again.report.version, version);
        assert.equal(again.report.triples, first.report.triples);
        // The graph itself is compared in sources.test.ts (isomorphism over this many blank nodes
        // takes seconds): here, that every institution arrived with its name and time.
        assert.deepEqual([...again.dataset.institutions()], [...first.dataset.institutions()]);
      } finally {
        first.dataset.free();
        again.dataset.free();
      }
    });
  });
});
