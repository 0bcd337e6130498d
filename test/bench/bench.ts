// The benchmark (a script, not a test): generates and loads 17,000 institutions, starts the real
// server, drives it per case at 50 connections with random ISILs, and prints each case's figures
// beside two baselines measured in the same run on the same machine; then further steps, each a
// script of its own (reload.ts, staffLoad.ts, scaleOut.ts, loaderLimits.ts, canonical.ts,
// historyLog.ts, historyLoad.ts, historyHttp.ts, loadUpdate.ts, remoteUpdate.ts, oaiHarvest.ts, mirror.ts, staffIdle.ts, startTime.ts,
// validate.ts, loadPhases.ts, searchMachines.ts, feed.ts).
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generate, generatePica } from '../../cli/generate';
import { PROJECT_ROOT } from '../../src/util/paths';
import { everyDocument, pipelinedFlood, rssOf, type FloodResult } from './hardening';
import {
  AS_DEPLOYED,
  benchDumps,
  driveAutocannon,
  driveWrk,
  hasWrk,
  type Result,
  type Target,
  thirdPartyForBench,
} from './drivers';
import { loaderLimits } from './loaderLimits';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    count: { type: 'string', default: '17000' },
    forks: { type: 'string', default: '3' },
    tool: { type: 'string' },
  },
});
const DURATION = Number(values.duration);
const WARMUP = Math.max(1, Math.round(DURATION / 5));
const CONNECTIONS = Number(values.connections);
const COUNT = Number(values.count);
/**
 * Every case is measured in this many fresh sets of processes (the servers and both baselines),
 * as JMH runs a benchmark in several forked JVMs: on the 2-vCPU development machine one process
 * runs 5-10% faster or slower than an identical one for its whole life (two Express baselines
 * side by side, measured by turns: 9,600 against 9,000 a second in every turn), so one process
 * of each measured the processes more than the code.
 */
const FORKS = Number(values.forks);
for (const [name, value] of Object.entries({ DURATION, CONNECTIONS, COUNT, FORKS }))
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name.toLowerCase()}: a whole number of at least 1, not ${value}`);
/** The ISILs whose documents are rendered before the cached cases (rendering all would take minutes). */
const HOT = 2000;
const WORK = path.join(PROJECT_ROOT, '.bench', 'run');
/**
 * The server and the loader are measured as the image runs them (Dockerfile, docker-compose.yml):
 * compiled by tsc, not through tsx, whose loader and closure naming the plain-JS baselines do
 * not pay either.
 */
const DIST = path.join(PROJECT_ROOT, '.bench', 'dist');
const HOST = '127.0.0.1';
const TOOL = values.tool ?? (hasWrk ? 'wrk' : 'autocannon');

const children: ChildProcess[] = [];
const stopAll = () => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL'));
process.on('exit', stopAll);

/** Stops every process started so far and waits until each has exited (its port is free). */
async function stopChildren(): Promise<void> {
  const exited = children
    .filter((c) => c.exitCode === null && c.signalCode === null)
    .map((c) => new Promise((resolve) => c.once('exit', resolve)));
  stopAll();
  await Promise.all(exited);
  children.length = 0;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** The middle value, or the mean of the two middle values of an even number. */
const median = (xs: readonly number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
process.on('SIGINT', () => process.exit(130));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function node(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}

async function waitFor(url: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(25);
  }
  throw new Error(`${url} not ready within ${ms} ms`);
}

/**
 * Waits until the version's search index and dumps, made in the background once it is served,
 * are done: the serving figures are measured without them competing for the cores; the time to
 * ready is measured before.
 */
async function backgroundDone(url: string): Promise<void> {
  const until = Date.now() + 300_000;
  while (Date.now() < until) {
    const state = (await (await fetch(url)).json()) as { search?: string; dumps?: string };
    if (state.search !== 'building' && state.dumps !== 'making') return;
    await sleep(250);
  }
  throw new Error(`${url}: the search index or the dumps were not done within 300 s`);
}

async function startServer(
  port: number,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; readyMs: number; rss: number }> {
  const started = Date.now();
  const child = node([path.join(DIST, 'src', 'main.js')], {
    PORT: String(port),
    HOST,
    LOG_LEVEL: 'warn',
    DUMPS_DIR: benchDumps(),
    ...AS_DEPLOYED,
    ...env,
  });
  await waitFor(`http://${HOST}:${port}/readyz`, 120_000);
  const readyMs = Date.now() - started;
  await backgroundDone(`http://${HOST}:${port}/readyz`);
  return { child, readyMs, rss: rssOf(child.pid!) };
}

