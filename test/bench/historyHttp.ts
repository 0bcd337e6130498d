// The past over HTTP (a script, not a test; time budget 6 minutes, the fixture's generation
// included): a server process over the bench's 100-version history of 17,000 generated institutions
// (historyFixture.ts, its snapshot and its change log), asked at 50 connections, by turns (mirrored
// order), for the TimeMaps and the mementos of 500 institutions changed since the first version
// (their first memento: a description the current version no longer serves, read from the log),
// and their current `.ttl` documents: cached (each asked once first), then on a server with its
// cache off (CACHE_MAX_BYTES=0). Prints each rate and the cached memento's against the cached
// current document's (goal ≥ 0.8×). Alone:
//   npx tsx test/bench/historyHttp.ts [--main dist/src/main.js] [--seconds 5] [--turns 3]
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readLog } from '../../src/history/log';
import { isMemento, timestamp14 } from '../../src/history/model';
import { PROJECT_ROOT } from '../../src/util/paths';
import { freePort } from '../servers/topology';
import { AS_DEPLOYED, driveAutocannon, type Result, type Target } from './drivers';
import {
  budgetRow,
  copyFixture,
  HISTORY_BENCH_DIR,
  historyFixture,
  median,
  type Fixture,
} from './historyFixture';

const { values } = parseArgs({
  options: {
    /** The compiled server `npm run bench` measures (as the image runs it); tsx otherwise. */
    main: { type: 'string' },
    seconds: { type: 'string', default: '5' },
    turns: { type: 'string', default: '3' },
  },
});
const SECONDS = Number(values.seconds);
const TURNS = Number(values.turns);
const CONNECTIONS = 50;
const BUDGET_MINUTES = 6;
/** Institutions asked for: every one's documents, mementos and TimeMaps fit in the cache. */
const SAMPLE = 500;
const GOAL = 0.8;
const MAIN = path.join(PROJECT_ROOT, 'src', 'main.ts');
const READY_MS = 300_000;
const log = (text: string) => process.stdout.write(`${text}\n`);

interface Targets {
  readonly documents: Target[];
  readonly mementos: Target[];
  readonly timemaps: Target[];
}

/** 500 ISILs live in the last version and updated since their first: their three kinds of path. */
function targetsOf(fixture: Fixture): Targets {
  const versions = readLog(fixture.log)!.versions;
  const mementos = new Map<string, number[]>();
  const gone = new Set<string>();
  for (const v of versions)
    for (const e of v.events) {
      if (isMemento(e)) {
        gone.delete(e.isil);
        mementos.set(e.isil, [...(mementos.get(e.isil) ?? []), e.time]);
      } else gone.add(e.isil);
    }
  const changed = [...mementos].filter(([isil, times]) => times.length > 1 && !gone.has(isil));
  const step = Math.max(1, Math.floor(changed.length / SAMPLE));
  const sample = changed.filter((_, i) => i % step === 0).slice(0, SAMPLE);
  const document = (isil: string) => `/data/organisations/${isil}.ttl`;
  return {
    documents: sample.map(([isil]) => ({ path: document(isil) })),
    mementos: sample.map(([isil, times]) => ({
      path: `/memento/${timestamp14(times[0]!)}${document(isil)}`,
    })),
    timemaps: sample.map(([isil]) => ({ path: `/timemap${document(isil)}` })),
  };
}

/** The rates of `cases` measured by turns, in mirrored order (a b c, c b a, …). */
async function byTurns(
  base: string,
  cases: Readonly<Record<string, readonly Target[]>>,
): Promise<Map<string, Result[]>> {
  const names = Object.keys(cases);
  const results = new Map<string, Result[]>(names.map((n) => [n, []]));
  for (let turn = 0; turn < TURNS; turn++)
    for (const name of turn % 2 === 0 ? names : [...names].reverse()) {
      const result = await driveAutocannon(base, cases[name]!, SECONDS, CONNECTIONS);
      if (result.errors > 0) throw new Error(`${name}: ${result.errors} errors`);
      results.get(name)!.push(result);
    }
  return results;
}

