// The search-for-machines step of `npm run bench`. In process, on the bundled 18,672
// institutions: fielded queries of four shapes (parsed, then searched) against plain queries of
// the same two words of a name, p50 and p99. Over HTTP, the real server: the GeoJSON and JSON Lines exports of every
// institution, of the bundled set and of 100,000 generated ones (a snapshot written by
// `generate --format snapshot`, loaded by the server): time, bytes, and the server's RSS before and
// at its peak during the export; then `extend` of 100 ISILs × 10 properties. A snapshot larger than
// the embedded store reads (100,000 generated institutions are 692 MiB, MAX_SNAPSHOT_BYTES 512 MiB)
// is loaded into Virtuoso by `npm run load` and served with STORE=remote.
// Run alone: `node --expose-gc --import tsx test/bench/searchMachines.ts [--count 100000]`.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadSources } from '../../src/load/loadSources';
import type { FlatRecord } from '../../src/record/flatRecord';
import { words } from '../../src/search/fold';
import { parseQuery } from '../../src/search/query';
import { readRecords } from '../../src/record/readRecords';
import { SearchIndex } from '../../src/search/searchIndex';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { PROJECT_ROOT } from '../../src/util/paths';
import { BASE } from '../support';
import { AS_DEPLOYED, thirdPartyForBench } from './drivers';
import { rssOf } from './hardening';
import { MAX_SNAPSHOT_BYTES } from '../../src/load/snapshot/snapshot';
import { startVirtuoso } from '../servers/virtuoso';

const { values } = parseArgs({ options: { count: { type: 'string', default: '100000' } } });
const COUNT = Number(values.count);
const WORK = path.join(PROJECT_ROOT, '.bench', 'search-machines');

const pct = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
const µs = (times: readonly number[]) =>
  `p50 ${pct(times, 50).toFixed(0)} µs, p99 ${pct(times, 99).toFixed(0)} µs`;

/** Each query's time in µs, sorted, after a warm-up of the first 200. */
function timeEach(queries: readonly string[], run: (q: string) => unknown): number[] {
  for (const q of queries.slice(0, 200)) run(q);
  return queries
    .map((q) => {
      const t = performance.now();
      run(q);
      return (performance.now() - t) * 1000;
    })
    .sort((a, b) => a - b);
}

/** The fielded shapes measured, each made of two words `a`, `b` of a name. */
const SHAPES: readonly [string, (a: string, b: string) => string][] = [
  ['name:"a b"', (a, b) => `name:"${a} ${b}"`],
  ['name:a AND b', (a, b) => `name:${a} AND ${b}`],
  ['name:a type:library', (a) => `name:${a} type:library`],
  ['(a OR b) -type:museum', (a, b) => `(${a} OR ${b}) -type:museum`],
];

/** 1,000 pairs of words from the names (three letters or more), the same for every shape. */
function wordPairs(entries: readonly FlatRecord[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; pairs.length < 1000; i++) {
    const w = words(entries[(i * 7919) % entries.length]!.name).filter((x) => x.length > 2);
    if (w.length >= 2) pairs.push([w[0]!, w[1]!]);
  }
  return pairs;
}

async function fieldedAgainstPlain(): Promise<void> {
  const { dataset } = await loadSources([...BUNDLED_DATASET], { baseIri: BASE });
  const entries: FlatRecord[] = [];
  await readRecords(dataset, (batch) => void entries.push(...batch));
  const index = await SearchIndex.build(dataset.version, entries);
  dataset.free();
  const pairs = wordPairs(entries);
  const plain = timeEach(
    pairs.map(([a, b]) => `${a} ${b}`),
    (q) => index.search({ q, limit: 20 }),
  );
  const shapes = SHAPES.map(([label, make]) => {
    const times = timeEach(
      pairs.map(([a, b]) => make(a, b)),
      (q) => {
        const parsed = parseQuery(q);
        return index.search({ q, ...(parsed ? { fielded: parsed } : {}), limit: 20 });
      },
    );
    return `${label} ${µs(times)} (p50 ${(pct(times, 50) / pct(plain, 50)).toFixed(2)}×, p99 ${(pct(times, 99) / pct(plain, 99)).toFixed(2)}×)`;
  });
  console.log(
    `fielded queries, the index's own time with parsing, 1,000 word pairs of the bundled ${index.size} institutions' names: plain "a b" ${µs(plain)}; ${shapes.join('; ')}`,
  );
}

function server(port: number, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join('src', 'main.ts')], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      ...AS_DEPLOYED,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DUMPS_DIR: '',
      HISTORY_DIR: '',
      ...env,
    },
    stdio: 'ignore',
  });
}

