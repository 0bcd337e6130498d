// The change feed's step of `npm run bench` (budget: 15 minutes): a registry with a past served by a
// real server process, then its feed's pages per second uncached (every request a page made anew)
// and cached (one page at 50 connections), and a replay of the whole feed by the reference client's
// command line: its time, members per second, and the memory of both processes.
//
// The history is 100 versions of `--count` generated institutions, 1% changed in each, by the
// generator where it has `--history`, else five versions written by the loader's commit step
// (test/support/history.ts); `--dataset` and `--history-dir` serve a history made elsewhere.
// Run alone: `node --import tsx test/bench/feed.ts [--count 17000] [--duration 10]`.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { PROJECT_ROOT } from '../../src/util/paths';
import { HISTORY_BASE, registryVersions, writeHistory } from '../support/history';
import { serverEnv, tempDir } from '../support';
import { MAIN } from '../support/serverProcess';
import { rssOf } from './hardening';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '17000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    dataset: { type: 'string' },
    'history-dir': { type: 'string' },
  },
});
const COUNT = Number(values.count);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
/** The step's time budget: past it, it stops and says so. */
const BUDGET_MS = 15 * 60_000;
const CLI = path.join(PROJECT_ROOT, 'node_modules', 'ldes-client', 'dist', 'bin', 'cli.js');

const log = (line: string) => process.stdout.write(`${line}\n`);
const started = Date.now();
/** The replay under way: when it started and the members the client has said it got. */
const replaying = { started: 0, members: 0 };
const budget = setTimeout(() => {
  const seconds = (Date.now() - replaying.started) / 1000;
  const partial = replaying.started
    ? `; the replay had ${replaying.members} members after ${seconds.toFixed(0)} s (${Math.round(replaying.members / seconds)}/s)`
    : '';
  log(`| feed step | over its budget of ${BUDGET_MS / 60_000} minutes: stopped${partial} | | |`);
  process.exit(1);
}, BUDGET_MS);
budget.unref();

/** The paths of the feed's pages, from its root's relations (the N-Triples of the root). */
async function pagePaths(origin: string): Promise<string[]> {
  const root = await (
    await fetch(`${origin}/feed`, { headers: { accept: 'application/n-triples' } })
  ).text();
  const paths = [...root.matchAll(/<https?:\/\/[^/>]+(\/feed\/[^>]+)>/g)].map((m) => m[1]!);
  return [...new Set(paths)];
}

/** A free local port. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = http.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The server, logging warnings only (no access log beside the figures), once `/readyz` is 200. */
async function startServer(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: serverEnv({ ...env, PORT: String(port), LOG_LEVEL: 'warn' }),
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  process.once('exit', () => child.kill('SIGKILL'));
  for (let i = 0; i < 3000; i++) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) return { child, port };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the server was not ready within 300 s');
}

/** Asks `next()`'s pages for `ms` at `concurrency`, each a GET on one kept-alive connection. */
async function drive(
  port: number,
  concurrency: number,
  ms: number,
  next: (i: number) => { path: string; headers: Record<string, string> },
): Promise<{ requests: number; statuses: Map<number, number>; p99: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const until = Date.now() + ms;
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let i = 0;
  const worker = async () => {
    while (Date.now() < until) {
      const ask = next(i++);
      const t = performance.now();
      const status = await new Promise<number>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, agent, ...ask }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          })
          .on('error', reject);
      });
      latencies.push(performance.now() - t);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    statuses,
    p99: latencies[Math.floor(latencies.length * 0.99)] ?? NaN,
  };
}

