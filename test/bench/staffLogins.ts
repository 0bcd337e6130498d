// Concurrent wrong logins at the staff endpoint (a script, not a test): a real server on a
// generated snapshot with its dumps made; 300 wrong logins from one address sent at once while a
// bystander asks for one byte of a dump every 50 ms. Prints the bystander's latency idle and during
// the logins, and how many logins were checked (401) or refused at once (429); the same 300
// requests without credentials (the floor: connections and routing alone), and spread over 100
// source addresses; and the bystander while a login makes the server look at a credentials
// file grown to 303 MB, with the server's RSS. Alone: `npx tsx test/bench/staffLogins.ts [--logins
// 300] [--main FILE]`.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateSnapshot } from '../../cli/generate';
import { hashPassword, writeUser } from '../../src/http/sparql/users';
import { PROJECT_ROOT } from '../../src/util/paths';
import { floodWhileProbing, getOnce, type Flood } from '../staffSupport';
import { rssOf } from './hardening';

const { values } = parseArgs({
  options: {
    logins: { type: 'string', default: '300' },
    /** The source addresses of the spread flood (127.0.0.2 on), at most 250. */
    addresses: { type: 'string', default: '100' },
    count: { type: 'string', default: '500' },
    /** The server's entry, run through tsx: this worktree's by default. */
    main: { type: 'string', default: path.join(PROJECT_ROOT, 'src', 'main.ts') },
  },
});
const LOGINS = Number(values.logins);
const ADDRESSES = Math.min(250, Number(values.addresses));
const HOST = '127.0.0.1';
const PORT = 18093;
const BASE = `http://${HOST}:${PORT}`;
const WORK = path.join(PROJECT_ROOT, '.bench', 'staffLogins');
const PROBE_EVERY_MS = 50;
const PASSWORD = 'the password of alice';
const RIGHT = `Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quantile = (xs: readonly number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
};
const figures = (xs: readonly number[]) =>
  `n=${xs.length} p50=${quantile(xs, 0.5).toFixed(1)} ms p99=${quantile(xs, 0.99).toFixed(1)} ms max=${Math.max(...xs).toFixed(1)} ms`;

async function waitUntil(what: string, ready: () => Promise<boolean>, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await ready().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`${what} not within ${ms} ms`);
}

/**
 * LOGINS requests to the staff endpoint sent at once with `authorization(i)` (none when
 * undefined), from `addresses` source addresses, while the bystander probes.
 */
async function flood(
  probe: () => Promise<{ status: number; ms: number }>,
  authorization: (i: number) => string | undefined,
  addresses = 1,
): Promise<Flood & { seconds: number }> {
  const authorizations = Array.from({ length: LOGINS }, (_, i) => authorization(i));
  const result = await floodWhileProbing(PORT, authorizations, probe, {
    addresses,
    every: PROBE_EVERY_MS,
  });
  const wrong = result.probes.find((p) => p.status !== 206);
  if (wrong) throw new Error(`the dump answered ${wrong.status}, not 206`);
  return { ...result, seconds: result.ms / 1000 };
}

async function main(): Promise<void> {
  fs.mkdirSync(WORK, { recursive: true });
  const snapshot = path.join(WORK, 'snapshot.nq');
  const count = Number(values.count);
  fs.writeFileSync(
    snapshot,
    [...generateSnapshot({ count, seed: 2, base: 'https://ld.zdb-services.de' })].join(''),
  );
  const users = path.join(WORK, 'users');
  fs.rmSync(users, { force: true });
  writeUser(users, 'alice', await hashPassword(PASSWORD));
  // Not under .bench: the dumps route refuses a path with a dot-folder in it (send's `dotfiles`).
  const dumps = fs.mkdtempSync(path.join(os.tmpdir(), 'isil-ld-bench-dumps-'));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', values.main], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      HOST,
      PORT: String(PORT),
      LOG_LEVEL: 'warn',
      DATASET: snapshot,
      DUMPS_DIR: dumps,
      SPARQL_USERS: users,
      SPARQL_WORKERS: '1',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  process.on('exit', () => child.kill('SIGKILL'));
  try {
    let dump = '';
    await waitUntil(
      'the dumps',
      async () => {
        const res = await fetch(`${BASE}/dumps/`, { headers: { Accept: 'application/json' } });
        const body = (await res.json()) as { dumps: { files: { name: string }[] }[] };
        dump = body.dumps[0]?.files[0]?.name ?? '';
        return dump !== '';
      },
      120_000,
    );
    const probe = () => getOnce(PORT, `/dumps/${dump}`, { Range: 'bytes=0-0' });
    const idle: number[] = [];
    for (let i = 0; i < 40; i++) {
      idle.push((await probe()).ms);
      await sleep(PROBE_EVERY_MS);
    }
    // The credentials file grown to 303 MB (sparse), then a login while the bystander probes.
    await sleep(1100);
    const rssBefore = rssOf(child.pid!);
    fs.truncateSync(users, 303 * 1024 * 1024);
    await sleep(1100);
    let grownDone = false;
    const grownLogin = getOnce(PORT, '/sparql?query=ASK%7B%7D', { Authorization: RIGHT }).finally(
      () => (grownDone = true),
    );
    const grown: number[] = [];
    while (!grownDone || grown.length < 10) {
      grown.push((await probe()).ms);
      await sleep(PROBE_EVERY_MS);
    }
    const grownStatus = (await grownLogin).status;
    const rssAfter = rssOf(child.pid!);
    const wrong = (i: number) => `Basic ${Buffer.from(`alice:guess ${i}`).toString('base64')}`;
    // The floor: as many requests at once on the same route without credentials (no scrypt).
    const floor = await flood(probe, () => undefined);
    const logins = await flood(probe, wrong);
    const spread = await flood(probe, wrong, ADDRESSES);
    const checked = logins.statuses[401] ?? 0;
    const counts = (m: Record<string, number>) =>
      Object.entries(m)
        .map(([s, n]) => `${n}×${s}`)
        .join(', ');
    process.stdout.write(
      [
        `server: ${values.main}`,
        `bystander, 1-byte range of a dump, idle:            ${figures(idle)}`,
        `bystander, a login while the credentials file is 303 MB: ${figures(grown)}; the login ${grownStatus}; RSS ${rssBefore} -> ${rssAfter} MB`,
        `bystander, during ${LOGINS} requests without credentials: ${figures(floor.probes.map((p) => p.ms))} (${counts(floor.statuses)} in ${floor.seconds.toFixed(2)} s)`,
        `bystander, during ${LOGINS} concurrent wrong logins:    ${figures(logins.probes.map((p) => p.ms))}`,
        `logins: ${counts(logins.statuses)} in ${logins.seconds.toFixed(2)} s; ${checked} checked by scrypt (${(checked / logins.seconds).toFixed(1)} a second)`,
        `bystander, during ${LOGINS} wrong logins from ${ADDRESSES} addresses: ${figures(spread.probes.map((p) => p.ms))}`,
        `logins: ${counts(spread.statuses)} in ${spread.seconds.toFixed(2)} s`,
        '',
      ].join('\n'),
    );
  } finally {
    child.kill('SIGKILL');
    fs.rmSync(dumps, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
