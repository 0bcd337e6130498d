// The change log of the embedded store (docs/history.md): written by the loader's commit step,
// read by the server, never losing an event to a killed writer, kept within its retention, and
// continued (never rewound) by a restored older snapshot.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generate } from '../../../src/generate/generated';
import { loadSources } from '../../../src/load/loadSources';
import {
  commitVersion,
  snapshotPointer,
  type CommitStep,
} from '../../../src/load/commit/commitVersion';
import { committed, fileHistory, LOG_FILE, readLog, statesAfter } from '../../../src/history/log';
import { embeddedHistory } from '../../../src/store/embedded/embeddedHistory';
import { StoreThread } from '../../../src/store/embedded/storeThread';
import type { History } from '../../../src/history/model';
import { PROJECT_ROOT } from '../../../src/util/paths';
import { inProcessStore } from '../../../src/store/embedded/inProcessStore';
import { createLogger } from '../../../src/util/logger';
import { Reloader } from '../../../src/process/reloader';
import { Service } from '../../../src/documents/service';
import { testConfig } from '../../support';
import { HISTORY_BASE, registryVersions, writeHistory } from '../../support/history';

const BASE = 'https://ld.example.org';

/** Fifty generated institutions as N-Triples, one per block. */
function institutions(count = 50): string[] {
  return [...generate({ count, seed: 7, base: BASE })];
}

function write(dir: string, name: string, blocks: readonly string[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, blocks.join(''));
  return file;
}

const isilOf = (block: string) => /organisations\/([^>]+)>/.exec(block)![1]!;

