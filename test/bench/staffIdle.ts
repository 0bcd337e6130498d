// The staff endpoint while nobody queries (a script, not a test): the process's RSS after the warm
// phase with the endpoint on and its workers ended for idleness, beside the same server with the
// endpoint off (the baseline, in the same run); then the first staff query after idle time, its p99
// over cold starts, on the generated snapshot and on the bundled data. `npm run bench` runs it on
// its own snapshot; alone: `npx tsx test/bench/staffIdle.ts --snapshot FILE`.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { hashPassword, writeUser } from '../../src/http/sparql/users';
import { PROJECT_ROOT } from '../../src/util/paths';
import { AS_DEPLOYED, benchDumps, thirdPartyForBench } from './drivers';
import { rssOf } from './hardening';

const { values } = parseArgs({
  options: {
    snapshot: { type: 'string' },
    /** The server's entry: the compiled one `npm run bench` builds, or the sources through tsx. */
    main: { type: 'string' },
    /** Cold starts measured on each dataset. */
    starts: { type: 'string', default: '20' },
    /** SPARQL_IDLE_SECONDS of the measured servers: short, so that the cold starts come quickly. */
    idle: { type: 'string', default: '1' },
    /** Institutions rendered in five formats in the warm phase (the bench's hot set). */
    hot: { type: 'string', default: '2000' },
  },
});
if (!values.snapshot)
  throw new Error('--snapshot FILE: the snapshot to serve (npm run load writes one)');
const STARTS = Number(values.starts);
const IDLE_SECONDS = Number(values.idle);
const HOT = Number(values.hot);
const HOST = '127.0.0.1';
const PORT = 18095;
const BASE = `http://${HOST}:${PORT}`;
const WORK = path.join(PROJECT_ROOT, '.bench', 'staffIdle');
const USER = 'bench';
const PASSWORD = 'bench password, not a secret';
const AUTH = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
/** The first query after idle time: small, so that its time is the worker's start. */
const FIRST_QUERY = 'ASK { ?s ?p ?o }';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (text: string) => process.stdout.write(`${text}\n`);
/** The value at quantile `q` of `xs` (nearest rank): of 20, p99 is the slowest. */
const quantile = (xs: readonly number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)]!;

/** The first `count` ISILs of the snapshot, in its order. */
async function isilsOf(snapshot: string, count: number): Promise<string[]> {
  const found = new Set<string>();
  const lines = readline.createInterface({ input: fs.createReadStream(snapshot) });
  for await (const line of lines) {
    const isil = /\/resource\/organisations\/([^>]+)>/.exec(line)?.[1];
    if (isil) found.add(isil);
    if (found.size >= count) break;
  }
  lines.close();
  return [...found];
}

interface Worker {
  readonly state: string;
}

/** What the bench reads of `/readyz`. */
interface Readyz {
  readonly search?: string;
  readonly dumps?: string;
  readonly sparql?: { readonly workers: Worker[] };
}

/** Resolves once `/readyz` answers 200 and `done` holds of what it says, within `seconds`. */
async function whenReady(done: (body: Readyz) => boolean, seconds: number, what: string) {
  for (let i = 0; i < seconds * 10; i++) {
    try {
      const res = await fetch(`${BASE}/readyz`);
      if (res.status === 200 && done((await res.json()) as Readyz)) return;
    } catch {
      // Not answering yet.
    }
    await sleep(100);
  }
  throw new Error(`${what} not within ${seconds} s`);
}

/** Resolves once `done` holds of the staff workers `/readyz` lists, within `seconds`. */
const until = (done: (list: Worker[]) => boolean, seconds: number, what: string) =>
  whenReady((body) => done(body.sparql?.workers ?? []), seconds, what);

/**
 * Resolves once the server's work in the background is over (its search index built, its dumps
 * made, as `/readyz` says), within `seconds`: till then that work takes the CPU from the staff
 * workers, whose priority is the lowest, and the first query after idle would time the start-up.
 */
const settled = (seconds: number) =>
  whenReady(
    ({ search, dumps }) =>
      ['ready', 'failed'].includes(search ?? '') &&
      ['ready', 'off', 'failed'].includes(dumps ?? ''),
    seconds,
    'the search index and the dumps were made',
  );

