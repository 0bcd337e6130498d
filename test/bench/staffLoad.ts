// The staff load (a script, not a test): the public cached `.ttl` path measured alone,
// then while four staff clients loop queries that run into the SPARQL time-limit, by turns; the
// medians of each and their ratios. Also the memory of the process and of each query worker, idle
// and after the staff load, and the latency of each example query. `npm run bench` runs it on its
// own snapshot; alone: `npx tsx test/bench/staffLoad.ts --snapshot FILE`.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadExamples } from '../../src/http/sparql/editor';
import { hashPassword, writeUser } from '../../src/http/sparql/users';
import { PROJECT_ROOT } from '../../src/util/paths';
import { AS_DEPLOYED, benchDumps, driveAutocannon, driveWrk, hasWrk, type Result } from './drivers';
import { rssOf } from './hardening';

const { values } = parseArgs({
  options: {
    snapshot: { type: 'string' },
    duration: { type: 'string', default: '10' },
    turns: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    /** The server's entry: the compiled one `npm run bench` builds, or the sources through tsx. */
    main: { type: 'string' },
    /**
     * SPARQL_TIMEOUT_MS: the default (30 s) for the goal's figures, where the runaway queries run
     * through each turn; a short one shows the cost of replacing workers during the turns.
     */
    timeout: { type: 'string', default: '30000' },
    /** Do not time the example queries (they are timed on idle workers first). */
    'skip-examples': { type: 'boolean', default: false },
  },
});
if (!values.snapshot)
  throw new Error('--snapshot FILE: the snapshot to serve (npm run load writes one)');
const DURATION = Number(values.duration);
const TURNS = Number(values.turns);
const CONNECTIONS = Number(values.connections);
const HOST = '127.0.0.1';
const PORT = 18090;
const BASE = `http://${HOST}:${PORT}`;
const WORK = path.join(PROJECT_ROOT, '.bench', 'staff');
const STAFF_CLIENTS = 4;
/** Every pair of triples: runs far past any time limit on 17,000 institutions. */
const RUNAWAY = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f }';
const USER = 'bench';
const PASSWORD = 'bench password, not a secret';
const AUTH = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Drives the cached `.ttl` documents of `paths` for `seconds`: wrk when installed. */
function drive(paths: readonly string[], seconds: number): Promise<Result> {
  const targets = paths.map((p) => ({ path: p }));
  return hasWrk
    ? Promise.resolve(driveWrk(BASE, targets, seconds, CONNECTIONS, path.join(WORK, 'paths.lua')))
    : driveAutocannon(BASE, targets, seconds, CONNECTIONS);
}

/** Four staff clients, each sending the runaway query again as soon as it is answered. */
function staffLoad(): { stop: () => Promise<{ sent: number; statuses: Map<number, number> }> } {
  let running = true;
  let sent = 0;
  const statuses = new Map<number, number>();
  const loop = async () => {
    while (running) {
      sent++;
      try {
        const res = await fetch(`${BASE}/sparql`, {
          method: 'POST',
          headers: { Authorization: AUTH, 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ query: RUNAWAY }),
        });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        // A busy answer says when to come back; staff tools wait a little rather than spin.
        if (res.status === 429 || res.status === 503) await sleep(100);
      } catch {
        await sleep(100);
      }
    }
  };
  const loops = Array.from({ length: STAFF_CLIENTS }, loop);
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return { sent, statuses };
    },
  };
}

interface Worker {
  readonly threadId: number;
  readonly state: string;
  readonly priority?: number;
  readonly policy?: string;
  readonly memory?: { heapBytes: number; externalBytes: number };
}

async function workers(): Promise<Worker[]> {
  const body = (await (await fetch(`${BASE}/readyz`)).json()) as { sparql?: { workers: Worker[] } };
  return body.sparql?.workers ?? [];
}

const mb = (bytes = 0) => Math.round(bytes / 1024 / 1024);
const workerMemory = (list: readonly Worker[]) =>
  list
    .map(
      (w) =>
        `#${w.threadId} ${w.state} heap ${mb(w.memory?.heapBytes)} + external ${mb(w.memory?.externalBytes)} MB`,
    )
    .join('; ');

async function waitForWorkers(): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    try {
      if ((await workers()).filter((w) => w.state === 'idle').length >= 2) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error('the SPARQL workers were not ready within 120 s');
}