describe('the change log', function () {
  this.timeout(120_000);
  let dir: string;
  let target: { dataset: string; baseIri: string; historyDir: string; historyKeepVersions: number };
  const v1 = institutions();
  // v2: the third institution's name changes, the fifth is gone, a new one comes.
  const v2 = v1
    .map((b, i) => (i === 2 ? b.replace('(synthetisch)"', '(synthetisch) (renamed)"') : b))
    .filter((_, i) => i !== 4)
    .concat(institutions(51).slice(50));

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'history-'));
    target = {
      dataset: path.join(dir, 'dataset.nq'),
      baseIri: BASE,
      historyDir: path.join(dir, 'history'),
      historyKeepVersions: 0,
    };
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function commit(blocks: readonly string[], name: string, step?: (s: CommitStep) => void) {
    const loaded = await loadSources([write(dir, name, blocks)], { baseIri: BASE });
    try {
      return await commitVersion(loaded, target, { at: step });
    } finally {
      loaded.dataset.free();
    }
  }

  const logOf = () => {
    const contents = readLog(path.join(target.historyDir, LOG_FILE))!;
    return committed(contents, snapshotPointer(target.dataset, BASE));
  };

  it('makes every ISIL created in the first version, and only the differences after', async () => {
    const first = await commit(v1, 'v1.nt');
    assert.equal(first.changes?.length, 50);
    assert.ok(first.changes.every((c) => c.kind === 'created' && c.hash));
    const second = await commit(v2, 'v2.nt');
    const kinds = Object.fromEntries(second.changes!.map((c) => [c.isil, c.kind]));
    assert.deepEqual(kinds, {
      [isilOf(v1[2]!)]: 'updated',
      [isilOf(v1[4]!)]: 'deleted',
      [isilOf(v2.at(-1)!)]: 'created',
    });
    assert.ok(second.time! > first.time!, 'a later version has a later time');
    const log = logOf();
    assert.deepEqual(
      log.versions.map((v) => v.version),
      [first.version, second.version],
    );
    const states = statesAfter(log.versions);
    assert.equal(states.size, 50);
    assert.equal(states.has(isilOf(v1[4]!)), false);
  });

  it('adds nothing for the same sources again', async () => {
    await commit(v1, 'v1.nt');
    const again = await commit(v1, 'v1.nt');
    assert.equal(again.unchanged, true);
    assert.equal(logOf().versions.length, 1);
  });

  it('serves the log up to the version its snapshot names, descriptions read back from it', async () => {
    await commit(v1, 'v1.nt');
    await commit(v2, 'v2.nt');
    const loaded = await loadSources([target.dataset], { baseIri: BASE });
    try {
      const history = await embeddedHistory(
        { ...target },
        { sources: [target.dataset], options: { baseIri: BASE }, snapshot: true },
        loaded.dataset,
      );
      const renamed = isilOf(v1[2]!);
      const mementos = history.mementos(renamed);
      assert.equal(mementos.length, 2);
      const then = await history.description(mementos[0]!);
      const now = await history.description(mementos[1]!);
      assert.ok(!then.includes('(renamed)'));
      assert.ok(now.includes('(renamed)'));
      assert.deepEqual(
        history.events(isilOf(v1[4]!)).map((e) => e.kind),
        ['created', 'deleted'],
      );
      history.close();
    } finally {
      loaded.dataset.free();
    }
  });

  it('refuses a log made for another base', async () => {
    await commit(v1, 'v1.nt');
    const other = { ...target, baseIri: 'https://other.example.org' };
    const loaded = await loadSources([write(dir, 'o.nt', v1)], { baseIri: BASE });
    try {
      await assert.rejects(commitVersion(loaded, other), /made for https:\/\/ld\.example\.org/);
    } finally {
      loaded.dataset.free();
    }
  });

  it('reads a log made for the http:// twin of the base rewritten, and rewrites it on the next load', async () => {
    const twin = { ...target, baseIri: 'http://ld.example.org' };
    const http = v1.map((b) => b.replaceAll(`<${BASE}/`, '<http://ld.example.org/'));
    const loaded = await loadSources([write(dir, 'h.nt', http)], { baseIri: twin.baseIri });
    await commitVersion(loaded, twin).finally(() => loaded.dataset.free());
    // Read under https: the descriptions read from the log carry the served base.
    const history = fileHistory(
      committed(readLog(path.join(target.historyDir, LOG_FILE))!, undefined),
      BASE,
    );
    const [memento] = history.mementos(isilOf(v1[0]!));
    const text = await history.description(memento!);
    assert.ok(text.includes(`<${BASE}/resource/organisations/`));
    assert.ok(!text.includes('<http://ld.example.org/'));
    history.close();
    await commit(v2, 'v2.nt');
    const contents = readLog(path.join(target.historyDir, LOG_FILE))!;
    assert.equal(contents.base, BASE);
    assert.ok(
      !fs
        .readFileSync(path.join(target.historyDir, LOG_FILE), 'utf8')
        .includes('http://ld.example.org/'),
    );
  });

  it("keeps the newest versions and each ISIL's latest event past them", async () => {
    await commit(v1, 'v1.nt');
    await commit(v2, 'v2.nt');
    const v3 = v2.map((b, i) => (i === 0 ? b.replace('(synthetisch)"', '(synthetisch) (3)"') : b));
    target.historyKeepVersions = 1;
    const third = await commit(v3, 'v3.nt');
    assert.equal(third.dropped, 2);
    const log = logOf();
    assert.deepEqual(
      log.versions.map((v) => v.version),
      [third.version],
    );
    const states = statesAfter(log.versions);
    // The current state of every ISIL survives, and the deleted one's tombstone.
    assert.equal(states.size, 50);
    const events = log.versions.flatMap((v) => v.events);
    assert.ok(events.some((e) => e.isil === isilOf(v1[4]!) && e.kind === 'deleted'));
    assert.equal(events.filter((e) => e.isil === isilOf(v1[2]!)).length, 1);
  });

  it('continues the history for a restored older snapshot, never rewinding it', async () => {
    await commit(v1, 'v1.nt');
    const old = fs.readFileSync(target.dataset);
    const second = await commit(v2, 'v2.nt');
    fs.writeFileSync(target.dataset, old);
    const loaded = await loadSources([target.dataset], { baseIri: BASE });
    try {
      const history = await embeddedHistory(
        { ...target },
        { sources: [target.dataset], options: { baseIri: BASE }, snapshot: true },
        loaded.dataset,
      );
      assert.equal(history.versions.length, 3);
      assert.equal(history.versions.at(-1)!.version, loaded.dataset.version);
      assert.ok(history.versions.at(-1)!.time > second.time!);
      assert.deepEqual(
        history.events(isilOf(v1[4]!)).map((e) => e.kind),
        ['created', 'deleted', 'created'],
      );
      history.close();
    } finally {
      loaded.dataset.free();
    }
  });

  describe('a reload racing a loader', () => {
    // The data is read before the loader's step, its history opened at that step: data and
    // history are of one version, whichever the loader has written of the next.
    const steps: (CommitStep | 'committed')[] = [
      'append',
      'before-rename',
      'after-rename',
      'committed',
    ];
    it("the store's thread hands over the log version its snapshot's trailer names", async () => {
      const first = await commit(v1, 'v1.nt');
      const thread = new StoreThread(() => undefined);
      try {
        const { dataset } = await thread.open({
          sources: [target.dataset],
          options: { baseIri: BASE },
        });
        // The trailer's pointer whole: the version, its time and the log it belongs to.
        const pointer = dataset.logVersion as { version: string; time: number; log?: string };
        assert.deepEqual(
          { version: pointer.version, time: pointer.time },
          { version: first.version, time: first.time },
        );
        assert.match(pointer.log ?? '', /^[0-9a-f-]{36}$/);
        dataset.free();
      } finally {
        await thread.close();
      }
    });
    for (const step of steps)
      it(`at ${step}: the data read is served with its own history`, async () => {
        const first = await commit(v1, 'v1.nt');
        const loaded = await loadSources([target.dataset], { baseIri: BASE });
        const open = () =>
          embeddedHistory(
            { ...target },
            { sources: [target.dataset], options: { baseIri: BASE }, snapshot: true },
            loaded.dataset,
          );
        try {
          let opened: Promise<History> | undefined;
          const next = await commit(v2, 'v2.nt', (s) => {
            if (s === step) opened = open();
          });
          const history = await (opened ?? open());
          assert.deepEqual(history.versions, [{ version: first.version, time: first.time }]);
          const created = isilOf(v2.at(-1)!);
          assert.deepEqual(history.events(created), [], 'no event of the next version');
          history.close();
          // The log is the loader's: the data read was not taken for a restored snapshot.
          const log = logOf().versions.map((v) => v.version);
          assert.deepEqual(log, [first.version, next.version]);
        } finally {
          loaded.dataset.free();
        }
      });
  });

  describe('a loader killed at each step', () => {
    const steps: CommitStep[] = ['append', 'before-rename', 'after-rename', 'retention'];
    for (const step of steps)
      it(`at ${step}: the old version with its log, or the new one with its events`, async () => {
        const first = await commit(v1, 'v1.nt');
        const source = write(dir, 'v2.nt', v2);
        const run = spawnSync(
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
              HISTORY_KEEP_VERSIONS: step === 'retention' ? '1' : '0',
              ISIL_LD_CRASH_AT: step,
            },
            encoding: 'utf8',
          },
        );
        assert.equal(run.signal, 'SIGKILL', run.stderr);
        const pointer = snapshotPointer(target.dataset, BASE)!;
        const log = logOf();
        const last = log.versions.at(-1)!;
        assert.equal(last.version, pointer.version, "the log ends with the snapshot's version");
        if (step === 'append' || step === 'before-rename') {
          assert.equal(pointer.version, first.version);
          assert.equal(log.versions.length, 1);
        } else {
          assert.notEqual(pointer.version, first.version);
          assert.equal(last.events.length, 3, 'the new version keeps its events');
        }
        // The next load goes on from there, with the new version's events.
        const next = await commit(v2, 'v2.nt');
        assert.equal(statesAfter(logOf().versions).size, 50);
        assert.ok(next.unchanged || next.changes!.length === 3);
      });
  });
});

