// A dataset that goes live is whole, or it does not go live: what a careless
// operator can put at DATASET, at start and on reload, and what the service does with it.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { generate } from '../../cli/generate';
import { loadSources, writeSnapshot } from '../../src/load/loadSources';
import { inProcessStore } from '../../src/store/embedded/inProcessStore';
import { createApp } from '../../src/http/app';
import { createLogger } from '../../src/util/logger';
import { PROJECT_ROOT } from '../../src/util/paths';
import { Reloader } from '../../src/process/reloader';
import { Service } from '../../src/documents/service';
import { BASE, onLogLines, serverEnv, tempDir, testConfig, type LogLine } from '../support';

const MAIN = path.join(PROJECT_ROOT, 'src', 'main.ts');

/** Writes a snapshot of `count` generated institutions to `target`, as `npm run load` does. */
async function writeGenerated(target: string, count: number, seed: number, base = BASE) {
  const source = `${target}.source.nt`;
  fs.writeFileSync(source, [...generate({ count, seed, base })].join(''));
  const loaded = await loadSources([source], { baseIri: base });
  await writeSnapshot(loaded, target);
  loaded.dataset.free();
  fs.rmSync(source);
}

describe('a dataset that cannot be served is refused', function () {
  this.timeout(60_000);

  describe('on reload: the data served stays, the log and /readyz say why', () => {
    let dir: string;
    let snapshot: string;
    let service: Service;
    let reloader: Reloader;
    let served: string;
    const lines: LogLine[] = [];
    const logger = createLogger('info', {
      write: (line: string) => void lines.push(JSON.parse(line) as LogLine),
    });
    let good: Buffer;

    before(async () => {
      dir = tempDir();
      snapshot = path.join(dir, 'dataset.nq');
      await writeGenerated(snapshot, 40, 1);
      good = fs.readFileSync(snapshot);
      service = new Service(testConfig({ DATASET: snapshot }));
      reloader = new Reloader(service, logger, inProcessStore);
      await reloader.start();
      served = service.current!.dataset.version;
    });
    after(() => {
      service.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    afterEach(() => {
      fs.rmSync(snapshot, { recursive: true, force: true });
      fs.writeFileSync(snapshot, good);
    });

    /** Replaces DATASET with what `put` makes, reloads, and returns the refusal's reason. */
    async function refused(put: () => void | Promise<void>): Promise<string> {
      fs.rmSync(snapshot, { recursive: true, force: true });
      await put();
      const from = lines.length;
      await reloader.reload();
      assert.equal(service.current!.dataset.version, served, 'the data served stays');
      assert.equal(service.current!.dataset.institutionCount, 40);
      const line = lines.slice(from).find((l) => l.msg === 'reload refused');
      assert.ok(line, 'the log says the reload was refused');
      assert.equal(line.level, 50);
      const outcome = service.lastReload!;
      assert.equal(outcome.outcome, 'refused');
      assert.equal(outcome.reason, line.reason);
      assert.ok(!Number.isNaN(Date.parse(outcome.at)));
      return outcome.reason!;
    }

    it('a folder', async () => {
      const reason = await refused(() => fs.mkdirSync(snapshot));
      assert.match(reason, /is a folder, not a snapshot file/);
    });

    it('an empty file', async () => {
      const reason = await refused(() => fs.writeFileSync(snapshot, ''));
      assert.match(reason, /is empty/);
    });

    it('a deleted file: not the bundled data in its place', async () => {
      const reason = await refused(() => undefined);
      assert.match(reason, /does not exist/);
      assert.deepEqual(service.lastReload!.sources, [snapshot]);
    });

    it('a dangling symbolic link, saying where it points', async () => {
      const reason = await refused(() => fs.symlinkSync(path.join(dir, 'gone.nq'), snapshot));
      assert.match(reason, /symbolic link to .*gone\.nq, which does not exist/);
    });

    it('a symbolic link in a loop', async () => {
      const reason = await refused(() => {
        fs.symlinkSync(`${snapshot}.b`, snapshot);
        fs.rmSync(`${snapshot}.b`, { force: true });
        fs.symlinkSync(snapshot, `${snapshot}.b`);
      });
      assert.match(reason, /symbolic link in a loop/);
    });

    it('a FIFO, without waiting for a writer', async function () {
      if (spawnSync('mkfifo', ['--help']).status !== 0) this.skip();
      const reason = await refused(() => {
        assert.equal(spawnSync('mkfifo', [snapshot]).status, 0);
      });
      assert.match(reason, /FIFO \(named pipe\)/);
    });

    it('a path through a file (ENOTDIR): refused, not a crash', async () => {
      const through = path.join(dir, 'not-a-folder');
      fs.writeFileSync(through, 'x');
      const config = testConfig({ DATASET: path.join(through, 'dataset.nq') });
      const other = new Service(config);
      other.use(service.current!.dataset);
      const from = lines.length;
      await new Reloader(other, logger, inProcessStore).reload();
      assert.equal(other.current!.dataset.version, served);
      assert.equal(other.lastReload!.outcome, 'refused');
      assert.match(other.lastReload!.reason!, /not-a-folder\/dataset\.nq/);
      assert.ok(lines.slice(from).some((l) => l.msg === 'reload refused'));
    });

    it('N-Quads that hold no institution', async () => {
      const reason = await refused(() =>
        fs.writeFileSync(
          snapshot,
          '<http://example.org/a> <http://example.org/p> "x" <http://example.org/g> .\n',
        ),
      );
      assert.match(reason, /holds no institution to serve/);
    });

    it('a snapshot made for another BASE_IRI', async () => {
      const reason = await refused(() =>
        writeGenerated(snapshot, 10, 2, 'https://other.example.org'),
      );
      assert.match(reason, /https:\/\/other\.example\.org|no institution/);
    });

    it('/readyz stays ready and shows the refusal', async () => {
      await refused(() => fs.mkdirSync(snapshot));
      const app = createApp({ service, logger: createLogger('silent') });
      const res = await request(app).get('/readyz');
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'ready');
      assert.equal(res.body.version, served);
      assert.equal(res.body.lastReload.outcome, 'refused');
      assert.match(res.body.lastReload.reason, /is a folder/);
      assert.deepEqual(res.body.lastReload.sources, [snapshot]);
    });

    it('a good snapshot afterwards is accepted, and /readyz says so', async () => {
      await writeGenerated(snapshot, 30, 3);
      await reloader.reload();
      assert.equal(service.current!.dataset.institutionCount, 30);
      const outcome = service.lastReload!;
      assert.equal(outcome.outcome, 'accepted');
      assert.equal(outcome.version, service.current!.dataset.version);
      assert.equal(outcome.reason, undefined);
      served = service.current!.dataset.version;
    });
  });

  describe('at start', () => {
    function start(env: Record<string, string>) {
      return spawnSync(process.execPath, ['--import', 'tsx', MAIN], {
        env: serverEnv(env),
        encoding: 'utf8',
        timeout: 30_000,
      });
    }

    it('a DATASET that is set and does not exist: one line, exit 2, never the bundled data', () => {
      const run = start({ DATASET: '/nonexistent/dataset.nq' });
      assert.equal(run.status, 2);
      assert.equal(
        run.stderr,
        'configuration error: DATASET: /nonexistent/dataset.nq does not exist\n',
      );
      assert.equal(run.stdout, '');
    });

    it('a DATASET that is a folder: one line, exit 2', () => {
      const run = start({ DATASET: tempDir() });
      assert.equal(run.status, 2);
      assert.match(run.stderr, /^configuration error: DATASET: .*folder/);
      assert.equal(run.stderr.trim().split('\n').length, 1);
    });

    it('a DATASET whose path runs through a file: one line, exit 2', () => {
      const file = path.join(tempDir(), 'file');
      fs.writeFileSync(file, 'x');
      const run = start({ DATASET: path.join(file, 'dataset.nq') });
      assert.equal(run.status, 2);
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      assert.match(run.stderr, /^configuration error: DATASET: .*file\/dataset\.nq/);
    });

    it('HEADERS_TIMEOUT_MS above REQUEST_TIMEOUT_MS: one line naming both, exit 2', () => {
      const run = start({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' });
      assert.equal(run.status, 2);
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      assert.match(
        run.stderr,
        /^configuration error: HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS: .*20000 ms.*10000 ms/,
      );
    });
  });

  describe('SIGHUP to the real server after DATASET was deleted', () => {
    let dir: string;
    let child: ChildProcess;
    let base: string;
    const lines: LogLine[] = [];

    before(async () => {
      dir = tempDir();
      const snapshot = path.join(dir, 'dataset.nq');
      await writeGenerated(snapshot, 25, 4);
      child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
        env: serverEnv({ DATASET: snapshot }),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      base = await new Promise<string>((resolve, reject) => {
        onLogLines(child.stdout!, (line) => {
          lines.push(line);
          if (line.msg === 'listening')
            resolve(`http://127.0.0.1:${(line.address as { port: number }).port}`);
        });
        child.once('exit', () => reject(new Error('the server exited before listening')));
      });
      for (let i = 0; i < 300; i++) {
        if ((await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      fs.rmSync(snapshot);
    });
    after(() => {
      child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('keeps serving its data and says the reload was refused', async () => {
      const before = (await (await fetch(`${base}/readyz`)).json()) as Record<string, unknown>;
      child.kill('SIGHUP');
      for (let i = 0; i < 100 && !lines.some((l) => l.msg === 'reload refused'); i++)
        await new Promise((r) => setTimeout(r, 100));
      const after = (await (await fetch(`${base}/readyz`)).json()) as {
        status: string;
        version: string;
        institutions: number;
        lastReload: { outcome: string; reason: string };
      };
      assert.equal(after.status, 'ready');
      assert.equal(after.version, before.version);
      assert.equal(after.institutions, 25);
      assert.equal(after.lastReload.outcome, 'refused');
      assert.match(after.lastReload.reason, /does not exist/);
    });
  });
});
