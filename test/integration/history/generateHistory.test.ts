// The generated history (cli/generateHistory.ts) against the loader: the versions the generator
// writes directly are the versions `npm run load` writes loading the same sources one after
// another, event for event, and the generator writes the same bytes for the same seed.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { generateHistory, sourceFile, type WrittenHistory } from '../../../cli/generateHistory';
import { LOG_FILE, readLog, type LogContents } from '../../../src/history/log';
import { readTrailer } from '../../../src/load/snapshot/snapshot';
import { PROJECT_ROOT } from '../../../src/util/paths';
import { tempDir } from '../../support';

const BASE = 'https://ld.example.org';
const VERSIONS = 3;
/** 200 institutions, a tenth changed a version: every kind of event in the two later versions. */
const OPTIONS = { count: 200, seed: 3, base: BASE, versions: VERSIONS, change: 0.1 };

/** Each version's events as `kind ISIL hash successors` lines, in the log's order. */
function eventsOf(log: LogContents): string[][] {
  return log.versions.map((v) =>
    v.events.map((e) => `${e.kind} ${e.isil} ${e.hash ?? ''} ${(e.successors ?? []).join(',')}`),
  );
}

function trailerOf(file: string) {
  const fd = fs.openSync(file, 'r');
  try {
    return readTrailer(file, fd, BASE);
  } finally {
    fs.closeSync(fd);
  }
}

/** `npm run load` of `source` into `dir` (its snapshot and its log), as an operator runs it. */
function load(source: string, dir: string): string {
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli', 'loadCommand.ts'), '--quiet', source],
    {
      env: {
        ...process.env,
        BASE_IRI: BASE,
        DATASET: path.join(dir, 'dataset.nq'),
        HISTORY_DIR: dir,
      },
      encoding: 'utf8',
    },
  );
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

describe('the generated history against the loader', function () {
  this.timeout(180_000);
  let dir: string;
  let written: WrittenHistory;
  let generated: LogContents;
  let loaded: LogContents;
  before(() => {
    dir = tempDir();
    written = generateHistory({
      ...OPTIONS,
      snapshot: path.join(dir, 'generated', 'dataset.nq'),
      historyDir: path.join(dir, 'generated'),
      sourcesDir: path.join(dir, 'sources'),
    });
    generated = readLog(path.join(dir, 'generated', LOG_FILE))!;
    for (let n = 1; n <= VERSIONS; n++)
      load(sourceFile(path.join(dir, 'sources'), n), path.join(dir, 'loaded'));
    loaded = readLog(path.join(dir, 'loaded', LOG_FILE))!;
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes the versions asked for, each committed', () => {
    assert.equal(generated.versions.length, VERSIONS);
    assert.ok(generated.versions.every((v) => v.committed));
  });

  it('makes every kind of event after the first version', () => {
    const kinds = new Set(generated.versions.slice(1).flatMap((v) => v.events.map((e) => e.kind)));
    assert.deepEqual([...kinds].sort(), ['created', 'deleted', 'updated', 'withdrawn']);
  });

  it('gives its versions increasing times', () => {
    const times = generated.versions.map((v) => v.time);
    assert.ok(times.every((t, i) => i === 0 || t > times[i - 1]!));
  });

  it("has the loader's events, version for version (kinds, ISILs, hashes, successors)", () =>
    assert.deepEqual(eventsOf(generated), eventsOf(loaded)));

  it("counts each version's institutions and withdrawn ISILs as the loader does", () =>
    assert.deepEqual(
      generated.versions.map((v) => [v.institutions, v.withdrawn]),
      loaded.versions.map((v) => [v.institutions, v.withdrawn]),
    ));

  it("names the loader's versions", () =>
    assert.deepEqual(
      generated.versions.map((v) => v.version),
      loaded.versions.map((v) => v.version),
    ));

  it("writes a last snapshot of the loader's version, naming the log's last version", () => {
    const ours = trailerOf(path.join(dir, 'generated', 'dataset.nq'));
    const theirs = trailerOf(path.join(dir, 'loaded', 'dataset.nq'));
    assert.equal(ours.history?.version, written.last.version);
    assert.equal(ours.history?.version, theirs.history?.version);
    assert.equal(ours.institutions, theirs.institutions);
    assert.equal(ours.withdrawn, theirs.withdrawn);
  });

  it('writes the same bytes for the same seed', () => {
    const again = path.join(dir, 'again');
    generateHistory({ ...OPTIONS, snapshot: path.join(again, 'dataset.nq'), historyDir: again });
    for (const file of [LOG_FILE, 'dataset.nq'])
      assert.ok(
        fs
          .readFileSync(path.join(again, file))
          .equals(fs.readFileSync(path.join(dir, 'generated', file))),
        file,
      );
  });

  it('refuses a folder that holds a change log already', () =>
    assert.throws(
      () =>
        generateHistory({
          ...OPTIONS,
          snapshot: path.join(dir, 'other.nq'),
          historyDir: path.join(dir, 'generated'),
        }),
      /holds a change log already/,
    ));
});

