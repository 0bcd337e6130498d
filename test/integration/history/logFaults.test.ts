// The change log under faults (docs/history.md): a loader killed between its rename and its commit
// line, a HISTORY_DIR that cannot be written, a full disk, and damaged or foreign logs. Nothing
// served as immutable changes, no event is lost, no damaged log is served. The faults are real: a
// SIGKILLed loader, a tmpfs filled up or remounted read-only (tests run as root).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { embeddedHistory } from '../../../src/store/embedded/embeddedHistory';
import { committed, fileHistory, HistoryError, LOG_FILE, readLog } from '../../../src/history/log';
import { LogWriter } from '../../../src/history/logWriter';
import { isMemento, timestamp14 } from '../../../src/history/model';
import { generate } from '../../../src/generate/generated';
import { LoadError } from '../../../src/load/loadError';
import { loadSources } from '../../../src/load/loadSources';
import {
  commitVersion,
  LiveVersionError,
  snapshotPointer,
  type CommitStep,
} from '../../../src/load/commit/commitVersion';
import { PROJECT_ROOT } from '../../../src/util/paths';
import { createLogger } from '../../../src/util/logger';
import { inProcessStore } from '../../../src/store/embedded/inProcessStore';
import { Reloader } from '../../../src/process/reloader';
import { Service } from '../../../src/documents/service';
import { tempDir, testConfig } from '../../support';
import { HISTORY_BASE as BASE, historyApp, isilOf } from '../../support/history';
import { skipWithout } from '../../support/missing';

const v1 = [...generate({ count: 50, seed: 7, base: BASE })];
// v2: the third institution renamed, the fifth gone, a new one.
const v2 = v1
  .map((b, i) => (i === 2 ? b.replace('(synthetisch)"', '(synthetisch) (renamed)"') : b))
  .filter((_, i) => i !== 4)
  .concat([...generate({ count: 51, seed: 7, base: BASE })].slice(50));
// v3: fifty institutions more, more than a filled disk's last page holds.
const v3 = [...generate({ count: 100, seed: 7, base: BASE })];

interface Target {
  readonly dataset: string;
  readonly baseIri: string;
  readonly historyDir: string;
  readonly historyKeepVersions: number;
}

function targetIn(dir: string, historyDir = path.join(dir, 'history')): Target {
  return {
    dataset: path.join(dir, 'dataset.nq'),
    baseIri: BASE,
    historyDir,
    historyKeepVersions: 0,
  };
}

async function commit(target: Target, blocks: readonly string[], at?: (step: CommitStep) => void) {
  const source = path.join(path.dirname(target.dataset), `v${blocks.length}-${Date.now()}.nt`);
  fs.writeFileSync(source, blocks.join(''));
  const loaded = await loadSources([source], { baseIri: BASE });
  try {
    return await commitVersion(loaded, target, { at });
  } finally {
    loaded.dataset.free();
  }
}

/** `npm run load` of `blocks` into `target`, killed at `crash` when given. */
function loader(target: Target, blocks: readonly string[], crash?: CommitStep) {
  const source = path.join(path.dirname(target.dataset), `load-${Date.now()}.nt`);
  fs.writeFileSync(source, blocks.join(''));
  return spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(PROJECT_ROOT, 'cli', 'loadCommand.ts'),
      '--quiet',
      '--skip-validation',
      source,
    ],
    {
      env: {
        ...process.env,
        BASE_IRI: BASE,
        DATASET: target.dataset,
        HISTORY_DIR: target.historyDir,
        HISTORY_KEEP_VERSIONS: '0',
        ...(crash ? { ISIL_LD_CRASH_AT: crash } : {}),
      },
      encoding: 'utf8',
    },
  );
}

/** The history a server starting on `target` serves (or the LoadError it refuses to start with). */
async function served(target: Target) {
  const loaded = await loadSources([target.dataset], { baseIri: BASE });
  try {
    return await embeddedHistory(
      target,
      { sources: [target.dataset], options: { baseIri: BASE }, snapshot: true },
      loaded.dataset,
    );
  } finally {
    loaded.dataset.free();
  }
}

