// Bench of search and reconciliation under hostile clients: what a bystander sees while
// one client floods search, two loop big reconciliation batches, or eight export CSVs. It starts
// the server from this worktree on generated data (17,000 institutions) on 127.0.0.1, and gives
// each client an address of its own on the loopback (127.0.0.2 and up), as the service tells
// clients apart by address. Run: `npx tsx test/bench/searchFlood.ts` (35 s of floods, after the
// server's start).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/util/paths';
import { AS_DEPLOYED } from './drivers';

const HOST = '127.0.0.1';
const PORT = Number(process.env.BENCH_PORT ?? 18391);
const COUNT = 17_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every kind and town the generator names: a query of a dozen common words, about 100 ms. */
export const HEAVY_QUERY =
  'Stadtbibliothek Universitätsbibliothek Landesbibliothek Kreisarchiv Stadtmuseum Hochschulbibliothek ' +
  'Forschungsbibliothek Kunstmuseum Müllerstadt Großbrück Österhausen Testhausen Musterbach';

interface Answer {
  readonly status: number;
  readonly ms: number;
  readonly body: string;
  readonly headers: http.IncomingHttpHeaders;
}

/** One request from `from` (a loopback address), on a connection of its own; 0 when it failed. */
export function ask(
  port: number,
  from: string,
  pathAndQuery: string,
  options: {
    method?: string;
    body?: string;
    hangUpMs?: number;
    timeoutMs?: number;
    /** Count the body's bytes only: decoding megabytes would stall this process's probe. */
    discard?: boolean;
  } = {},
): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const done = (status: number, body = '', headers: http.IncomingHttpHeaders = {}) =>
      resolve({ status, ms: performance.now() - started, body, headers });
    const headers: Record<string, string> = options.body
      ? { 'Content-Type': 'application/x-www-form-urlencoded' }
      : {};
    const req = http.request(
      {
        host: HOST,
        port,
        path: pathAndQuery,
        method: options.method ?? 'GET',
        localAddress: from,
        agent: false,
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => (options.discard ? undefined : chunks.push(c)));
        res.on('end', () =>
          done(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'), res.headers),
        );
        res.on('error', () => done(0));
      },
    );
    req.on('error', () => done(0));
    const hangUp = options.hangUpMs ?? options.timeoutMs ?? 30_000;
    req.setTimeout(hangUp, () => req.destroy());
    req.end(options.body);
  });
}

/** The value at quantile `q` of `xs` (nearest rank). */
export function quantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
}

/** Calls `each` one request after the other from `from` until `until()` says stop. */
async function loop(until: () => boolean, each: () => Promise<void>, pauseMs = 0): Promise<void> {
  while (!until()) {
    await each();
    if (pauseMs > 0) await sleep(pauseMs);
  }
}