/** Runs the reference client's command line over the whole feed: its time, members, peak RSS. */
function replay(url: string): Promise<{ ms: number; members: number; peakRss: number }> {
  return new Promise((resolve, reject) => {
    const t = Date.now();
    replaying.started = t;
    const child = spawn(process.execPath, [CLI, '-q', url], {
      env: { ...process.env, LOG_LEVEL: 'verbose' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    process.once('exit', () => child.kill('SIGKILL'));
    let output = '';
    const read = (chunk: Buffer) => {
      // Its verbose log says every hundredth member ("Got member number N"); the rest is dropped.
      const text = chunk.toString();
      for (const m of text.matchAll(/Got member number (\d+)/g)) replaying.members = Number(m[1]);
      output = (output + text).slice(-4000);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    let peakRss = 0;
    const poll = setInterval(() => {
      try {
        peakRss = Math.max(peakRss, rssOf(child.pid!));
      } catch {
        // exited between two polls
      }
    }, 100);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearInterval(poll);
      const found = /Found (\d+) members in (\d+) fragments/.exec(output);
      if (code !== 0 || !found)
        reject(new Error(`ldes-client exited ${code}: ${output.slice(-800)}`));
      else resolve({ ms: Date.now() - t, members: Number(found[1]), peakRss });
    });
  });
}

/**
 * The history served: 100 versions, 1% of the institutions changed in each, by the generator
 * (`npm run generate -- --history 100 --change 0.01`) where it has `--history`; else five versions
 * written by the loader's commit step (test/support/history.ts).
 */
async function makeHistory(): Promise<{ dataset: string; historyDir: string }> {
  const generator = path.join(PROJECT_ROOT, 'cli', 'generate.ts');
  if (!fs.readFileSync(generator, 'utf8').includes("history: { type: 'string' }"))
    return writeHistory(registryVersions(COUNT));
  const dir = tempDir();
  const dataset = path.join(dir, 'dataset.nq');
  const historyDir = path.join(dir, 'history');
  const generated = spawnSync(
    process.execPath,
    [
      ...['--import', 'tsx', generator, '--history', '100', '--change', '0.01'],
      ...['--count', String(COUNT), '--out', dataset, '--history-dir', historyDir, '--quiet'],
    ],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  if (generated.status !== 0) throw new Error(`generate --history failed: ${generated.stderr}`);
  return { dataset, historyDir };
}

async function main(): Promise<void> {
  let dataset = values.dataset;
  let historyDir = values['history-dir'];
  let described = `the history given, ${historyDir}`;
  if (!dataset || !historyDir) {
    const made = Date.now();
    ({ dataset, historyDir } = await makeHistory());
    described = `${COUNT} generated institutions`;
    log(`feed: ${described}, its history written in ${((Date.now() - made) / 1000).toFixed(0)} s`);
  }
  const server = await startServer({
    DATASET: dataset,
    HISTORY_DIR: historyDir,
    BASE_IRI: HISTORY_BASE,
  });
  try {
    const origin = `http://127.0.0.1:${server.port}`;
    const paths = await pagePaths(origin);
    const idleRss = rssOf(server.child.pid!);
    const full = paths[0]!;

    // Uncached: every request a page made anew (N-Quads name the host asked, which is in the key).
    const uncached = await drive(server.port, 2, DURATION * 1000, (i) => ({
      path: paths[i % paths.length]!,
      headers: { accept: 'application/n-quads', host: `u${i}.bench` },
    }));
    const uncachedRss = rssOf(server.child.pid!);

    // Cached: one full page in TriG at 50 connections, after it was made once.
    await fetch(`${origin}${full}`, { headers: { accept: 'application/trig' } });
    const cached = await autocannon({
      url: `${origin}${full}`,
      connections: CONNECTIONS,
      duration: DURATION,
      headers: { accept: 'application/trig' },
    });

    const per = (n: number, ms: number) => Math.round((n * 1000) / ms);
    const statuses = [...uncached.statuses].map(([s, n]) => `${n} × ${s}`).join(', ');
    const versions = new Set(paths.map((p) => p.split('/')[2])).size;
    log(`| feed (${paths.length} pages, ${versions} versions; ${described}) | value | target | |`);
    log(
      `| feed pages/s uncached (2 at a time, ${statuses}; p99) | ${per(uncached.requests, DURATION * 1000)} (${uncached.p99.toFixed(0)} ms) | | |`,
    );
    log(
      `| feed pages/s cached (${CONNECTIONS} connections, ${cached.non2xx} not 200; p99) | ${Math.round(cached.requests.average)} (${cached.latency.p99} ms) | | |`,
    );
    const before = rssOf(server.child.pid!);
    let peakServer = before;
    const poll = setInterval(
      () => (peakServer = Math.max(peakServer, rssOf(server.child.pid!))),
      100,
    );
    const client = await replay(`${origin}/feed`);
    clearInterval(poll);

    log(
      `| ldes-client replay of the whole feed: time, members/s | ${(client.ms / 1000).toFixed(1)} s, ${per(client.members, client.ms)} (${client.members} members) | | |`,
    );
    log(
      `| RSS: server idle → after uncached → peak during the replay; client peak | ${idleRss} → ${uncachedRss} → ${peakServer} MB; ${client.peakRss} MB | | |`,
    );
    log(`feed step: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    server.child.kill();
  }
}

main()
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    process.stderr.write(`feed bench failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
