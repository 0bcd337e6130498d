// A snapshot goes live whole or not at all: its last line, its trailer, counts what was written,
// and a snapshot cut off, extended, edited, or made for another base is refused with a LoadError
// (what the server's reload and the loader command report) that says what differs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { generate } from '../../cli/generate';
import { LoadError, loadSources, snapshotHeader, writeSnapshot } from '../../src/load/loadSources';
import { PROJECT_ROOT } from '../../src/util/paths';
import { BASE, FIXTURES, parseTurtle, sameGraph, tempDir } from '../support';

const WITHDRAWN_TTL = path.join(FIXTURES, 'test', 'withdrawn.ttl');
const TYPE =
  '<http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Organization>';

describe('a snapshot is loaded whole, or not at all', () => {
  let dir: string;
  let snapshot: string;
  /** The snapshot's text, the bytes before its trailer, and its trailer's JSON. */
  let text: string;
  let quads: string;
  let trailer: Record<string, unknown>;
  let institutions: number;

  before(async () => {
    dir = tempDir();
    const source = path.join(dir, 'synthetic.nt');
    fs.writeFileSync(source, [...generate({ count: 150, seed: 21, base: BASE })].join(''));
    const loaded = await loadSources([source, WITHDRAWN_TTL], { baseIri: BASE });
    institutions = loaded.report.institutions;
    snapshot = path.join(dir, 'dataset.nq');
    await writeSnapshot(loaded, snapshot);
    loaded.dataset.free();
    text = fs.readFileSync(snapshot, 'utf8');
    const at = text.lastIndexOf('\n# index ') + 1;
    quads = text.slice(0, at);
    trailer = JSON.parse(text.slice(at + '# index '.length)) as Record<string, unknown>;
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Loads `content` as a snapshot file; resolves to the LoadError's message, or fails. */
  async function refusal(content: string | Buffer): Promise<string> {
    const file = path.join(dir, 'edited.nq');
    fs.writeFileSync(file, content);
    try {
      const loaded = await loadSources([file], { baseIri: BASE });
      loaded.dataset.free();
    } catch (error) {
      assert.ok(error instanceof LoadError, String(error));
      assert.equal(error.file, file);
      return error.message;
    }
    assert.fail('the snapshot was loaded');
  }

  /** The trailer line with `changes`. */
  const trailerWith = (changes: Record<string, unknown>) =>
    `# index ${JSON.stringify({ ...trailer, ...changes })}\n`;

  /** Institutions typed in `part` (the lines a snapshot cut off after it holds). */
  const typedIn = (part: string) =>
    part.split('\n').filter((line) => line.includes(TYPE) && line.startsWith(`<${BASE}/`)).length;

  it('ends with a trailer that counts its triples, live and withdrawn institutions', () => {
    assert.equal(trailer.institutions, institutions);
    assert.ok((trailer.withdrawn as number) > 0);
    assert.ok((trailer.triples as number) > 1000);
    assert.match(trailer.sha256 as string, /^[0-9a-f]{64}$/);
  });

  it('as written, loads', async () => {
    const loaded = await loadSources([snapshot], { baseIri: BASE });
    try {
      assert.equal(loaded.report.institutions, institutions);
      assert.equal(loaded.report.triples, trailer.triples);
    } finally {
      loaded.dataset.free();
    }
  });

  it('cut off at a line boundary: refused, its trailer missing', async () => {
    const lines = quads.split('\n');
    const kept = `${lines.slice(0, Math.floor(lines.length / 8)).join('\n')}\n`;
    const message = await refusal(kept);
    assert.match(
      message,
      new RegExp(
        `edited\\.nq: the snapshot is incomplete: its trailer is missing \\(cut off after ${typedIn(kept)} institutions\\?\\)$`,
      ),
    );
    assert.ok(typedIn(kept) > 10 && typedIn(kept) < institutions);
  });

  it('cut off in the middle of a line: refused, its trailer missing', async () => {
    const cut = Buffer.from(text).subarray(0, Math.floor(quads.length / 3) + 7);
    assert.notEqual(cut.at(-1), 0x0a);
    assert.match(
      await refusal(cut),
      /the snapshot is incomplete: its trailer is missing \(cut off after \d+ institutions\?\)$/,
    );
  });

  it('cut off inside its trailer: refused', async () => {
    assert.match(
      await refusal(text.slice(0, text.length - 40)),
      /the snapshot is incomplete: its trailer is cut off/,
    );
  });

  it('with a line taken out of its middle (the trailer whole): refused, its sha256 differs', async () => {
    const lines = quads.split('\n');
    lines.splice(Math.floor(lines.length / 2), 1);
    assert.match(
      await refusal(lines.join('\n') + trailerWith({})),
      /the snapshot does not match its trailer: its bytes before the trailer have the sha256 [0-9a-f]{16}…, the trailer says [0-9a-f]{16}…/,
    );
  });

  const disagreeing: [string, Record<string, unknown>, (t: Record<string, unknown>) => RegExp][] = [
    [
      'triples',
      { triples: 1 },
      (t) =>
        new RegExp(
          `does not match its trailer: the trailer says 1 triples, ${(t.triples as number).toLocaleString('en')} were read$`,
        ),
    ],
    [
      'institutions',
      { institutions: 18_672 },
      (t) =>
        new RegExp(
          `does not match its trailer: the trailer says 18,672 institutions, ${t.institutions as number} were read$`,
        ),
    ],
    [
      'withdrawn institutions',
      { withdrawn: 0 },
      (t) =>
        new RegExp(
          `does not match its trailer: the trailer says 0 withdrawn institutions, ${t.withdrawn as number} were read$`,
        ),
    ],
  ];
  for (const [what, changes, message] of disagreeing) {
    it(`whose trailer counts other ${what} than were read: refused, with both counts`, async () => {
      assert.match(await refusal(quads + trailerWith(changes)), message(trailer));
    });
  }

  it('whose rows are stale or odd but whose counts hold: loaded, the store queried for the index', async () => {
    for (const changes of [{ query: 'another query' }, { rows: [{ institution: 'odd' }] }]) {
      const file = path.join(dir, 'stale.nq');
      fs.writeFileSync(file, quads + trailerWith(changes));
      const loaded = await loadSources([file], { baseIri: BASE });
      try {
        assert.equal(loaded.report.institutions, institutions);
      } finally {
        loaded.dataset.free();
      }
    }
  });

  it('whose institutions, queried when its rows are stale, are not those counted: refused', async () => {
    assert.match(
      await refusal(quads + trailerWith({ query: 'another query', institutions: 3 })),
      /the trailer says 3 institutions, \d+ were read$/,
    );
  });

  it('made for another BASE_IRI: refused, naming both', async () => {
    const other = snapshotHeader('https://example.org') + text.slice(snapshotHeader(BASE).length);
    assert.match(
      await refusal(other),
      /edited\.nq: a snapshot made for BASE_IRI https:\/\/example\.org, this service's is https:\/\/ld\.zdb-services\.de$/,
    );
  });

  it('without its header is plain N-Quads: loaded as any source, the same graph', async () => {
    const file = path.join(dir, 'plain.nq');
    fs.writeFileSync(file, quads.slice(snapshotHeader(BASE).length));
    const loaded = await loadSources([file], { baseIri: BASE });
    try {
      assert.equal(loaded.report.institutions, institutions);
      assert.equal(loaded.report.triples, trailer.triples);
      assert.ok(
        sameGraph(
          parseTurtle(loaded.dataset.store.dump(), 'application/n-quads'),
          parseTurtle(quads, 'application/n-quads'),
        ),
      );
    } finally {
      loaded.dataset.free();
    }
  });

  it('the loader command refuses a cut snapshot in one line and leaves its own as it was', () => {
    const cut = path.join(dir, 'cut.nq');
    fs.writeFileSync(cut, quads.slice(0, Math.floor(quads.length / 2)));
    const target = path.join(dir, 'out', 'dataset.nq');
    fs.mkdirSync(path.dirname(target));
    fs.copyFileSync(snapshot, target);
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli', 'loadCommand.ts'), cut],
      {
        cwd: PROJECT_ROOT,
        env: { ...process.env, DATASET: target, LOG_LEVEL: 'silent' },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    assert.equal(run.status, 1, run.stdout);
    assert.match(
      run.stderr,
      /^load failed, snapshot unchanged: .*cut\.nq: the snapshot is incomplete: its trailer is missing \(cut off after \d+ institutions\?\)\n$/,
    );
    assert.deepEqual(fs.readFileSync(target), fs.readFileSync(snapshot));
    assert.deepEqual(fs.readdirSync(path.dirname(target)), ['dataset.nq']);
  });
});