/** A server that answers every request with one precomputed Turtle document. */
async function startBaseline(
  port: number,
  kind: 'express' | 'http',
  turtleFile: string,
): Promise<ChildProcess> {
  const body = `const body = require('fs').readFileSync(${JSON.stringify(turtleFile)});
const headers = { 'Content-Type': 'text/turtle;charset=UTF-8', 'Content-Length': String(body.length) };`;
  const script =
    kind === 'http'
      ? `${body} require('http').createServer((req, res) => { res.writeHead(200, headers); res.end(body); }).listen(${port}, '${HOST}');`
      : `${body} const app = require('express')(); app.disable('x-powered-by'); app.set('etag', false);
app.get('/*splat', (req, res) => { res.writeHead(200, headers); res.end(body); }); app.listen(${port}, '${HOST}');`;
  const child = node(['-e', script], {});
  await waitFor(`http://${HOST}:${port}/x`, 10_000);
  return child;
}

/** Drives `base` with random paths (and headers) from `targets` for `seconds`, or for `amount` requests. */
function drive(
  base: string,
  targets: readonly Target[],
  seconds: number,
  amount?: number,
): Promise<Result> {
  if (TOOL === 'wrk' && amount === undefined)
    return Promise.resolve(
      driveWrk(base, targets, seconds, CONNECTIONS, path.join(WORK, 'targets.lua')),
    );
  return driveAutocannon(base, targets, seconds, CONNECTIONS, amount);
}