export interface Bystander {
  readonly tries: number;
  readonly ok: number;
  readonly withinSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

function bystander(answers: readonly Answer[]): Bystander {
  const ms = answers.map((a) => a.ms);
  return {
    tries: answers.length,
    ok: answers.filter((a) => a.status === 200).length,
    withinSecond: answers.filter((a) => a.status === 200 && a.ms <= 1000).length,
    p50: Math.round(quantile(ms, 0.5)),
    p99: Math.round(quantile(ms, 0.99)),
    max: Math.round(Math.max(...ms)),
  };
}

/**
 * A flood: `count` heavy searches sent over `seconds` from 127.0.0.1, each on its own connection
 * hung up `hangUpMs` after it was sent, while 127.0.0.2 searches as a person would (one search,
 * then 100 ms); the bystander is watched for `seconds + tailSeconds`.
 */
export async function searchFlood(
  port: number,
  options: { count?: number; seconds?: number; hangUpMs?: number; tailSeconds?: number } = {},
): Promise<{ flood: Map<number, number>; bystander: Bystander }> {
  const count = options.count ?? 900;
  const seconds = options.seconds ?? 5;
  const hangUpMs = options.hangUpMs ?? 300;
  const heavy = `/search?format=json&size=100&q=${encodeURIComponent(HEAVY_QUERY)}`;
  const flood = new Map<number, number>();
  const sent: Promise<void>[] = [];
  const started = performance.now();
  const sending = (async () => {
    for (let i = 0; i < count; i++) {
      const due = started + (i * seconds * 1000) / count;
      if (due > performance.now()) await sleep(due - performance.now());
      sent.push(
        ask(port, '127.0.0.1', `${heavy}&n=${i}`, { hangUpMs }).then((a) => {
          flood.set(a.status, (flood.get(a.status) ?? 0) + 1);
        }),
      );
    }
  })();
  const end = started + (seconds + (options.tailSeconds ?? 4)) * 1000;
  const answers: Answer[] = [];
  await loop(
    () => performance.now() > end,
    async () => {
      answers.push(
        await ask(port, '127.0.0.2', '/search?format=json&q=Stadtbibliothek%20M%C3%BCllerstadt', {
          timeoutMs: 10_000,
        }),
      );
    },
    100,
  );
  await sending;
  await Promise.all(sent);
  return { flood, bystander: bystander(answers) };
}

/** A form body of `n` reconciliation queries, each a long name. */
export function batchBody(n: number, seed = 0): string {
  const queries: Record<string, { query: string }> = {};
  for (let i = 0; i < n; i++) queries[`q${i}`] = { query: `${HEAVY_QUERY} ${seed + i}` };
  return `queries=${encodeURIComponent(JSON.stringify(queries))}`;
}

/**
 * Big batches: 127.0.0.3 and 127.0.0.4 each loop batches of `batch` queries for `seconds`, while 127.0.0.2
 * asks one query, then waits 200 ms.
 */
export async function reconcileFlood(
  port: number,
  seconds = 6,
  batch = 100,
  heavyTimeoutMs = 8_000,
): Promise<{ heavy: Map<number, number>; bystander: Bystander }> {
  const end = performance.now() + seconds * 1000;
  const stop = () => performance.now() > end;
  const heavy = new Map<number, number>();
  const heavyClient = (from: string) =>
    loop(stop, async () => {
      const a = await ask(port, from, '/reconcile', {
        method: 'POST',
        body: batchBody(batch),
        timeoutMs: heavyTimeoutMs,
      });
      heavy.set(a.status, (heavy.get(a.status) ?? 0) + 1);
      // A 503 or 429 says to come back: a looping client comes back at once. One that waited
      // `heavyTimeoutMs` hangs up (0).
    });
  const answers: Answer[] = [];
  const light = loop(
    stop,
    async () => {
      answers.push(
        await ask(port, '127.0.0.2', '/reconcile', {
          method: 'POST',
          body: `queries=${encodeURIComponent(JSON.stringify({ q0: { query: 'Stadtbibliothek Müllerstadt' } }))}`,
          timeoutMs: 10_000,
        }),
      );
    },
    200,
  );
  await Promise.all([heavyClient('127.0.0.3'), heavyClient('127.0.0.4'), light]);
  return { heavy, bystander: bystander(answers) };
}

/** A cached document asked for every 50 ms for `seconds`: the latencies. */
async function probe(port: number, pathAndQuery: string, seconds: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const end = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  while (performance.now() < end) {
    const t = performance.now();
    await new Promise<void>((resolve) => {
      const req = http.get({ host: HOST, port, path: pathAndQuery, agent }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', () => resolve());
    });
    latencies.push(performance.now() - t);
    await sleep(50);
  }
  agent.destroy();
  return latencies;
}

/**
 * CSV exports: the p99 of a cached document asked for every 50 ms, idle and while `connections`
 * connections export 10,000-row CSVs one after the other.
 */
export async function csvFlood(
  port: number,
  document: string,
  options: { seconds?: number; connections?: number } = {},
): Promise<{ idleP99: number; loadedP99: number; exports: number; probes: number }> {
  const seconds = options.seconds ?? 4;
  await probe(port, document, 1);
  const idle = await probe(port, document, seconds);
  const end = performance.now() + seconds * 1000;
  let exports = 0;
  const exporters = Array.from({ length: options.connections ?? 8 }, (_, c) =>
    loop(
      () => performance.now() > end,
      async () => {
        const a = await ask(port, `127.0.0.${10 + c}`, `/search?format=csv&size=10000&q=`, {
          discard: true,
        });
        if (a.status === 200) exports++;
      },
    ),
  );
  const loaded = await probe(port, document, seconds);
  await Promise.all(exporters);
  return {
    idleP99: Math.round(quantile(idle, 0.99) * 10) / 10,
    loadedP99: Math.round(quantile(loaded, 0.99) * 10) / 10,
    exports,
    probes: loaded.length,
  };
}

/** Waits until the server answers searches. */
async function searchReady(port: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const a = await ask(port, '127.0.0.1', '/search?format=json&q=Stadtbibliothek', {
      timeoutMs: 2000,
    });
    if (a.status === 200) return;
    await sleep(250);
  }
  throw new Error('the server never answered a search');
}

const counts = (m: Map<number, number>) =>
  [...m]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'isil-ld-searchflood-'));
  const snapshot = path.join(work, 'dataset.nq');
  const generated = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli', 'generate.ts')].concat([
      '--count',
      String(COUNT),
      '--format',
      'snapshot',
      '--out',
      snapshot,
      '--quiet',
    ]),
    { stdio: 'inherit' },
  );
  if (generated.status !== 0) throw new Error('generate failed');
  const server = spawn(
    process.execPath,
    // SERVER_ROOT: another checkout's server (the code before a change), on the same data.
    ['--import', 'tsx', path.join(process.env.SERVER_ROOT ?? PROJECT_ROOT, 'src', 'main.ts')],
    {
      env: {
        ...process.env,
        HOST,
        PORT: String(PORT),
        DATASET: snapshot,
        DUMPS_DIR: '',
        LOG_LEVEL: 'warn',
        ...AS_DEPLOYED,
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  try {
    await searchReady(PORT);
    const hit = JSON.parse(
      (await ask(PORT, '127.0.0.1', '/search?format=json&q=Stadtbibliothek')).body,
    ) as { hits: { isil: string }[] };
    const document = `/data/organisations/${hit.hits[0]!.isil}.ttl`;
    const csv = await csvFlood(PORT, document);
    console.log(
      `CSV exports, 8 connections exporting 10,000-row CSVs: document probe p99 ${csv.idleP99} ms idle, ` +
        `${csv.loadedP99} ms under load (${(csv.loadedP99 / csv.idleP99).toFixed(1)}×; ` +
        `${csv.exports} exports, ${csv.probes} probes)`,
    );
    const rec = await reconcileFlood(PORT);
    console.log(
      `big batches, two clients looping 100-query batches (${counts(rec.heavy)}): a one-query client ` +
        `answered ${rec.bystander.ok} of ${rec.bystander.tries}, p50 ${rec.bystander.p50} ms, ` +
        `p99 ${rec.bystander.p99} ms`,
    );
    const flood = await searchFlood(PORT);
    console.log(
      `search flood, 900 heavy searches in 5 s hung up after 0.3 s (${counts(flood.flood)}): a person's ` +
        `search answered ${flood.bystander.ok} of ${flood.bystander.tries}, within 1 s ` +
        `${flood.bystander.withinSecond}, p50 ${flood.bystander.p50} ms, p99 ${flood.bystander.p99} ms, ` +
        `max ${flood.bystander.max} ms`,
    );
  } finally {
    server.kill('SIGTERM');
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