async function main(): Promise<void> {
  fs.mkdirSync(WORK, { recursive: true });
  const users = path.join(WORK, 'users');
  fs.rmSync(users, { force: true });
  writeUser(users, USER, await hashPassword(PASSWORD));
  const entry = values.main
    ? [values.main]
    : ['--import', 'tsx', path.join(PROJECT_ROOT, 'src', 'main.ts')];
  const child: ChildProcess = spawn(process.execPath, entry, {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      ...AS_DEPLOYED,
      PORT: String(PORT),
      HOST,
      LOG_LEVEL: 'warn',
      DUMPS_DIR: benchDumps(),
      DATASET: path.resolve(values.snapshot!),
      SPARQL_USERS: users,
      SPARQL_TIMEOUT_MS: values.timeout,
      SPARQL_PER_USER: String(STAFF_CLIENTS),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  process.on('exit', () => child.kill('SIGKILL'));
  try {
    await waitForWorkers();
    const log = (text: string) => process.stdout.write(`${text}\n`);
    log(
      `staff load: RSS of the process, endpoint on, idle: ${rssOf(child.pid!)} MB; workers: ${workerMemory(await workers())}`,
    );
    log(
      `staff load: worker CPU priority ${(await workers()).map((w) => `nice ${w.priority} policy ${w.policy}`).join(', ')} (the HTTP thread: nice 0, policy other)`,
    );

    // Example queries first, on idle workers: the median of five runs each.
    for (const example of values['skip-examples'] ? [] : loadExamples()) {
      const times: number[] = [];
      let rows = '';
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        const res = await fetch(`${BASE}/sparql`, {
          method: 'POST',
          headers: {
            Authorization: AUTH,
            'Content-Type': 'application/sparql-query',
            Accept:
              'text/tab-separated-values, application/n-triples;q=0.9, application/sparql-results+json;q=0.8',
          },
          body: example.text,
        });
        const text = await res.text();
        times.push(performance.now() - started);
        rows = `${res.status}, ${Math.max(0, text.split('\n').filter((l) => l !== '').length - (res.headers.get('content-type')!.startsWith('text/tab') ? 1 : 0))} lines`;
      }
      log(`staff load: example ${example.name}: median ${median(times).toFixed(1)} ms (${rows})`);
    }

    const hotFile = path.join(WORK, '..', 'run', 'hot.json');
    const hot = fs.existsSync(hotFile)
      ? ((JSON.parse(fs.readFileSync(hotFile, 'utf8')) as { paths?: string[] }).paths ?? [])
      : [];
    if (hot.length === 0) throw new Error(`no hot paths in ${hotFile}: npm run bench writes them`);
    for (const p of hot) await fetch(`${BASE}${p}`).then((r) => r.arrayBuffer());
    await drive(hot, 2);
    const alone: Result[] = [];
    const loaded: Result[] = [];
    let staffSent = 0;
    const staffStatuses = new Map<number, number>();
    for (let turn = 1; turn <= TURNS; turn++) {
      alone.push(await drive(hot, DURATION));
      const load = staffLoad();
      await sleep(500);
      loaded.push(await drive(hot, DURATION));
      const { sent, statuses } = await load.stop();
      staffSent += sent;
      for (const [s, n] of statuses) staffStatuses.set(s, (staffStatuses.get(s) ?? 0) + n);
      log(
        `staff load: turn ${turn}: alone ${Math.round(alone.at(-1)!.rps)} req/s p99 ${alone.at(-1)!.p99.toFixed(1)} ms; with staff load ${Math.round(loaded.at(-1)!.rps)} req/s p99 ${loaded.at(-1)!.p99.toFixed(1)} ms`,
      );
      // Let the workers a time-out replaced load again before the next turn alone.
      await waitForWorkers();
    }
    const p99Ratio = median(loaded.map((r) => r.p99)) / median(alone.map((r) => r.p99));
    const rpsRatio = median(loaded.map((r) => r.rps)) / median(alone.map((r) => r.rps));
    log(
      `staff load: staff queries sent ${staffSent}, answered ${[...staffStatuses].map(([s, n]) => `${n} × ${s}`).join(', ')}`,
    );
    log(
      `staff load: RSS of the process after the staff load: ${rssOf(child.pid!)} MB; workers: ${workerMemory(await workers())}`,
    );
    log(
      `staff load: errors alone ${alone.reduce((n, r) => n + r.errors, 0)}, with staff ${loaded.reduce((n, r) => n + r.errors, 0)}`,
    );
    log(
      `staff load: public p99 with / without: ${p99Ratio.toFixed(2)} (medians of ${TURNS} turns, SPARQL_TIMEOUT_MS ${values.timeout}; goal ≤ 1.3)`,
    );
    log(
      `staff load: public req/s with / without: ${rpsRatio.toFixed(2)} (SPARQL_TIMEOUT_MS ${values.timeout}; goal ≥ 0.8)`,
    );
  } finally {
    child.kill('SIGKILL');
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`staff load failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