/** A server over a fresh copy of the fixture, its cache bound `cacheMaxBytes`, logging warnings only. */
async function serve(fixture: Fixture, cacheMaxBytes: number, targets: Targets) {
  const copy = copyFixture(fixture, path.join(HISTORY_BENCH_DIR, `http-${cacheMaxBytes}`));
  const port = await freePort();
  const command = values.main ? [values.main] : ['--import', 'tsx', MAIN];
  const child = spawn(process.execPath, command, {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      ...AS_DEPLOYED,
      HOST: '127.0.0.1',
      PORT: String(port),
      // The access log (info) would cost every request a line: the bench's servers log warnings.
      LOG_LEVEL: 'warn',
      DUMPS_DIR: '',
      BASE_IRI: fixture.base,
      DATASET: copy.snapshot,
      HISTORY_DIR: copy.historyDir,
      CACHE_MAX_BYTES: String(cacheMaxBytes),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exit = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    child.kill('SIGTERM');
    await exit;
  };
  const base = `http://127.0.0.1:${port}`;
  try {
    await ready(`${base}/readyz`, child);
    // Every kind of path answers 200 before it is measured: the Memento routes are there.
    for (const t of [targets.documents[0]!, targets.mementos[0]!, targets.timemaps[0]!]) {
      const status = (await fetch(`${base}${t.path}`)).status;
      if (status !== 200) throw new Error(`${t.path}: ${status}, not 200`);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { base, stop };
}

/** Waits until `/readyz` answers 200 (a loaded machine takes its time), or the server exits. */
async function ready(url: string, child: ChildProcess): Promise<void> {
  const until = Date.now() + READY_MS;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`);
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} not ready within ${READY_MS / 1000} s`);
}

/** Each case's median rate and p99, and the rows of the table. */
function summary(results: Map<string, Result[]>): Map<string, { rps: number; p99: number }> {
  const out = new Map<string, { rps: number; p99: number }>();
  for (const [name, runs] of results) {
    const rps = median(runs.map((r) => r.rps));
    const p99 = median(runs.map((r) => r.p99));
    out.set(name, { rps, p99 });
    log(
      `  ${name}: ${Math.round(rps)} req/s, p99 ${p99.toFixed(1)} ms (each turn: ${runs.map((r) => Math.round(r.rps)).join(', ')})`,
    );
  }
  return out;
}

async function main(): Promise<void> {
  const started = Date.now();
  const fixture = historyFixture();
  const targets = targetsOf(fixture);
  log(
    `history over HTTP: ${fixture.written.versions} versions of ${fixture.written.institutions} institutions, ${targets.documents.length} changed ones asked for, ${TURNS} turns of ${SECONDS} s, ${CONNECTIONS} connections`,
  );
  const cases = (t: Targets) => ({
    'current .ttl': t.documents,
    'memento .ttl': t.mementos,
    'TimeMap (link-format)': t.timemaps,
  });
  const cachedServer = await serve(fixture, 256 * 1024 * 1024, targets);
  let cached;
  try {
    for (const t of [...targets.documents, ...targets.mementos, ...targets.timemaps])
      await (await fetch(`${cachedServer.base}${t.path}`)).arrayBuffer();
    log('cached (CACHE_MAX_BYTES 256 MiB, each path asked once first):');
    cached = summary(await byTurns(cachedServer.base, cases(targets)));
  } finally {
    await cachedServer.stop();
  }
  const uncachedServer = await serve(fixture, 0, targets);
  let uncached;
  try {
    log('uncached (CACHE_MAX_BYTES 0):');
    uncached = summary(await byTurns(uncachedServer.base, cases(targets)));
  } finally {
    await uncachedServer.stop();
  }
  const row = (name: string) => {
    const c = cached.get(name)!;
    const u = uncached.get(name)!;
    return `${Math.round(u.rps)} req/s, p99 ${u.p99.toFixed(1)} ms; ${Math.round(c.rps)} req/s, p99 ${c.p99.toFixed(1)} ms`;
  };
  const ratio = cached.get('memento .ttl')!.rps / cached.get('current .ttl')!.rps;
  log('');
  log('| history over HTTP | figure | target | |');
  log('|---|---|---|---|');
  log(
    `| TimeMap of a changed institution, uncached; cached | ${row('TimeMap (link-format)')} | | |`,
  );
  log(`| memento .ttl of an older version, uncached; cached | ${row('memento .ttl')} | | |`);
  log(`| current .ttl, uncached; cached | ${row('current .ttl')} | | |`);
  log(
    `| cached memento .ttl / cached current .ttl | ${ratio.toFixed(2)}× | ≥ ${GOAL}× | ${ratio >= GOAL ? 'PASS' : 'MISS'} |`,
  );
  log(budgetRow('historyHttp.ts', started, BUDGET_MINUTES));
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`history over HTTP failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
