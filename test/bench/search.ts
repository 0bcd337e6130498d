// The search step of `npm run bench`. In process, on the bundled 18,672 institutions:
// the index's build time and heap, and its own time per suggestion and per search (p50, p99) over
// 10,000 prefixes a person types. Over HTTP: /search/suggest's rate at 50 connections against an
// Express baseline answering one fixed JSON body, measured in the same run. Then the index alone,
// in process, for 1,000,000 generated institutions: build time, heap, p99 per suggestion.
// Run alone: `node --expose-gc --max-old-space-size=8192 --import tsx test/bench/search.ts`.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { loadSources } from '../../src/load/loadSources';
import type { FlatRecord } from '../../src/record/flatRecord';
import { words } from '../../src/search/fold';
import { readRecords } from '../../src/record/readRecords';
import { SearchIndex } from '../../src/search/searchIndex';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { PROJECT_ROOT } from '../../src/util/paths';
import { BASE } from '../support';
import { AS_DEPLOYED, thirdPartyForBench } from './drivers';

const { values } = parseArgs({
  options: {
    million: { type: 'string', default: '1000000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
  },
});

const heapMb = () => {
  global.gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};
const pct = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;

/** 10,000 prefixes as a person types them: a name's first word(s), the last one cut short. */
function prefixes(names: readonly string[], count = 10_000): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    const w = words(names[(i * 7919) % names.length]!);
    if (w.length === 0) continue;
    const n = 1 + (i % Math.min(3, w.length));
    const typed = w.slice(0, n);
    const last = typed[n - 1]!;
    typed[n - 1] = last.slice(0, Math.max(2, Math.ceil(last.length * (0.3 + (i % 5) / 10))));
    out.push(typed.join(' '));
  }
  return out;
}

function timeEach(queries: readonly string[], run: (q: string) => unknown): number[] {
  for (const q of queries.slice(0, 500)) run(q); // warm-up
  const times = queries.map((q) => {
    const t = performance.now();
    run(q);
    return (performance.now() - t) * 1000;
  });
  return times.sort((a, b) => a - b);
}

const µs = (times: readonly number[]) =>
  `p50 ${pct(times, 50).toFixed(0)} µs, p99 ${pct(times, 99).toFixed(0)} µs`;

function node(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
}

async function ready(url: string, predicate: (body: Record<string, unknown>) => boolean) {
  for (let i = 0; i < 1200; i++) {
    try {
      const res = await fetch(url);
      if (res.ok && predicate((await res.json()) as Record<string, unknown>)) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} not ready`);
}

async function rate(url: string, paths: readonly string[]): Promise<{ rps: number; p99: number }> {
  let i = 0;
  const result = await autocannon({
    url,
    connections: Number(values.connections),
    duration: Number(values.duration),
    requests: [{ setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length]! }) }],
  });
  return { rps: result.requests.average, p99: result.latency.p99 };
}

/** 1,000,000 entries made from the bundled names' words and cities, shuffled into new names. */
function generated(names: readonly FlatRecord[], count: number): FlatRecord[] {
  const vocabulary = names.flatMap((e) => e.name.split(/\s+/)).filter((w) => w.length > 2);
  const cities = names.flatMap((e) => e.cities);
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
  return Array.from({ length: count }, (_, i) => ({
    isil: `DE-G${i}`,
    iri: `https://ld.zdb-services.de/resource/organisations/DE-G${i}`,
    name: Array.from(
      { length: 2 + (next() % 4) },
      () => vocabulary[next() % vocabulary.length],
    ).join(' '),
    otherNames: [],
    sigel: undefined,
    cities: [cities[next() % cities.length] ?? 'Berlin'],
    postcodes: [String(10000 + (next() % 89999))],
    type: undefined,
    country: 'DE',
    lat: 47 + (next() % 8000) / 1000,
    lon: 6 + (next() % 9000) / 1000,
    modified: undefined,
  }));
}

export async function searchBench(): Promise<void> {
  // In process, on the bundled dataset.
  const { dataset } = await loadSources([...BUNDLED_DATASET], { baseIri: BASE });
  const before = heapMb();
  // The index in this process, as the index's thread holds it.
  const started = Date.now();
  const entries: FlatRecord[] = [];
  await readRecords(dataset, (batch) => void entries.push(...batch));
  const index = await SearchIndex.build(dataset.version, entries);
  const report = { institutions: index.size, ms: Date.now() - started };
  const heap = heapMb() - before;
  const names = [...dataset.institutions()].map((i) => i.name ?? '');
  const typed = prefixes(names);
  const suggest = timeEach(typed, (q) => index.suggest(q, 10));
  const search = timeEach(typed.slice(0, 2000), (q) => index.search({ q, limit: 20 }));
  console.log(
    `search, ${report.institutions} bundled institutions: index built in ${report.ms} ms (descriptions read through the store port), heap ${heap.toFixed(0)} MB; suggestion ${µs(suggest)} (goal p99 ≤ 1,000 µs); search ${µs(search)}`,
  );
  dataset.free();

  // Over HTTP, against an Express baseline, in the same run.
  const port = 18000 + (process.pid % 1000);
  const server = node(['--import', 'tsx', path.join('src', 'main.ts')], {
    ...AS_DEPLOYED,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DATASET: '',
    DUMPS_DIR: '',
  });
  const body = JSON.stringify({ query: 'x', suggestions: [] });
  const baseline = node(
    [
      '-e',
      `const app = require('express')(); app.disable('x-powered-by'); app.set('etag', false);
const body = ${JSON.stringify(body)};
app.get('/*splat', (req, res) => { res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) }); res.end(body); });
app.listen(${port + 1}, '127.0.0.1');`,
    ],
    {},
  );
  try {
    await ready(`http://127.0.0.1:${port}/readyz`, (b) => b.search === 'ready');
    await ready(`http://127.0.0.1:${port + 1}/x`, () => true);
    const paths = typed.map((q) => `/search/suggest?q=${encodeURIComponent(q)}`);
    const ceiling = await rate(`http://127.0.0.1:${port + 1}`, paths);
    const ours = await rate(`http://127.0.0.1:${port}`, paths);
    console.log(
      `suggest over HTTP at ${values.connections} connections: ${ours.rps.toFixed(0)} req/s, p99 ${ours.p99} ms = ${(ours.rps / ceiling.rps).toFixed(2)}× the Express ceiling (${ceiling.rps.toFixed(0)} req/s, p99 ${ceiling.p99} ms)`,
    );
  } finally {
    server.kill('SIGKILL');
    baseline.kill('SIGKILL');
  }

  // The index alone, for a million generated institutions.
  const count = Number(values.million);
  if (count > 0) {
    const entries = generated(index.all(), count);
    const base = heapMb();
    const started = performance.now();
    const big = await SearchIndex.build('million', entries);
    const buildMs = performance.now() - started;
    const bigHeap = heapMb() - base;
    const times = timeEach(
      prefixes(
        entries.map((e) => e.name),
        10_000,
      ),
      (q) => big.suggest(q, 10),
    );
    const searches = timeEach(
      prefixes(
        entries.map((e) => e.name),
        500,
      ),
      (q) => big.search({ q, limit: 20 }),
    );
    console.log(
      `search index alone, ${count.toLocaleString('en')} generated institutions: built in ${(buildMs / 1000).toFixed(1)} s, heap ${bigHeap.toFixed(0)} MB; suggestion ${µs(times)}; search ${µs(searches)}`,
    );
  }
}

if (require.main === module) void thirdPartyForBench().then(searchBench);