describe('npm run generate -- --history', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = tempDir()));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const generateCommand = (args: readonly string[], env: Record<string, string> = {}) =>
    spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli', 'generate.ts'), '--quiet', ...args],
      { env: { ...process.env, ...env }, encoding: 'utf8' },
    );

  it('writes the log beside the snapshot and says what it wrote', () => {
    const run = generateCommand(['--history', '4', '--change', '0.2', '--count', '30'], {
      DATASET: path.join(dir, 'dataset.nq'),
      HISTORY_DIR: '',
    });
    assert.equal(run.status, 2, 'HISTORY_DIR empty: no log to write');
    const written = generateCommand(['--history', '4', '--change', '0.2', '--count', '30'], {
      DATASET: path.join(dir, 'dataset.nq'),
    });
    assert.equal(written.status, 0, written.stderr);
    assert.match(written.stderr, /a history of 4 versions, seed 1, in [\d.]+ s: \d+ events \(/);
    const log = readLog(path.join(dir, LOG_FILE))!;
    assert.equal(log.versions.length, 4);
    assert.equal(
      trailerOf(path.join(dir, 'dataset.nq')).history?.version,
      log.versions[3]!.version,
    );
  });

  it('changes something in every version when few institutions and a high share leave none live', () => {
    const out = path.join(dir, 'few');
    const run = generateCommand(
      ['--history', '50', '--count', '3', '--change', '1', '--seed', '2'],
      { DATASET: path.join(out, 'dataset.nq') },
    );
    assert.equal(run.status, 0, run.stderr);
    const log = readLog(path.join(out, LOG_FILE))!;
    assert.equal(log.versions.length, 50);
    assert.ok(log.versions.every((v) => v.committed && v.events.length > 0));
    assert.equal(new Set(log.versions.map((v) => v.version)).size, 50);
    assert.equal(
      trailerOf(path.join(out, 'dataset.nq')).history?.version,
      log.versions[49]!.version,
    );
  });

  it('leaves no log when it fails before its end (the snapshot cannot be written)', () => {
    const out = path.join(dir, 'failing');
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, 'file'), '');
    const run = generateCommand([
      '--history',
      '3',
      '--count',
      '20',
      '--out',
      path.join(out, 'file', 'dataset.nq'),
      '--history-dir',
      out,
    ]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^generate failed: /m);
    assert.deepEqual(fs.readdirSync(out), ['file']);
  });

  it('leaves no log, nor a snapshot, when it is killed half-way', async () => {
    const out = path.join(dir, 'killed');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli', 'generate.ts'), '--quiet'].concat(
        ['--history', '400', '--count', '2000', '--change', '0.05'],
        ['--out', path.join(out, 'dataset.nq')],
      ),
      { stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Killed once its log holds versions, wherever it writes it.
    const written = () =>
      fs.existsSync(out) &&
      fs
        .readdirSync(out, { recursive: true, withFileTypes: true })
        .some(
          (f) =>
            f.isFile() &&
            f.name === LOG_FILE &&
            fs.statSync(path.join(f.parentPath, f.name)).size > 100_000,
        );
    for (let waited = 0; !written() && waited < 50_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(written(), 'the generator wrote no log in time');
    child.kill('SIGKILL');
    await exited;
    assert.equal(fs.existsSync(path.join(out, LOG_FILE)), false);
    assert.equal(fs.existsSync(path.join(out, 'dataset.nq')), false);
  });

  it('refuses a share outside 0 to 1', () => {
    const run = generateCommand([
      '--history',
      '2',
      '--change',
      '2',
      '--out',
      path.join(dir, 'x.nq'),
    ]);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /^--change/);
  });
});