async function main(): Promise<void> {
  await thirdPartyForBench();
  fs.mkdirSync(WORK, { recursive: true });
  const log = (text: string) => process.stdout.write(`${text}\n`);
  log(
    `bench: ${COUNT} institutions, ${CONNECTIONS} connections, ${DURATION} s per case, load generator ${TOOL}, ${process.version}; the servers with ${JSON.stringify(AS_DEPLOYED)}, as the image and npm start run them`,
  );

  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', DIST],
    { cwd: PROJECT_ROOT, stdio: 'inherit' },
  );

  const source = path.join(WORK, 'synthetic.nt');
  const snapshot = path.join(WORK, 'dataset.nq');
  const fd = fs.openSync(source, 'w');
  const isils: string[] = [];
  for (const institution of generate({
    count: COUNT,
    seed: 1,
    base: 'https://ld.zdb-services.de',
  })) {
    isils.push(/organisations\/([^>]+)>/.exec(institution)![1]!);
    fs.writeSync(fd, institution);
  }
  fs.closeSync(fd);

  const loadStarted = Date.now();
  const load = spawnSync(process.execPath, [path.join(DIST, 'cli', 'loadCommand.js'), source], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, DATASET: snapshot },
    encoding: 'utf8',
  });
  if (load.status !== 0) throw new Error(`load failed: ${load.stderr}`);
  const loadMs = Date.now() - loadStarted;
  log(`load: ${loadMs} ms (${/loaded .*/.exec(load.stdout)?.[0]})`);

  // The PICA+ load: the same number of institutions as PICA+ records, converted and loaded by the loader.
  const picaSource = path.join(WORK, 'synthetic.dat');
  const picaFd = fs.openSync(picaSource, 'w');
  for (const record of generatePica({ count: COUNT, seed: 1 })) fs.writeSync(picaFd, record);
  fs.closeSync(picaFd);
  const picaStarted = Date.now();
  const picaLoad = spawnSync(
    process.execPath,
    [path.join(DIST, 'cli', 'loadCommand.js'), picaSource],
    {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATASET: path.join(WORK, 'pica.nq') },
      encoding: 'utf8',
    },
  );
  if (picaLoad.status !== 0) throw new Error(`PICA+ load failed: ${picaLoad.stderr}`);
  const picaMs = Date.now() - picaStarted;
  const picaPeakMb = Number(/peak memory (\d+) MB/.exec(picaLoad.stdout)?.[1] ?? NaN);
  log(
    `PICA+ load: ${picaMs} ms, peak memory ${picaPeakMb} MB (${/loaded .*?;/.exec(picaLoad.stdout)?.[0]})`,
  );

  const hot = isils.slice(0, HOT);
  // The staff load step (staffLoad.ts) drives the same cached documents.
  fs.writeFileSync(
    path.join(WORK, 'hot.json'),
    JSON.stringify({ paths: hot.map((isil) => `/data/organisations/${isil}.ttl`) }),
  );
  const turtleFile = path.join(WORK, 'baseline.ttl');
  const doc = (ext: string) => hot.map((isil) => ({ path: `/data/organisations/${isil}.${ext}` }));
  const base = `http://${HOST}:18081`;
  /** Each case's result in each fork, in the order the cases run. */
  const cases: { name: string; results: Result[]; target?: number }[] = [];
  const startups: { readyMs: number; rss: number }[] = [];
  const batches: { p99: number; rss: number; errors: number }[] = [];
  /** RSS of the cached server once the hot documents are rendered (the warm phase), per fork. */
  const warmRss: number[] = [];

  for (let fork = 1; fork <= FORKS; fork++) {
    log(`fork ${fork} of ${FORKS}:`);
    const cached = await startServer(18081, { DATASET: snapshot });
    await startServer(18082, { DATASET: snapshot, CACHE_MAX_BYTES: '0' });
    startups.push(cached);
    log(`  start-up to /readyz: ${cached.readyMs} ms; RSS after start-up: ${cached.rss} MB`);

    if (fork === 1)
      fs.writeFileSync(
        turtleFile,
        Buffer.from(await (await fetch(`${base}/data/organisations/${hot[0]}.ttl`)).arrayBuffer()),
      );
    await startBaseline(18083, 'express', turtleFile);
    await startBaseline(18084, 'http', turtleFile);

    // Render every hot document once, and keep the ETags of the Turtle ones for the 304 case.
    const etags: { path: string; headers: Record<string, string> }[] = [];
    for (const isil of hot) {
      for (const ext of ['rdf', 'jsonld', 'nt'])
        await fetch(`${base}/data/organisations/${isil}.${ext}`).then((r) => r.arrayBuffer());
      await fetch(`${base}/isil/${isil}`).then((r) => r.arrayBuffer());
      const ttl = await fetch(`${base}/data/organisations/${isil}.ttl`);
      await ttl.arrayBuffer();
      etags.push({
        path: `/data/organisations/${isil}.ttl`,
        headers: { 'If-None-Match': ttl.headers.get('etag')! },
      });
    }

    warmRss.push(rssOf(cached.child.pid!));
    log(
      `  RSS after the warm phase (${HOT} institutions in 5 formats rendered): ${warmRss.at(-1)} MB`,
    );

    let index = 0;
    const run = async (
      name: string,
      url: string,
      targets: { path: string; headers?: Record<string, string> }[],
      target?: number,
    ) => {
      // Unmeasured warm-up: the first seconds of a case measure the JIT and the collector settling.
      await drive(url, targets, WARMUP);
      const result = await drive(url, targets, DURATION);
      const row = (cases[index++] ??= {
        name,
        results: [],
        ...(target === undefined ? {} : { target }),
      });
      row.results.push(result);
      // The server's RSS after each case: where memory grows, if it does, before the 100,000 requests.
      log(
        `  ${name}: ${Math.round(result.rps)} req/s; RSS of the cached server ${rssOf(cached.child.pid!)} MB`,
      );
    };
    await run('baseline node:http', `http://${HOST}:18084`, [{ path: '/x' }]);
    await run('baseline Express 5', `http://${HOST}:18083`, [{ path: '/x' }]);
    await run(
      '303 /resource',
      base,
      isils.map((i) => ({ path: `/resource/organisations/${i}` })),
      0.9,
    );
    await run('200 .ttl (cached)', base, doc('ttl'), 0.85);
    await run('200 .rdf (cached)', base, doc('rdf'), 0.85);
    await run('200 .jsonld (cached)', base, doc('jsonld'), 0.85);
    await run('200 .nt (cached)', base, doc('nt'), 0.85);
    await run(
      '200 /isil/ (cached)',
      base,
      hot.map((i) => ({ path: `/isil/${i}` })),
      0.85,
    );
    await run('304 If-None-Match', base, etags, 0.9);
    await run(
      '200 .ttl (cache off)',
      `http://${HOST}:18082`,
      isils.map((i) => ({ path: `/data/organisations/${i}.ttl` })),
      0.35,
    );
    // The machine drifts over a run: the Express baseline again at the end, the mean is the reference.
    await run('baseline Express 5 (again, at the end)', `http://${HOST}:18083`, [{ path: '/x' }]);

    // 100,000 requests in a row, in ten batches, in the last fork: the first and the last tenth
    // compared. The RSS of a batch is the median of samples taken every 50 ms while it runs: one
    // sample at its end fell anywhere in the collector's saw-tooth (a 20-batch run swung 663-707 MB
    // with no trend). The unmeasured warm-up every case gets comes first: the cached server has
    // been idle for the last two cases (about 40 s), in which V8's memory reducer shrinks its heap
    // (measured: 762 → 589 MB), so a first batch right after measured the heap growing back, not
    // the server's steady state.
    if (fork === FORKS) {
      await drive(base, doc('ttl'), WARMUP);
      for (let i = 0; i < 10; i++) {
        const samples: number[] = [];
        const sampler = setInterval(() => samples.push(rssOf(cached.child.pid!)), 50);
        const r = await drive(base, doc('ttl'), DURATION, 10_000);
        clearInterval(sampler);
        samples.push(rssOf(cached.child.pid!));
        batches.push({ p99: r.p99, rss: Math.round(median(samples)), errors: r.errors });
      }
    }
    await stopChildren();
  }

  // The pipelined flood: eight connections pipelining 50,000 GETs for uncached documents, first of
  // three ISILs (single flight), then spread over every ISIL not rendered before (bounded
  // renders), while a separate client asks for a cached document; each on a fresh server.
  const floods: { name: string; result: FloodResult }[] = [];
  const cold = isils.slice(HOT);
  for (const [name, paths] of [
    ['the same 3 ISILs', cold.slice(0, 3).map((i) => `/data/organisations/${i}.ttl`)],
    [`${cold.length} distinct ISILs`, cold.map((i) => `/data/organisations/${i}.ttl`)],
  ] as const) {
    const flooded = await startServer(18085, { DATASET: snapshot });
    const probe = `/data/organisations/${hot[0]}.ttl`;
    await fetch(`http://${HOST}:18085${probe}`).then((r) => r.arrayBuffer());
    const result = await pipelinedFlood({
      host: HOST,
      port: 18085,
      pid: flooded.child.pid!,
      paths,
      probe,
    });
    floods.push({ name, result });
    log(
      `pipelined flood over ${name}: ${result.answered} of ${result.requests} answered in ${result.seconds.toFixed(1)} s; cached probe p50 ${result.probeP50.toFixed(1)} ms, p99 ${result.probeP99.toFixed(1)} ms (${result.probes} probes); peak RSS ${result.peakRssMb} MB`,
    );
    await stopChildren();
  }

  // The cache bound: every institution in every format and content coding, from a fresh server
  // with the default cache bound: its RSS against the bound plus its idle footprint.
  const CACHE_BYTES = 256 * 1024 * 1024;
  const bounded = await startServer(18086, {
    DATASET: snapshot,
    CACHE_MAX_BYTES: String(CACHE_BYTES),
  });
  await sleep(1000);
  const idleRss = rssOf(bounded.child.pid!);
  const cacheStarted = Date.now();
  const statuses = await everyDocument({
    host: HOST,
    port: 18086,
    paths: isils.flatMap((i) => [
      ...['ttl', 'rdf', 'jsonld', 'nt'].map((ext) => `/data/organisations/${i}.${ext}`),
      `/isil/${i}`,
    ]),
  });
  const cacheRss = rssOf(bounded.child.pid!);
  const cacheBound = idleRss + CACHE_BYTES / 1024 / 1024;
  log(
    `cache bound: ${[...statuses].map(([s, n]) => `${n} × ${s}`).join(', ')} in ${((Date.now() - cacheStarted) / 1000).toFixed(0)} s; RSS idle ${idleRss} MB, after ${cacheRss} MB, bound + idle ${Math.round(cacheBound)} MB`,
  );
  await stopChildren();

  // The reload: p99 of `.ttl` while the server reloads this run's snapshot on SIGHUP, against p99
  // without a reload, by the reload script (one round; it starts a server of its own).
  const reload = spawnSync(
    process.execPath,
    [
      ...['--import', 'tsx', path.join('test', 'bench', 'reload.ts'), '--snapshot', snapshot],
      ...['--count', String(COUNT), '--rounds', '1', '--duration', String(DURATION)],
    ],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  log(reload.stdout.trim());
  const reloadRatio = Number(
    /p99 during a reload \/ p99 without: ([\d.]+)/.exec(reload.stdout)?.[1] ?? NaN,
  );

  // The staff load: the public cached path alone and beside four staff clients looping queries that run
  // into the time limit, by turns; the workers' memory; each example query's latency.
  const staffRun = (extra: string[]) =>
    spawnSync(
      process.execPath,
      [
        ...['--import', 'tsx', path.join('test', 'bench', 'staffLoad.ts'), '--snapshot', snapshot],
        ...['--main', path.join(DIST, 'src', 'main.js'), '--duration', String(DURATION), ...extra],
      ],
      { cwd: PROJECT_ROOT, encoding: 'utf8' },
    );
  const staff = staffRun([]);
  log(staff.stdout.trim());
  if (staff.status !== 0) log(`staff load failed: ${staff.stderr.trim()}`);
  const staffP99 = Number(/public p99 with \/ without: ([\d.]+)/.exec(staff.stdout)?.[1] ?? NaN);
  const staffRps = Number(/public req\/s with \/ without: ([\d.]+)/.exec(staff.stdout)?.[1] ?? NaN);
  // The same with a time limit of 5 s: the workers are replaced during the turns.
  const churn = staffRun(['--timeout', '5000', '--skip-examples']);
  log(churn.stdout.trim());
  const churnP99 = Number(/public p99 with \/ without: ([\d.]+)/.exec(churn.stdout)?.[1] ?? NaN);
  const churnRps = Number(/public req\/s with \/ without: ([\d.]+)/.exec(churn.stdout)?.[1] ?? NaN);

  // Idle staff workers: the RSS after the warm phase with the endpoint on and its workers ended for
  // idleness, against the endpoint off; the first query after idle time over 20 cold starts.
  const idle = spawnSync(
    process.execPath,
    [
      ...['--import', 'tsx', path.join('test', 'bench', 'staffIdle.ts'), '--snapshot', snapshot],
      ...['--main', path.join(DIST, 'src', 'main.js')],
    ],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  log(idle.stdout.trim());
  if (idle.status !== 0) log(`staff idle failed: ${idle.stderr.trim()}`);
  const [idleOn, idleOff, coldGenerated, coldBundled] = (
    /staff idle: figures (\d+) (\d+) ([\d.]+) ([\d.]+)/.exec(idle.stdout)?.slice(1) ?? []
  ).map(Number);

  // Start time: `npm start` to the first 200 of /readyz on the bundled data, the kept snapshot
  // against the sources, by turns (median of 5 each).
  const startStep = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join('test', 'bench', 'startTime.ts')],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  log(startStep.stdout.trim());
  if (startStep.status !== 0) log(`startTime.ts failed: ${startStep.stderr.trim()}`);
  const startRows = startStep.stdout.split('\n').filter((line) => line.startsWith('| '));

  // Validation: CPU an institution with the compiled shapes and with shacl-engine, by turns, and
  // the load validating against --skip-validation.
  const validation = spawnSync(
    process.execPath,
    [
      ...['--import', 'tsx', path.join('test', 'bench', 'validate.ts'), '--count', String(COUNT)],
      ...['--load', '--loader', path.join(DIST, 'cli', 'loadCommand.js')],
    ],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  log(validation.stdout.trim());
  if (validation.status !== 0) log(`validation step failed: ${validation.stderr.trim()}`);
  const validationCpu = /validate: CPU an institution, [^:]+: (.*)/.exec(validation.stdout)?.[1];
  const validationLoad = /validate: npm run load, [^:]+: (.*)/.exec(validation.stdout)?.[1];

  // Where a load's time goes: each phase of `npm run load` with its time and memory, beside
  // Oxigraph's own Store.load() of the same file by turns, and the 201 MB input's peak RSS.
  const phases = spawnSync(
    process.execPath,
    [
      ...['--import', 'tsx', path.join('test', 'bench', 'loadPhases.ts')],
      ...['--count', String(COUNT), '--large'],
    ],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  log(phases.stdout.trim());
  if (phases.status !== 0) log(`load phases failed: ${phases.stderr.trim()}`);
  const phaseRows = phases.stdout.split('\n').filter((line) => line.startsWith('| npm run load'));

  // Scale-out. Loading into Virtuoso, uncached documents through it against its own
  // rate, and cached documents through one process, replicas behind nginx and Varnish in front.
  const scale = spawnSync(
    process.execPath,
    [
      ...['--import', 'tsx', path.join('test', 'bench', 'scaleOut.ts'), '--snapshot', snapshot],
      ...['--source', source, '--main', path.join(DIST, 'src', 'main.js')],
      ...['--duration', String(DURATION), '--connections', String(CONNECTIONS)],
    ],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  log(scale.stdout.trim());
  if (scale.status !== 0) log(`scale-out failed: ${scale.stderr.trim()}`);
  const scaleRows = scale.stdout
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| scale-out |'));

  // The search (the index in process, suggest over HTTP against Express, a million
  // institutions' index), the library it uses against the others, and reconciliation.
  const searchStep = spawnSync(
    process.execPath,
    [
      ...['--expose-gc', '--max-old-space-size=12000', '--import', 'tsx'],
      path.join('test', 'bench', 'search.ts'),
      ...['--duration', String(DURATION), '--connections', String(CONNECTIONS)],
    ],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  log(searchStep.stdout.trim());
  if (searchStep.status !== 0) log(`search step failed: ${searchStep.stderr.trim()}`);
  const reconciled = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', path.join('test', 'bench', 'reconcile.ts')],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  log(reconciled.stdout.trim());
  if (reconciled.status !== 0) log(`reconcile.ts failed: ${reconciled.stderr.trim()}`);
  // Search for machines: fielded queries against plain ones, the bulk exports' time, bytes and RSS
  // (bundled and 100,000 generated institutions), and reconciliation's extend.
  const machines = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', path.join('test', 'bench', 'searchMachines.ts')],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  log(machines.stdout.trim());
  if (machines.status !== 0) log(`searchMachines.ts failed: ${machines.stderr.trim()}`);

  // What reading a load canonically costs (reproducible versions), per description.
  const canonical = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join('test', 'bench', 'canonical.ts')],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  log(canonical.stdout.trim());
  if (canonical.status !== 0) log(`canonical.ts failed: ${canonical.stderr.trim()}`);

  // The history: a 100-version history of the bench's institutions generated (historyFixture.ts),
  // the load of one more version with its change log and without, the log's size on disk, and
  // TimeMaps and mementos over HTTP; each a script of its own, with its time budget.
  const historyRows: string[] = [];
  for (const [script, extra] of [
    ['historyLog.ts', []],
    ['historyLoad.ts', ['--loader', path.join(DIST, 'cli', 'loadCommand.js')]],
    ['historyHttp.ts', ['--main', path.join(DIST, 'src', 'main.js')]],
  ] as const) {
    const step = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join('test', 'bench', script), ...extra],
      { cwd: PROJECT_ROOT, encoding: 'utf8' },
    );
    log(step.stdout.trim());
    if (step.status !== 0) log(`${script} failed: ${step.stderr.trim()}`);
    historyRows.push(
      ...step.stdout
        .split('\n')
        .filter((line) => line.startsWith('| ') && !line.includes('| figure |')),
    );
  }
  // An update: load --update of a day's 100 changed records against the full load, by turns.
  const updateStep = spawnSync(
    process.execPath,
    [
      ...['--import', 'tsx', path.join('test', 'bench', 'loadUpdate.ts'), '--count', String(COUNT)],
      ...['--loader', path.join(DIST, 'cli', 'loadCommand.js')],
    ],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  log(updateStep.stdout.trim());
  if (updateStep.status !== 0) log(`loadUpdate.ts failed: ${updateStep.stderr.trim()}`);
  // The same update into Virtuoso: the bytes it sends against a full load's.
  const remoteUpdateStep = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join('test', 'bench', 'remoteUpdate.ts'), '--count', String(COUNT)],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  log(remoteUpdateStep.stdout.trim());
  if (remoteUpdateStep.status !== 0)
    log(`remoteUpdate.ts failed: ${remoteUpdateStep.stderr.trim()}`);
  // OAI-PMH: a full and an incremental harvest by oai_pmh, and the server's memory meanwhile.
  const oaiStep = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join('test', 'bench', 'oaiHarvest.ts')],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  log(oaiStep.stdout.trim());
  if (oaiStep.status !== 0) log(`oaiHarvest.ts failed: ${oaiStep.stderr.trim()}`);
  // A mirror by OAI-PMH: the project's harvester over /oai (rdf), records a second; the lag.
  const mirrorStep = spawnSync(
    process.execPath,
    [
      ...['--import', 'tsx', path.join('test', 'bench', 'mirror.ts'), '--count', String(COUNT)],
      ...['--dist', DIST],
    ],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  log(mirrorStep.stdout.trim());
  if (mirrorStep.status !== 0) log(`mirror.ts failed: ${mirrorStep.stderr.trim()}`);

  // The change feed: its pages per second uncached and cached, a replay by the reference client.
  const feedStep = spawnSync(
    process.execPath,
    [
      ...['--import', 'tsx', path.join('test', 'bench', 'feed.ts'), '--count', String(COUNT)],
      ...['--duration', String(DURATION), '--connections', String(CONNECTIONS)],
    ],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  log(feedStep.stdout.trim());
  if (feedStep.status !== 0) log(`feed step failed: ${feedStep.stderr.trim()}`);

  // The loader's limits: the loader's memory on 200 MB inputs, and a 100,000-level blank-node chain.
  const limits = await loaderLimits();
  for (const { label, value } of limits) log(`${label}: ${value}`);
  // The uncached half of the reload bench: p99 while loading and after the swap.
  const uncachedReload = /uncached: .*/.exec(reload.stdout)?.[0];

  const expressRuns = cases
    .filter((c) => c.name.startsWith('baseline Express 5'))
    .flatMap((c) => c.results.map((r) => r.rps));
  const expressRps = mean(expressRuns);
  const httpRps = mean(
    cases.find((c) => c.name === 'baseline node:http')!.results.map((r) => r.rps),
  );
  let met = 0;
  let total = 0;
  const verdict = (ok: boolean) => {
    total++;
    if (ok) met++;
    return ok ? 'PASS' : 'MISS';
  };
  log('');
  log(
    `Express reference: mean of ${expressRuns.map((r) => Math.round(r)).join(', ')} req/s (${FORKS} forks, each at the start and at the end).`,
  );
  log('');
  log(
    '| case | req/s (mean) | each fork | p50 ms | p99 ms | errors | × Express | × node:http | target | |',
  );
  log('|---|---:|---:|---:|---:|---:|---:|---:|---|---|');
  for (const { name, results, target } of cases) {
    const rps = mean(results.map((r) => r.rps));
    const errors = results.reduce((n, r) => n + r.errors, 0);
    const vsExpress = rps / expressRps;
    const status = target === undefined ? '' : verdict(vsExpress >= target && errors === 0);
    log(
      `| ${name} | ${Math.round(rps)} | ${results.map((r) => Math.round(r.rps)).join(' ')} | ${median(results.map((r) => r.p50)).toFixed(1)} | ${median(results.map((r) => r.p99)).toFixed(1)} | ${errors} | ${vsExpress.toFixed(2)} | ${(rps / httpRps).toFixed(2)} | ${target === undefined ? '' : `≥ ${target} × Express`} | ${status} |`,
    );
  }
  // Start-up and its memory: the slowest and the largest fork, not a mean.
  const readyMs = Math.max(...startups.map((s) => s.readyMs));
  const startRss = Math.max(...startups.map((s) => s.rss));
  const first = batches[0]!;
  const last = batches[9]!;
  const batchErrors = batches.reduce((n, b) => n + b.errors, 0);
  log('');
  log('| figure | value | target | |');
  log('|---|---:|---|---|');
  log(`| load (generate excluded) | ${(loadMs / 1000).toFixed(1)} s | | |`);
  log(
    `| PICA+ records converted and loaded | ${(picaMs / 1000).toFixed(1)} s | ≤ 15 s | ${verdict(picaMs <= 15_000)} |`,
  );
  log(`| PICA+ load: peak RSS | ${picaPeakMb} MB | ≤ 1024 MB | ${verdict(picaPeakMb <= 1024)} |`);
  log(
    `| start-up to /readyz, slowest fork (each: ${startups.map((s) => (s.readyMs / 1000).toFixed(1)).join(', ')} s) | ${(readyMs / 1000).toFixed(1)} s | ≤ 5 s | ${verdict(readyMs <= 5000)} |`,
  );
  log(
    `| RSS after start-up (SPARQL endpoint off), largest fork (each: ${startups.map((s) => s.rss).join(', ')} MB) | ${startRss} MB | ≤ 600 MB | ${verdict(startRss <= 600)} |`,
  );
  log(
    `| 100,000 requests (last fork): p99 first → last 10% | ${first.p99.toFixed(1)} → ${last.p99.toFixed(1)} ms (${(last.p99 / first.p99).toFixed(2)}×) | ≤ 1.5× | ${verdict(last.p99 <= 1.5 * first.p99 && batchErrors === 0)} |`,
  );
  log(
    `| 100,000 requests (last fork): RSS first → last 10% | ${first.rss} → ${last.rss} MB (${(((last.rss - first.rss) / first.rss) * 100).toFixed(1)}%) | ≤ +10% | ${verdict(last.rss <= first.rss * 1.1)} |`,
  );
  log(
    `| p99 of .ttl during a reload / without | ${reloadRatio.toFixed(2)}× | ≤ 3× | ${verdict(reloadRatio <= 3)} |`,
  );
  const warmest = Math.max(...warmRss);
  log(
    `| RSS after the warm phase, largest fork (each: ${warmRss.join(', ')} MB) | ${warmest} MB | ≤ 600 MB | ${verdict(warmest <= 600)} |`,
  );
  for (const { name, result } of floods) {
    const whole = result.answered === result.requests;
    log(
      `| pipelined flood over ${name}: p99 of a cached document beside it | ${result.probeP99.toFixed(1)} ms | < 100 ms | ${verdict(result.probeP99 < 100 && whole)} |`,
    );
    // The target is for the flood over a few ISILs; spread over every ISIL, the server
    // also renders and caches 15,000 documents meanwhile, and its RSS is shown beside it.
    const few = name === floods[0]!.name;
    log(
      `| pipelined flood over ${name}: peak RSS (${result.answered} of ${result.requests} answered) | ${result.peakRssMb} MB | ${few ? '< 800 MB' : ''} | ${few ? verdict(result.peakRssMb < 800 && whole) : ''} |`,
    );
  }
  log(
    `| every document × format × coding: RSS / (idle ${idleRss} MB + cache bound ${CACHE_BYTES / 1024 / 1024} MB) | ${cacheRss} MB (${(cacheRss / cacheBound).toFixed(2)}×) | ≤ 1.2× | ${verdict(cacheRss <= 1.2 * cacheBound)} |`,
  );
  log(
    `| staff load: public .ttl p99 with / without four staff clients (medians of 5 turns) | ${staffP99.toFixed(2)}× | ≤ 1.3× | ${verdict(staffP99 <= 1.3)} |`,
  );
  log(
    `| staff load: public .ttl req/s with / without | ${staffRps.toFixed(2)}× | ≥ 0.8× | ${verdict(staffRps >= 0.8)} |`,
  );
  log(
    `| staff load, SPARQL_TIMEOUT_MS 5 s (workers replaced during the turns): p99 and req/s with / without | ${churnP99.toFixed(2)}×, ${churnRps.toFixed(2)}× | | |`,
  );
  log(
    `| staff endpoint on, its workers ended for idleness: process RSS after the warm phase (endpoint off: ${idleOff} MB) | ${idleOn} MB | ≤ 700 MB | ${verdict(idleOn! <= 700)} |`,
  );
  log(
    `| first staff query after idle time, p99 of 20 cold starts: bundled data / generated set | ${coldBundled} s / ${coldGenerated} s | ≤ 3 s / ≤ 5 s | ${verdict(coldBundled! <= 3 && coldGenerated! <= 5)} |`,
  );
  log(`| validation CPU an institution, shacl-engine / compiled shapes | ${validationCpu} | | |`);
  log(`| npm run load validating / --skip-validation | ${validationLoad} | | |`);
  for (const row of phaseRows) {
    const status = row.split(' | ').at(-1)!.replace(/ \|$/, '').trim();
    if (status === 'PASS' || status === 'MISS') verdict(status === 'PASS');
    log(row);
  }
  for (const row of scaleRows) {
    const cells = row.split(' | ');
    const status = cells.at(-1)!.replace(/ \|$/, '').trim();
    if (status === 'PASS' || status === 'MISS') verdict(status === 'PASS');
    log(row);
  }
  for (const row of [...startRows, ...historyRows]) {
    const status = row.split(' | ').at(-1)!.replace(/ \|$/, '').trim();
    if (status === 'PASS' || status === 'MISS') verdict(status === 'PASS');
    log(row);
  }
  for (const { label, value } of limits) log(`| ${label} | ${value} | | |`);
  if (uncachedReload) log(`| reload, ${uncachedReload.replace(/\|/g, '/')} | | | |`);
  log('');
  log(`bench: ${met} of ${total} targets met`);
}

main()
  .then(() => {
    stopAll();
    process.exit(0);
  })
  .catch((error: unknown) => {
    process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
    stopAll();
    process.exit(1);
  });
