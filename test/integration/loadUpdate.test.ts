// `npm run load -- --update`: a day's changes (created, updated, withdrawn, deleted) applied over
// a version give the snapshot, the version and the events a full load of the merged sources
// gives, byte for byte; an update over a version no longer current, or over a snapshot that is
// not as written, is refused with nothing written.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { commitVersion } from '../../src/load/commit/commitVersion';
import { loadSources } from '../../src/load/loadSources';
import { prepareUpdate } from '../../src/update/applyUpdate';
import { commitUpdate } from '../../src/update/commitUpdate';
import { readLog } from '../../src/history/log';
import { PROJECT_ROOT } from '../../src/util/paths';
import { tempDir } from '../support';
import { updateSet } from '../support/updateSet';

const BASE = 'https://ld.example.org';
/** Above the canonical reading's thread (2,000 descriptions): the base is read there. */
const COUNT = 2400;
const FIRST = new Date('2026-11-30T10:00:00Z');
const SECOND = new Date('2026-12-01T10:00:00Z');

type Target = { dataset: string; baseIri: string; historyDir: string; historyKeepVersions: number };
const targetIn = (dir: string): Target => ({
  dataset: path.join(dir, 'dataset.nq'),
  baseIri: BASE,
  historyDir: dir,
  historyKeepVersions: 0,
});

async function fullLoad(file: string, target: Target, now: Date) {
  const loaded = await loadSources([file], { baseIri: BASE, validate: true });
  try {
    return await commitVersion(loaded, target, { now });
  } finally {
    loaded.dataset.free();
  }
}

async function update(file: string, target: Target, now: Date) {
  const prepared = await prepareUpdate([file], target.dataset, { baseIri: BASE, validate: true });
  try {
    return await commitUpdate(prepared, target, { now });
  } finally {
    prepared.loaded.dataset.free();
  }
}

const copy = (from: string, to: string) => fs.cpSync(from, to, { recursive: true });

describe('load --update', function () {
  this.timeout(300_000);
  const set = updateSet(COUNT);
  let dir: string;
  let files: { base: string; update: string; merged: string };
  let full: Target;
  let updated: Target;
  let committed: Awaited<ReturnType<typeof update>>;

  before(async () => {
    dir = tempDir();
    files = {
      base: path.join(dir, 'base.pica'),
      update: path.join(dir, 'update.xml'),
      merged: path.join(dir, 'merged.pica'),
    };
    fs.writeFileSync(files.base, set.base);
    fs.writeFileSync(files.update, set.update);
    fs.writeFileSync(files.merged, set.merged);
    await fullLoad(files.base, targetIn(path.join(dir, 'base')), FIRST);
    // The same base, log and all, under both: the log's id is in the trailer.
    copy(path.join(dir, 'base'), path.join(dir, 'full'));
    copy(path.join(dir, 'base'), path.join(dir, 'updated'));
    full = targetIn(path.join(dir, 'full'));
    updated = targetIn(path.join(dir, 'updated'));
    await fullLoad(files.merged, full, SECOND);
    committed = await update(files.update, updated, SECOND);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes the snapshot a full load of the merged sources writes, byte for byte', () => {
    const a = fs.readFileSync(full.dataset);
    const b = fs.readFileSync(updated.dataset);
    assert.equal(b.length, a.length);
    assert.ok(a.equals(b), 'the snapshots differ');
  });

  it('logs the same version and events as that full load', () => {
    assert.equal(
      fs.readFileSync(path.join(updated.historyDir, 'history.jsonl'), 'utf8'),
      fs.readFileSync(path.join(full.historyDir, 'history.jsonl'), 'utf8'),
    );
  });

  it('logs each change by its kind', () => {
    const kinds = new Map<string, string[]>();
    for (const c of committed.changes ?? [])
      kinds.set(c.kind, [...(kinds.get(c.kind) ?? []), c.isil]);
    assert.deepEqual(kinds.get('updated')?.sort(), [...set.isils.updated].sort());
    assert.deepEqual(kinds.get('withdrawn')?.sort(), [...set.isils.withdrawn].sort());
    assert.deepEqual(kinds.get('deleted')?.sort(), [...set.isils.deleted].sort());
    // Generated records of status N are not published, those of status I come withdrawn.
    const created = kinds.get('created') ?? [];
    assert.ok(created.length > 20 && created.every((isil) => set.isils.created.includes(isil)));
  });

  it('refuses an update whose base is no longer the current version, writing nothing', async () => {
    const stale = targetIn(path.join(dir, 'stale'));
    copy(path.join(dir, 'base'), stale.historyDir);
    const prepared = await prepareUpdate([files.update], stale.dataset, { baseIri: BASE });
    try {
      await fullLoad(files.merged, stale, SECOND);
      const before = fs.readFileSync(stale.dataset);
      const log = readLog(path.join(stale.historyDir, 'history.jsonl'))!.versions.length;
      await assert.rejects(
        commitUpdate(prepared, stale, { now: new Date('2026-12-02T10:00:00Z') }),
        /the update was made over version [0-9a-f]{12}, but the current version is [0-9a-f]{12}: another load happened meanwhile/,
      );
      assert.ok(fs.readFileSync(stale.dataset).equals(before));
      assert.equal(readLog(path.join(stale.historyDir, 'history.jsonl'))!.versions.length, log);
      assert.deepEqual(
        fs.readdirSync(stale.historyDir).filter((f) => f.includes('.tmp-')),
        [],
      );
    } finally {
      prepared.loaded.dataset.free();
    }
  });

  it('refuses a base snapshot whose bytes changed since it was written', async () => {
    const broken = targetIn(path.join(dir, 'broken'));
    copy(path.join(dir, 'base'), broken.historyDir);
    const bytes = fs.readFileSync(broken.dataset);
    const at = bytes.indexOf('(synthetisch)');
    bytes.write('(Synthetisch)', at);
    fs.writeFileSync(broken.dataset, bytes);
    await assert.rejects(
      update(files.update, broken, SECOND),
      /the snapshot does not match its trailer: its bytes changed since it was written/,
    );
    assert.ok(fs.readFileSync(broken.dataset).equals(bytes));
  });

  it('is the command line of npm run load -- --update, which says what it applied', () => {
    const cli = targetIn(path.join(dir, 'cli'));
    copy(path.join(dir, 'base'), cli.historyDir);
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(PROJECT_ROOT, 'cli', 'loadCommand.ts'),
        '--update',
        '--quiet',
        files.update,
      ],
      {
        cwd: PROJECT_ROOT,
        env: { ...process.env, DATASET: cli.dataset, HISTORY_DIR: cli.historyDir, BASE_IRI: BASE },
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /update over version [0-9a-f]{12}: .*10 deletions/);
    assert.match(
      run.stdout,
      /change log: version at .*, \d+ created, 50 updated, 10 withdrawn, 10 deleted/,
    );
    const again = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(PROJECT_ROOT, 'cli', 'loadCommand.ts'),
        '--update',
        '--quiet',
        files.update,
      ],
      {
        cwd: PROJECT_ROOT,
        env: { ...process.env, DATASET: cli.dataset, HISTORY_DIR: cli.historyDir, BASE_IRI: BASE },
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /the change log ends with this version already/);
  });
});