/** A server on PORT with `env`; the endpoint on when `users` is given. */
function start(env: Record<string, string | undefined>, users?: string): ChildProcess {
  const entry = values.main
    ? [values.main]
    : ['--import', 'tsx', path.join(PROJECT_ROOT, 'src', 'main.ts')];
  const child = spawn(process.execPath, entry, {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      ...AS_DEPLOYED,
      PORT: String(PORT),
      HOST,
      LOG_LEVEL: 'warn',
      DUMPS_DIR: benchDumps(),
      ...(users ? { SPARQL_USERS: users, SPARQL_IDLE_SECONDS: String(IDLE_SECONDS) } : {}),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  process.on('exit', () => child.kill('SIGKILL'));
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** The warm phase of the bench: each hot institution rendered in five formats. */
async function warm(isils: readonly string[]): Promise<void> {
  for (const isil of isils) {
    for (const ext of ['rdf', 'jsonld', 'nt', 'ttl'])
      await fetch(`${BASE}/data/organisations/${isil}.${ext}`).then((r) => r.arrayBuffer());
    await fetch(`${BASE}/isil/${isil}`).then((r) => r.arrayBuffer());
  }
}

/** RSS once the warm phase is over (and, with the endpoint on, its workers have ended). */
async function idleRss(
  env: Record<string, string | undefined>,
  isils: readonly string[],
  users?: string,
) {
  const child = start(env, users);
  try {
    await until(() => true, 300, 'the server was not ready');
    await warm(isils);
    if (users) await until((list) => list.length === 0, 120, 'the workers did not end');
    await sleep(2000);
    return rssOf(child.pid!);
  } finally {
    await stop(child);
  }
}

/** The first staff query after idle time, `STARTS` times: its milliseconds each time. */
async function coldStarts(
  env: Record<string, string | undefined>,
  users: string,
): Promise<number[]> {
  const child = start(env, users);
  try {
    await until((list) => list.some((w) => w.state === 'idle'), 300, 'the workers did not load');
    await settled(300);
    const times: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      await until((list) => list.length === 0, 120, 'the workers did not end');
      const started = performance.now();
      const res = await fetch(`${BASE}/sparql`, {
        method: 'POST',
        headers: { Authorization: AUTH, 'Content-Type': 'application/sparql-query' },
        body: FIRST_QUERY,
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`the first query after idle answered ${res.status}`);
      times.push(performance.now() - started);
    }
    return times;
  } finally {
    await stop(child);
  }
}

const figures = (times: readonly number[]) =>
  `p99 ${(quantile(times, 0.99) / 1000).toFixed(2)} s, median ${(quantile(times, 0.5) / 1000).toFixed(2)} s over ${times.length} cold starts`;

async function main(): Promise<void> {
  await thirdPartyForBench();
  fs.mkdirSync(WORK, { recursive: true });
  const users = path.join(WORK, 'users');
  fs.rmSync(users, { force: true });
  writeUser(users, USER, await hashPassword(PASSWORD));
  const snapshot = { DATASET: path.resolve(values.snapshot!) };
  const isils = await isilsOf(snapshot.DATASET, HOT);

  const off = await idleRss(snapshot, isils);
  const on = await idleRss(snapshot, isils, users);
  log(
    `staff idle: RSS after the warm phase, endpoint on and its workers ended (SPARQL_IDLE_SECONDS ${IDLE_SECONDS}): ${on} MB; endpoint off: ${off} MB (goal ≤ 700 MB)`,
  );
  const generated = await coldStarts(snapshot, users);
  log(`staff idle: first query after idle, generated set: ${figures(generated)} (goal ≤ 5 s)`);
  // The bundled data: no snapshot named, none at the default path of this checkout's data/.
  const bundled = await coldStarts({ DATASET: undefined, HISTORY_DIR: '' }, users);
  log(`staff idle: first query after idle, bundled data: ${figures(bundled)} (goal ≤ 3 s)`);
  log(
    `staff idle: figures ${on} ${off} ${(quantile(generated, 0.99) / 1000).toFixed(2)} ${(quantile(bundled, 0.99) / 1000).toFixed(2)}`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`staff idle failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