async function searchReady(base: string, minutes: number): Promise<void> {
  const until = Date.now() + minutes * 60_000;
  while (Date.now() < until) {
    try {
      const res = await fetch(`${base}/readyz`);
      if (res.ok && ((await res.json()) as { search?: string }).search === 'ready') return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${base}: search not ready after ${minutes} minutes`);
}

/** One export read whole: its time, bytes and the server's RSS before and at its peak. */
async function exported(base: string, pid: number, format: string, gzip = false) {
  global.gc?.();
  const before = rssOf(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20);
  const started = performance.now();
  // node:http, not fetch, which would count the bytes after undoing the gzip.
  const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
    http
      .get(
        `${base}/search?format=${format}`,
        { headers: { 'Accept-Encoding': gzip ? 'gzip' : 'identity' } },
        resolve,
      )
      .on('error', reject),
  );
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (!gzip) for (const byte of chunk) if (byte === 10) lines++;
  }
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, rssOf(pid));
  return `${format}${gzip ? ' (gzip)' : ''}: ${(ms / 1000).toFixed(2)} s, ${(bytes / 1e6).toFixed(1)} MB${gzip ? '' : `, ${lines.toLocaleString('en')} lines`}, RSS ${before} MB before, ${peak} MB at its peak`;
}

async function exportsOf(
  label: string,
  env: Record<string, string>,
  port: number,
  extend: boolean,
) {
  const child = server(port, env);
  const base = `http://127.0.0.1:${port}`;
  try {
    const started = Date.now();
    await searchReady(base, 30);
    console.log(
      `${label}: server up, search index ready in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    const figures = [];
    for (const [format, gzip] of [
      ['jsonl', false],
      ['jsonl', true],
      ['geojson', false],
    ] as const)
      figures.push(await exported(base, child.pid!, format, gzip));
    console.log(`export of ${label}: ${figures.join('; ')}`);
    if (extend) await extendFigure(base);
  } finally {
    child.kill('SIGKILL');
  }
}

/** `extend` of 100 ISILs × 10 properties, as OpenRefine POSTs it, 20 times: the median. */
async function extendFigure(base: string): Promise<void> {
  const res = await fetch(`${base}/search?format=jsonl&fields=isil&q=bibliothek`);
  const ids = (await res.text())
    .split('\n')
    .filter(Boolean)
    .slice(0, 100)
    .map((l) => (JSON.parse(l) as { isil: string }).isil);
  const properties = ['isil', 'name', 'city', 'postcode', 'street', 'coordinates', 'homepage']
    .concat(['type', 'wikidata', 'gnd'])
    .map((id) => ({ id }));
  const body = new URLSearchParams({ extend: JSON.stringify({ ids, properties }) }).toString();
  const times: number[] = [];
  for (let i = 0; i < 21; i++) {
    const started = performance.now();
    const answer = await fetch(`${base}/reconcile`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
    });
    await answer.text();
    if (i > 0) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  console.log(
    `extend of ${ids.length} ISILs × ${properties.length} properties over HTTP: median ${pct(times, 50).toFixed(1)} ms, worst ${times.at(-1)!.toFixed(1)} ms (20 runs)`,
  );
}

/** The exports of a snapshot too large for the embedded store, served from Virtuoso. */
async function remotely(snapshot: string, label: string, port: number): Promise<void> {
  const virtuoso = await startVirtuoso(300_000, 60, 200_000);
  try {
    const started = Date.now();
    const load = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join('cli', 'loadCommand.ts')].concat([
        '--quiet',
        '--virtuoso-bulk',
        virtuoso.dir,
        snapshot,
      ]),
      {
        cwd: PROJECT_ROOT,
        encoding: 'utf8',
        env: {
          ...process.env,
          STORE: 'remote',
          SPARQL_ENDPOINT: virtuoso.endpoint,
          VIRTUOSO_ISQL: String(virtuoso.sqlPort),
          VIRTUOSO_PASSWORD: 'dba',
        },
      },
    );
    if (load.status !== 0) throw new Error(`npm run load failed: ${load.stderr}`);
    console.log(
      `${label}: loaded into Virtuoso in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    await exportsOf(
      `${label} (STORE=remote, Virtuoso)`,
      {
        DATASET: '',
        STORE: 'remote',
        SPARQL_ENDPOINT: virtuoso.endpoint,
        STORE_TIMEOUT_MS: '60000',
      },
      port,
      false,
    );
  } finally {
    await virtuoso.stop();
  }
}

export async function searchMachinesBench(): Promise<void> {
  await fieldedAgainstPlain();
  const port = 19000 + (process.pid % 1000);
  await exportsOf('the bundled 18,672 institutions', { DATASET: '' }, port, true);
  if (COUNT > 0) {
    fs.mkdirSync(WORK, { recursive: true });
    const snapshot = path.join(WORK, `generated-${COUNT}.nq`);
    if (!fs.existsSync(snapshot)) {
      const made = spawnSync(
        process.execPath,
        ['--import', 'tsx', path.join('cli', 'generate.ts')].concat([
          '--count',
          String(COUNT),
          '--format',
          'snapshot',
          '--out',
          snapshot,
          '--quiet',
        ]),
        { cwd: PROJECT_ROOT, encoding: 'utf8' },
      );
      if (made.status !== 0) throw new Error(`generate failed: ${made.stderr}`);
    }
    const label = `${COUNT.toLocaleString('en')} generated institutions`;
    if (fs.statSync(snapshot).size <= MAX_SNAPSHOT_BYTES)
      await exportsOf(label, { DATASET: snapshot }, port + 1, false);
    else await remotely(snapshot, label, port + 1);
  }
}

if (require.main === module) void thirdPartyForBench().then(searchMachinesBench);