const logFile = (target: Target) => path.join(target.historyDir, LOG_FILE);

/** A tmpfs of `size` mounted at `dir`, as root can; CI=true fails where it cannot. */
function mountTmpfs(this: Mocha.Context, dir: string, size: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const run = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  if (run.status === 0) return;
  skipWithout(this, 'the right to mount a tmpfs', run.stderr.toString());
}

function remount(dir: string, mode: 'ro' | 'rw'): void {
  const run = spawnSync('mount', ['-o', `remount,${mode}`, dir]);
  assert.equal(run.status, 0, run.stderr.toString());
}

function unmount(dir: string): void {
  spawnSync('umount', [dir]);
}

describe('the change log under faults', function () {
  this.timeout(180_000);
  let dir: string;
  let target: Target;
  beforeEach(() => {
    dir = tempDir();
    target = targetIn(dir);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('a loader killed between its rename and its commit line', () => {
    it('the start marks its version committed; a rollback after it keeps its events and pages', async () => {
      const first = await commit(target, v1);
      const old = fs.readFileSync(target.dataset);
      const run = loader(target, v2, 'after-rename');
      assert.equal(run.signal, 'SIGKILL', run.stderr);
      const live = snapshotPointer(target.dataset, BASE)!;
      assert.notEqual(live.version, first.version);
      assert.equal(readLog(logFile(target))!.versions.at(-1)!.committed, false);
      const started = await served(target);
      started.close();
      assert.equal(readLog(logFile(target))!.versions.at(-1)!.committed, true, 'completed');
      // The rollback: the older snapshot put back, served after a reload.
      fs.writeFileSync(target.dataset, old);
      const { app, dataset } = await historyApp({
        dir,
        dataset: target.dataset,
        historyDir: target.historyDir,
        committed: [],
        sources: [],
      });
      try {
        const { history } = dataset;
        assert.deepEqual(
          history.versions.map((v) => v.version),
          [first.version, live.version, first.version],
        );
        const killed = history.versions[1]!;
        const renamed = isilOf(v1[2]!);
        const events = history.events(renamed);
        assert.equal(events.filter((e) => e.version === killed.version).length, 1);
        await request(app)
          .get(`/memento/${timestamp14(killed.time)}/data/organisations/${renamed}.nt`)
          .expect(200);
        await request(app)
          .get(`/feed/${timestamp14(killed.time)}/1`)
          .expect(200);
      } finally {
        dataset.free();
      }
    });

    it('the next load marks it committed and goes on after it', async () => {
      await commit(target, v1);
      assert.equal(loader(target, v2, 'after-rename').signal, 'SIGKILL');
      const killed = snapshotPointer(target.dataset, BASE)!;
      const next = await commit(target, v3);
      const log = readLog(logFile(target))!;
      assert.deepEqual(
        log.versions.map((v) => [v.version, v.committed]),
        [
          [log.versions[0]!.version, true],
          [killed.version, true],
          [next.version, true],
        ],
      );
      assert.equal(log.versions[1]!.events.length, 3);
    });

    it('a tail cut off is written beside the log and renamed over it: its reader reads on', async () => {
      await commit(target, v1);
      const old = fs.readFileSync(target.dataset);
      assert.equal(loader(target, v2, 'after-rename').signal, 'SIGKILL');
      // A server serving the killed loader's version before its commit line was written.
      const pointer = snapshotPointer(target.dataset, BASE)!;
      const history = fileHistory(committed(readLog(logFile(target))!, pointer), BASE);
      try {
        const event =
          history.versions.length === 2 ? history.events(isilOf(v1[2]!)).at(-1)! : undefined;
        assert.ok(event && isMemento(event) && event.version === pointer.version);
        const before = await history.description(event);
        // The older snapshot put back before anything committed it: the next writer cuts the tail.
        fs.writeFileSync(target.dataset, old);
        const writer = new LogWriter(target.historyDir, BASE);
        writer.acquire();
        try {
          writer.prepare(snapshotPointer(target.dataset, BASE));
        } finally {
          writer.release();
        }
        assert.equal(readLog(logFile(target))!.versions.length, 1);
        assert.equal(await history.description(event), before);
      } finally {
        history.close();
      }
    });
  });

  describe('a HISTORY_DIR on a file system of its own', () => {
    let mount: string;
    beforeEach(function () {
      mount = path.join(dir, 'history');
      mountTmpfs.call(this, mount, '1m');
      target = targetIn(dir, mount);
    });
    afterEach(() => unmount(mount));

    it('a rollback into a read-only HISTORY_DIR is refused, saying why, and changes nothing', async () => {
      await commit(target, v1);
      const old = fs.readFileSync(target.dataset);
      await commit(target, v2);
      fs.writeFileSync(target.dataset, old);
      const log = fs.readFileSync(logFile(target));
      remount(mount, 'ro');
      await assert.rejects(served(target), (error: Error) => {
        assert.ok(error instanceof LoadError, String(error));
        assert.match(error.message, /read-only file system.*must be logged before it is served/);
        return true;
      });
      assert.deepEqual(fs.readFileSync(logFile(target)), log);
      remount(mount, 'rw');
      const history = await served(target);
      assert.equal(history.versions.length, 3);
      history.close();
    });

    it('a full disk: the loader says the snapshot is unchanged when it is, and the next load repairs', async function () {
      const first = await commit(target, v1);
      const filler = path.join(mount, 'filler');
      fillUp(filler);
      const run = loader(target, v3);
      assert.equal(run.status, 1, run.stderr);
      assert.match(run.stderr, /load failed, snapshot unchanged: .*ENOSPC/);
      assert.equal(snapshotPointer(target.dataset, BASE)!.version, first.version);
      const history = await served(target);
      assert.equal(history.versions.length, 1);
      history.close();
      fs.rmSync(filler);
      const next = await commit(target, v3);
      const log = readLog(logFile(target))!;
      assert.deepEqual(
        log.versions.map((v) => [v.version, v.committed, v.events.length]),
        [
          [first.version, true, 50],
          [next.version, true, 50],
        ],
      );
    });

    it('a commit line that cannot be written: the load says its version is live; the start completes it', async () => {
      await commit(target, v1);
      await assert.rejects(
        commit(target, v2, (step) => {
          if (step === 'after-rename') remount(mount, 'ro');
        }),
        (error: Error) => {
          assert.ok(error instanceof LiveVersionError, String(error));
          assert.match(error.message, /is live .*commit line could not be written.*read-only/);
          return true;
        },
      );
      const live = snapshotPointer(target.dataset, BASE)!;
      // A torn line after it, as a short write leaves.
      remount(mount, 'rw');
      fs.appendFileSync(logFile(target), '{"commit":"');
      // The loader gone, its lock left: it names a process no longer running.
      fs.writeFileSync(path.join(mount, 'history.lock'), '999999999\n');
      const history = await served(target);
      assert.equal(history.versions.at(-1)!.version, live.version);
      history.close();
      const log = readLog(logFile(target))!;
      assert.equal(log.versions.at(-1)!.committed, true);
      assert.ok(fs.readFileSync(logFile(target)).at(-1) === 0x0a, 'the torn line is gone');
    });
  });

  describe('a damaged or foreign log', () => {
    let lines: string[];
    beforeEach(async () => {
      await commit(target, v1);
      await commit(target, v2);
      lines = fs.readFileSync(logFile(target), 'utf8').split('\n').slice(0, -1);
    });
    const firstVersionLine = () => lines.findIndex((l) => l.startsWith('{"version":'));
    // The second version's line, before its commit line, the last.
    const lastVersionLine = () => lines.length - 2;

    /** The log replaced by `damaged`: refused at start and at load, naming `why`; nothing written. */
    async function refused(damaged: readonly string[], why: RegExp) {
      fs.writeFileSync(logFile(target), `${damaged.join('\n')}\n`);
      const bytes = fs.readFileSync(logFile(target));
      await assert.rejects(served(target), (error: Error) => {
        assert.ok(error instanceof LoadError, String(error));
        assert.match(error.message, why);
        assert.equal(error.message.split(LOG_FILE).length, 2, 'the file named once');
        return true;
      });
      await assert.rejects(commit(target, v3), (error: Error) => {
        assert.ok(error instanceof HistoryError, String(error));
        assert.match(error.message, why);
        return true;
      });
      assert.deepEqual(fs.readFileSync(logFile(target)), bytes);
    }

    it('a reload keeps the version served, and its history', async () => {
      const config = testConfig({
        BASE_IRI: BASE,
        DATASET: target.dataset,
        HISTORY_DIR: target.historyDir,
      });
      const service = new Service(config);
      const reloader = new Reloader(
        service,
        createLogger('silent'),
        inProcessStore,
        undefined,
        (load, dataset) => embeddedHistory(config, load, dataset),
      );
      try {
        await reloader.start();
        const before = service.current!.dataset;
        fs.writeFileSync(logFile(target), `${[...lines, lines.at(-2)!].join('\n')}\n`);
        await reloader.reload();
        assert.equal(service.lastReload?.outcome, 'refused');
        assert.equal(service.current!.dataset, before);
        assert.equal(before.history.versions.length, 2);
      } finally {
        service.close();
      }
    });

    it("another dataset's log", async () => {
      const other = targetIn(path.join(dir, 'other'));
      fs.mkdirSync(path.dirname(other.dataset));
      await commit(other, v1.slice(10));
      await refused(
        fs.readFileSync(logFile(other), 'utf8').split('\n').slice(0, -1),
        /another dataset's/,
      );
    });

    it('a log cut inside its first version', async () => {
      await refused(lines.slice(0, 10), /holds no committed version: it was cut/);
    });

    it('lines reordered: the second version before the first', async () => {
      const second = lines.slice(firstVersionLine() + 2);
      const reordered = [lines[0]!, ...second, ...lines.slice(1, firstVersionLine() + 2)];
      await refused(reordered, /line \d+ is version [0-9a-f]+ at \d+, not after/);
    });

    it('a version line moved above its events', async () => {
      const at = lastVersionLine();
      const moved = [
        ...lines.slice(0, firstVersionLine() + 2),
        lines[at]!,
        ...lines.slice(firstVersionLine() + 2, at),
        ...lines.slice(at + 1),
      ];
      await refused(
        moved,
        new RegExp(`line ${firstVersionLine() + 3} says 3 events, and 0 precede it`),
      );
    });

    it('a line duplicated', async () => {
      const twice = [...lines.slice(0, 3), lines[2]!, ...lines.slice(3)];
      await refused(twice, /line 4 is a second event of/);
    });

    it('an event time out of range', async () => {
      const at = lastVersionLine() - 1;
      const damaged = lines.map((l, i) =>
        i === at ? l.replace(/"t":\d+/, '"t":10000000000000') : l,
      );
      await refused(damaged, new RegExp(`line ${at + 1} is not an event: its time 10000000000000`));
    });

    it('an ISIL that is none', async () => {
      const at = lastVersionLine() - 1;
      const damaged = lines.map((l, i) =>
        i === at ? l.replace(/"isil":"[^"]+"/, '"isil":"DE-1>x"') : l,
      );
      await refused(damaged, new RegExp(`line ${at + 1} is not an event: "DE-1>x" is not an ISIL`));
    });

    it('a commit line that follows no version', async () => {
      await refused(
        [...lines, lines.at(-1)!],
        /is a commit line that does not follow the version it names/,
      );
    });
  });
});

/** Fills the file system of `file` up: a write more fails with ENOSPC. */
function fillUp(file: string): void {
  const fd = fs.openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    fs.closeSync(fd);
  }
}
