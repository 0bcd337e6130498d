// `npm run update`: the daily run against a stand-in for the agency's OAI-PMH provider: it
// harvests what changed since the current version's time, applies it, and the server it tells
// (--pid) serves the new version; a second run that finds nothing exits 0 and writes nothing.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { snapshotPointer } from '../../src/load/commit/commitVersion';
import { PROJECT_ROOT } from '../../src/util/paths';
import { BASE, tempDir } from '../support';
import { OaiProvider } from '../support/oaiProvider';
import { startServerProcess, type ServerProcess } from '../support/serverProcess';
import { updateSet } from '../support/updateSet';

const stampOf = (seconds: number) =>
  new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('npm run update', function () {
  this.timeout(300_000);
  const set = updateSet(300, { created: 5, updated: 5, withdrawn: 2, deleted: 2 });
  let dir: string;
  let dataset: string;
  let provider: OaiProvider;
  let server: ServerProcess;
  const env = () => ({ ...process.env, DATASET: dataset, HISTORY_DIR: dir, BASE_IRI: BASE });
  const keptIn = (script: string, args: string[]) =>
    script !== 'update.ts' || args.includes('--out')
      ? []
      : ['--out', path.join(dir, 'harvest.picaplus.xml')];
  // Not spawnSync: the stand-in provider answers from this process's event loop.
  const run = (script: string, args: string[], extra: Record<string, string> = {}) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        // The harvest is kept in the test's folder, never in the project's data/harvest/.
        [
          '--import',
          'tsx',
          path.join(PROJECT_ROOT, 'cli', script),
          ...args,
          ...keptIn(script, args),
        ],
        { cwd: PROJECT_ROOT, env: { ...env(), ...extra } },
      );
      let [stdout, stderr] = ['', ''];
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('close', (status) => resolve({ status, stdout, stderr }));
    });
  let first: Awaited<ReturnType<typeof run>>;
  let base: { version: string; time: number };

  before(async () => {
    dir = tempDir();
    dataset = path.join(dir, 'dataset.nq');
    fs.writeFileSync(path.join(dir, 'base.pica'), set.base);
    const loaded = await run('loadCommand.ts', ['--quiet', path.join(dir, 'base.pica')]);
    assert.equal(loaded.status, 0, loaded.stderr);
    base = snapshotPointer(dataset, BASE)!;
    // Changed at the version's time: inside the window the update asks for.
    provider = await OaiProvider.start({
      items: set.items.map((item) => ({
        identifier: `oai:stand-in.invalid:${item.isil}`,
        datestamp: stampOf(base.time),
        ...(item.record ? { metadata: item.record } : {}),
      })),
      pageSize: 4,
    });
    server = await startServerProcess({
      env: { DATASET: dataset, HISTORY_DIR: dir, DUMPS_DIR: '' },
    });
    first = await run('update.ts', [
      '--oai',
      provider.url,
      '--pid',
      String(server.pid),
      '--rate',
      '100',
      '--quiet',
    ]);
  });
  after(async () => {
    server?.child.kill('SIGTERM');
    await server?.exit;
    await provider?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('harvests from the current version’s time, less the overlap', () => {
    assert.equal(first.status, 0, first.stderr);
    assert.equal(provider.requests[0]!.params.get('from'), stampOf(base.time - 3600));
  });

  it('applies the harvest as a new version with its events', () => {
    const now = snapshotPointer(dataset, BASE)!;
    assert.notEqual(now.version, base.version);
    assert.match(
      first.stdout,
      /change log: version at .*, \d+ created, 5 updated, 2 withdrawn, 2 deleted/,
    );
  });

  it('tells the server, which serves the new version', async () => {
    assert.match(
      first.stdout,
      new RegExp(`^reload\\tSIGHUP sent to the server, pid ${server.pid}$`, 'm'),
    );
    const version = snapshotPointer(dataset, BASE)!.version;
    await server.line((l) => l.msg === 'reload finished' && l.version === version, 60_000);
    const ready = (await (await fetch(`http://127.0.0.1:${server.port}/readyz`)).json()) as {
      version: string;
    };
    assert.equal(ready.version, version);
  });

  it('exits 0 saying nothing changed, and writes nothing, when the harvest is empty', async () => {
    const bytes = fs.readFileSync(dataset);
    const again = await run('update.ts', [
      '--oai',
      provider.url,
      '--overlap',
      '0',
      '--rate',
      '100',
      '--quiet',
    ]);
    assert.equal(again.status, 0, again.stderr);
    assert.match(
      again.stdout,
      /^nothing changed: the harvest since \S+ is empty; no version written$/m,
    );
    assert.ok(fs.readFileSync(dataset).equals(bytes));
  });

  it('exits 0 saying nothing changed when the harvest holds the current version again', async () => {
    const bytes = fs.readFileSync(dataset);
    const again = await run('update.ts', ['--oai', provider.url, '--rate', '100', '--quiet']);
    assert.equal(again.status, 0, again.stderr);
    assert.match(
      again.stdout,
      /^nothing changed: the harvest holds the version [0-9a-f]{12} again$/m,
    );
    assert.ok(fs.readFileSync(dataset).equals(bytes));
  });

  it('refuses a --pid that names no process before it harvests anything', async () => {
    const asked = provider.requests.length;
    const before = fs.readFileSync(dataset);
    // A pid past Linux's pid_max (4,194,304): no process has it.
    const refused = await run('update.ts', ['--oai', provider.url, '--pid', '99999999', '--quiet']);
    assert.equal(refused.status, 2, refused.stdout);
    assert.match(refused.stderr, /^--pid: 99999999 cannot be told \(ESRCH\)/);
    assert.equal(provider.requests.length, asked, 'nothing harvested');
    assert.deepEqual(fs.readFileSync(dataset), before);
  });

  it('refuses a DATASET without a version time, unless given --from', async () => {
    const bare = path.join(dir, 'none.nq');
    const refused = await run('update.ts', ['--oai', provider.url, '--quiet'], { DATASET: bare });
    assert.equal(refused.status, 1);
    assert.match(
      refused.stderr,
      /^update failed, snapshot unchanged: DATASET: .* names no version time/m,
    );
  });
});
