// Loading in time slices (what keeps a reloading server answering): the index read a slice of
// institutions at a time equals the one-query index, and a snapshot with its marks every few KiB
// loads whole, with the version of what it holds.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { generate } from '../../cli/generate';
import { LoadError, loadSources, writeSnapshot } from '../../src/load/loadSources';
import { Dataset } from '../../src/store/dataset';
import { DatasetStore, type SelectBinding } from '../../src/store/embedded/datasetStore';
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

    it('load whole, versioned by what they hold', async () => {
      const source = path.join(dir, 'synthetic.nt');
      fs.writeFileSync(source, [...generate({ count: 300, seed: 7, base: BASE })].join(''));
      const first = await loadSources([source], { baseIri: BASE });
      const snapshot = path.join(dir, 'dataset.nq');
      await writeSnapshot(first, snapshot);
      const bytes = fs.readFileSync(snapshot);
      const again = await loadSources([snapshot], { baseIri: BASE });
      try {
        const pieces = bytes.toString('utf8').split('\n# chunk\n');
        // More pieces than 1 MiB reads: pieces end inside reads and reads end inside pieces.
        assert.ok(pieces.length > Math.ceil(bytes.length / (1 << 20)) + 2, `${pieces.length}`);
        assert.equal(again.report.version, first.report.version);
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

  describe("a snapshot's trailer (its last line): its counts, and its own index", () => {
    let dir: string;
    let snapshot: string;
    /** The snapshot's bytes before its index line, and the line. */
    let quads: string;
    let indexLine: string;
    /** The rows of the load the snapshot was written from. */
    let written: SelectBinding[];
    const ORG = `${BASE}/resource/organisations`;

    before(async () => {
      dir = tempDir();
      const source = path.join(dir, 'synthetic.nt');
      fs.writeFileSync(source, [...generate({ count: 120, seed: 11, base: BASE })].join(''));
      const loaded = await loadSources([source, WITHDRAWN_TTL], { baseIri: BASE });
      written = sorted([...loaded.rows]);
      snapshot = path.join(dir, 'dataset.nq');
      await writeSnapshot(loaded, snapshot);
      loaded.dataset.free();
      const text = fs.readFileSync(snapshot, 'utf8');
      const at = text.lastIndexOf('\n# index ') + 1;
      quads = text.slice(0, at);
      indexLine = text.slice(at);
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    /** The rejection of a load of `text` as the snapshot: a LoadError whose message matches. */
    async function refused(text: string, message: RegExp): Promise<void> {
      const file = path.join(dir, 'edited.nq');
      fs.writeFileSync(file, text);
      await assert.rejects(
        loadSources([file], { baseIri: BASE }),
        (error: Error) => error instanceof LoadError && message.test(error.message),
      );
    }

    /** Loads `text` as the snapshot; returns the rows indexed, and the rows the store gives. */
    async function load(
      text: string,
    ): Promise<{ rows: SelectBinding[]; queried: SelectBinding[] }> {
      const file = path.join(dir, 'edited.nq');
      fs.writeFileSync(file, text);
      const { dataset, rows } = await loadSources([file], { baseIri: BASE });
      try {
        return { rows: [...rows], queried: sorted(dataset.store.institutions()) };
      } finally {
        dataset.free();
      }
    }

    /** The trailer's JSON as written. */
    const writtenIndex = () =>
      JSON.parse(indexLine.slice('# index '.length)) as {
        sha256: string;
        triples: number;
        institutions: number;
        withdrawn: number;
        query: string;
        rows: SelectBinding[];
      };

    /** The trailer as written, with `rows` for `before`, hashed as `writeSnapshot` hashes it. */
    const lineFor = (before: string, rows: unknown[], query = writtenIndex().query) =>
      `# index ${JSON.stringify({ ...writtenIndex(), sha256: crypto.createHash('sha256').update(before).digest('hex'), query, rows })}\n`;

    it('counts the triples and the live and withdrawn institutions, and indexes every one, in a piece of its own', async () => {
      assert.match(indexLine, /^# index \{.*\}\n$/);
      assert.ok(quads.endsWith('\n# chunk\n'));
      const { triples, institutions, withdrawn } = writtenIndex();
      const loaded = await loadSources([path.join(dir, 'dataset.nq')], { baseIri: BASE });
      try {
        assert.deepEqual(
          { triples, institutions, withdrawn },
          {
            triples: loaded.report.triples,
            institutions: loaded.report.institutions,
            withdrawn: loaded.report.withdrawn,
          },
        );
        assert.ok(withdrawn > 0 && institutions >= 120, `${institutions}, ${withdrawn}`);
      } finally {
        loaded.dataset.free();
      }
      const { rows, queried } = await load(quads + indexLine);
      assert.ok(rows.length > 120, `${rows.length} rows`);
      assert.ok(rows.some((row) => row.deprecated !== undefined));
      assert.deepEqual(rows, written);
      assert.deepEqual(rows, queried);
    });

    /** The written rows with the first institution renamed. */
    const renamed = () =>
      writtenIndex().rows.map((row, n) =>
        n === 0
          ? { ...row, name: { type: 'literal' as const, value: 'Renamed in the index' } }
          : row,
      );

    it('is taken as it is when its hash matches the bytes before it', async () => {
      const loaded = await load(quads + lineFor(quads, renamed()));
      assert.equal(loaded.rows[0]!.name!.value, 'Renamed in the index');
      assert.notEqual(loaded.queried[0]!.name!.value, 'Renamed in the index');
    });

    it('its rows are ignored when they were read with another index query (institutions.rq changed since)', async () => {
      const { rows, queried } = await load(quads + lineFor(quads, renamed(), 'another query'));
      assert.deepEqual(rows, queried);
      assert.ok(!rows.some((row) => row.name?.value === 'Renamed in the index'));
    });

    it('its rows are ignored when a row is not a row of the query', async () => {
      const rows = renamed();
      for (const odd of [{ institution: null }, { institution: { type: 'uri' } }, 'row', null]) {
        const loaded = await load(quads + lineFor(quads, [...rows, odd]));
        assert.deepEqual(loaded.rows, loaded.queried, JSON.stringify(odd));
      }
    });

    it('refuses the snapshot when the bytes before it were edited', async () => {
      const name = /^(<[^>]+> <http:\/\/xmlns\.com\/foaf\/0\.1\/name> ")([^"]+)(")/m.exec(quads)!;
      const edited = quads.replace(name[0], `${name[1]}Edited by hand${name[3]}`);
      await refused(
        edited + indexLine,
        /edited\.nq: the snapshot does not match its trailer: its bytes before the trailer have the sha256 [0-9a-f]{16}…, the trailer says [0-9a-f]{16}…/,
      );
    });

    it('refuses the snapshot when lines were appended after it', async () => {
      const graph = `<${BASE}/data/organisations/DE-Appended>`;
      const appended =
        `<${ORG}/DE-Appended> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Organization> ${graph} .\n` +
        `<${ORG}/DE-Appended> <http://xmlns.com/foaf/0.1/name> "Appended" ${graph} .\n`;
      const line = quads.split('\n').length;
      await refused(
        quads + indexLine + appended,
        new RegExp(
          `the snapshot is not as written: 2 lines follow its trailer \\(line ${line.toLocaleString('en')}\\), which must be its last line`,
        ),
      );
      await refused(quads + indexLine + '# a comment\n', /a line follows its trailer/);
    });

    it('holds no rows, only its counts, when an institution is a blank node (its label changes on every load)', async () => {
      const source = path.join(dir, 'blank.ttl');
      fs.writeFileSync(
        source,
        `${fs.readFileSync(WITHDRAWN_TTL, 'utf8')}\n[] a <http://xmlns.com/foaf/0.1/Organization> .\n`,
      );
      const loaded = await loadSources([source], { baseIri: BASE });
      const target = path.join(dir, 'blank.nq');
      try {
        assert.ok(loaded.rows.some((row) => row.institution!.type === 'bnode'));
        await writeSnapshot(loaded, target);
      } finally {
        loaded.dataset.free();
      }
      const text = fs.readFileSync(target, 'utf8');
      const trailer = JSON.parse(text.slice(text.lastIndexOf('\n# index ') + 9)) as object;
      assert.deepEqual(Object.keys(trailer), [
        'sha256',
        'triples',
        'institutions',
        'withdrawn',
        'version',
        'rest',
        'states',
      ]);
      const { rows, queried } = await load(text);
      assert.deepEqual(rows, queried);
    });

    it('refuses the snapshot when it is cut short or not a JSON object', async () => {
      await refused(
        quads + indexLine.slice(0, 200),
        /the snapshot is incomplete: its trailer is cut off/,
      );
      await refused(
        `${quads}# index {"sha256": \n`,
        /the snapshot's trailer is malformed: not JSON/,
      );
      await refused(
        `${quads}# index []\n`,
        /the snapshot's trailer is malformed: not a JSON object/,
      );
    });

    it('refuses the snapshot when a count is missing (an index line of an older loader)', async () => {
      const { sha256, query, rows } = writtenIndex();
      await refused(
        `${quads}# index ${JSON.stringify({ sha256, query, rows })}\n`,
        /the snapshot's trailer is malformed: it has no count of triples \(an older loader's\?\)/,
      );
    });
  });
});
