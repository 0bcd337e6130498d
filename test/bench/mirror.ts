// A mirror by OAI-PMH, measured (a script, not a test): a first instance serves a generated
// version of the bench's 17,000 institutions; the project's harvester (`npm run harvest -- --oai`)
// harvests all of it from the first's /oai in `rdf` (records a second), the mirror loads it in
// full and starts; then the first loads its next version (a day's changes) and serves it, and the
// mirror's `npm run update --metadata-prefix rdf --pid` harvests, applies and has the mirror
// reload: its lag, from the first serving the version to the mirror serving the same one.
// Alone: `npx tsx test/bench/mirror.ts [--count 17000] [--dist DIR]` (DIR: tsc's output).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateHistory } from '../../cli/generateHistory';
import { harvestOai } from '../../cli/oaiHarvest';
import { parseOaiCommandLine } from '../../cli/oaiCommand';
import { snapshotPointer } from '../../src/load/commit/commitVersion';
import { PROJECT_ROOT } from '../../src/util/paths';
import { startServerProcess, type ServerProcess } from '../support/serverProcess';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '17000' },
    /** The compiled tree `npm run bench` measures (as the image runs it); tsx otherwise. */
    dist: { type: 'string' },
  },
});
const COUNT = Number(values.count);
/** The goals (docs/benchmark.md): the harvest's records a second, the mirror's lag. */
const GOAL_RECORDS_PER_SECOND = 200;
const GOAL_LAG_SECONDS = 10;
/** About a day's changes of the bench's registry: 100 of 17,000. */
const CHANGE = 100 / 17_000;
const BASE = 'https://ld.zdb-services.de';
const WORK = path.join(PROJECT_ROOT, '.bench', 'mirror');
const log = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const instance = (name: 'first' | 'mirror') => ({
  DATASET: path.join(WORK, name, 'dataset.nq'),
  HISTORY_DIR: path.join(WORK, name),
  BASE_IRI: BASE,
});

/** A command of cli/ run to its end (not spawnSync: the servers' logs are read meanwhile). */
function run(command: readonly string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, command, {
      cwd: PROJECT_ROOT,
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (status) =>
      status === 0
        ? resolve(stdout)
        : reject(new Error(`${command.join(' ')} exited ${status}: ${stderr}${stdout}`)),
    );
  });
}

/** How a script of the project is run: compiled (`--dist`), or through tsx. */
const script = (...parts: string[]): string[] =>
  values.dist
    ? [path.join(values.dist, ...parts).replace(/\.ts$/, '.js')]
    : ['--import', 'tsx', path.join(PROJECT_ROOT, ...parts)];

const load = (file: string, name: 'first' | 'mirror') =>
  run([...script('cli', 'loadCommand.ts'), '--quiet', file], instance(name));

const start = (name: 'first' | 'mirror') =>
  startServerProcess({
    env: instance(name),
    command: [process.execPath, ...script('src', 'main.ts')],
  });

/** Resolves once `server` serves the version the snapshot of `name` now names. */
async function serving(server: ServerProcess, name: 'first' | 'mirror'): Promise<string> {
  const { version } = snapshotPointer(instance(name).DATASET, BASE)!;
  await server.line((l) => l.msg === 'reload finished' && l.version === version, 300_000);
  return version;
}

async function main(): Promise<void> {
  fs.rmSync(WORK, { recursive: true, force: true });
  for (const name of ['first', 'mirror']) fs.mkdirSync(path.join(WORK, name), { recursive: true });
  const next = path.join(WORK, 'next.nt');
  // The first's version is written as the loader would have, its next version's sources beside.
  generateHistory({
    count: COUNT,
    seed: 7,
    base: BASE,
    versions: 1,
    change: CHANGE,
    snapshot: instance('first').DATASET,
    historyDir: instance('first').HISTORY_DIR,
    next,
  });
  const servers: ServerProcess[] = [];
  try {
    const first = await start('first');
    servers.push(first);
    const url = `http://127.0.0.1:${first.port}/oai`;
    const whole = path.join(WORK, 'mirror', 'whole.rdf');
    const options = parseOaiCommandLine(
      ['--oai', url, '--metadata-prefix', 'rdf', '--out', whole, '--rate', '100', '--quiet'],
      'bench',
    );
    if (options === 'help') throw new Error('help');
    const report = await harvestOai(options);
    const rate = report.records / (report.ms / 1000);
    log(
      `| oai harvest by our harvester (ListRecords rdf, ${COUNT} institutions) | ${report.records} records and ${report.deleted} deletions in ${report.pages} pages, ${(report.bytes / 1e6).toFixed(1)} MB | ${seconds(report.ms)} | ${Math.round(rate)} records/s (goal >= ${GOAL_RECORDS_PER_SECOND}) | ${rate >= GOAL_RECORDS_PER_SECOND ? 'PASS' : 'MISS'} |`,
    );
    await load(whole, 'mirror');
    const mirror = await start('mirror');
    servers.push(mirror);

    const changed = (await load(next, 'first')).match(/\d+ created, \d+ updated, .*? deleted/)?.[0];
    process.kill(first.pid, 'SIGHUP');
    const version = await serving(first, 'first');
    const began = performance.now();
    const updated = await run(
      [
        ...script('cli', 'update.ts'),
        ...['--oai', url, '--metadata-prefix', 'rdf', '--rate', '10', '--quiet'],
        ...['--out', path.join(WORK, 'mirror', 'update.rdf'), '--pid', String(mirror.pid)],
      ],
      instance('mirror'),
    );
    const told = performance.now();
    const mirrored = await serving(mirror, 'mirror');
    const lag = performance.now() - began;
    if (mirrored !== version)
      throw new Error(`the mirror serves version ${mirrored}, the first ${version}`);
    const harvest = /^harvested .*? in \d+ pages, .*?, ([\d.]+) s;/m.exec(updated);
    log(
      `| a mirror's lag after a version of the first (${changed}; npm run update: harvest, apply, SIGHUP, reload) | version ${version} on both | ${seconds(lag)} (harvest ${harvest?.[1] ?? '?'} s, update command ${seconds(told - began)}, reload ${seconds(performance.now() - told)}) | goal <= ${GOAL_LAG_SECONDS} s | ${lag / 1000 <= GOAL_LAG_SECONDS ? 'PASS' : 'MISS'} |`,
    );
  } finally {
    for (const server of servers) {
      server.child.kill('SIGTERM');
      await server.exit;
    }
    fs.rmSync(WORK, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(`mirror bench failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