describe('reloads and the change log', function () {
  this.timeout(120_000);
  it('a reload picks up the new events with the new version; a refused one adds none', async () => {
    const fixture = await writeHistory(registryVersions().slice(0, 2));
    const config = testConfig({
      BASE_IRI: HISTORY_BASE,
      DATASET: fixture.dataset,
      HISTORY_DIR: fixture.historyDir,
    });
    const service = new Service(config);
    const logger = createLogger('silent');
    const reloader = new Reloader(service, logger, inProcessStore, undefined, (load, dataset) =>
      embeddedHistory(config, load, dataset),
    );
    try {
      await reloader.start();
      assert.equal(service.current!.dataset.history.versions.length, 2);
      // The next version goes live: the reload serves it with its events.
      const next = registryVersions()[2]!;
      const source = path.join(fixture.dir, 'v3.nt');
      fs.writeFileSync(source, next);
      const loaded = await loadSources([source], { baseIri: HISTORY_BASE });
      await commitVersion(loaded, config).finally(() => loaded.dataset.free());
      await reloader.reload();
      const { history } = service.current!.dataset;
      assert.equal(history.versions.length, 3);
      const log = fs.readFileSync(path.join(fixture.historyDir, LOG_FILE));
      // A snapshot that cannot be served: refused, and the log is as it was.
      fs.writeFileSync(fixture.dataset, 'not a snapshot\n');
      await reloader.reload();
      assert.equal(service.lastReload?.outcome, 'refused');
      assert.equal(service.current!.dataset.history.versions.length, 3);
      assert.deepEqual(fs.readFileSync(path.join(fixture.historyDir, LOG_FILE)), log);
    } finally {
      service.close();
      fs.rmSync(fixture.dir, { recursive: true, force: true });
    }
  });
});
