// What the past costs to serve (a script, not a test; about 2 minutes): a server process over the
// generated snapshot of 17,000 institutions, whose one-version history is derived, answers by turns
// (mirrored order, 3 turns of 5 s, 50 connections) cached current `.ttl` documents, their cached
// mementos and their TimeMaps; then, with the cache off, uncached documents and mementos. Prints
// each rate and the memento's against the current document's (goal for the cached: ≥ 0.8×).
//   npx tsx test/bench/memento.ts [--count 17000] [--seconds 5] [--turns 3]
import { parseArgs } from 'node:util';
import { generatedSnapshot, startServerProcess } from '../support/serverProcess';
import { AS_DEPLOYED, driveAutocannon, type Result, type Target } from './drivers';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '17000' },
    seconds: { type: 'string', default: '5' },
    turns: { type: 'string', default: '3' },
  },
});
const SECONDS = Number(values.seconds);
const TURNS = Number(values.turns);
const CONNECTIONS = 50;
/** Institutions asked for: every one's documents fit in the cache. */
const SAMPLE = 500;

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The rates of `cases` measured by turns, in mirrored order (a b, b a, a b, …). */
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

async function serve(cacheMaxBytes: string) {
  const server = await startServerProcess({
    env: {
      ...AS_DEPLOYED,
      DATASET: generatedSnapshot(Number(values.count)),
      CACHE_MAX_BYTES: cacheMaxBytes,
    },
  });
  const base = `http://127.0.0.1:${server.port}`;
  const sitemap = await (await fetch(`${base}/sitemaps/1.xml`)).text();
  const isils = [...sitemap.matchAll(/\/isil\/([^<]+)<\/loc>/g)].map((m) => m[1]!);
  const step = Math.max(1, Math.floor(isils.length / SAMPLE));
  const sample = isils.filter((_, i) => i % step === 0).slice(0, SAMPLE);
  const documents = sample.map((isil) => ({ path: `/data/organisations/${isil}.ttl` }));
  const gate = await fetch(`${base}/timegate${documents[0]!.path}`, { redirect: 'manual' });
  // The Location is absolute, on the origin asked.
  const location = new URL(gate.headers.get('location') ?? '/', base);
  const stamp = /^\/memento\/(\d{14})\//.exec(location.pathname)?.[1];
  if (!stamp) throw new Error('the TimeGate led to no memento');
  const mementos = documents.map((d) => ({ path: `/memento/${stamp}${d.path}` }));
  const timemaps = documents.map((d) => ({ path: `/timemap${d.path}` }));
  return { server, base, documents, mementos, timemaps };
}

function report(results: Map<string, Result[]>, against: string): void {
  const reference = median(results.get(against)!.map((r) => r.rps));
  for (const [name, runs] of results) {
    const rps = median(runs.map((r) => r.rps));
    const p99 = median(runs.map((r) => r.p99));
    const ratio = name === against ? '' : ` (${(rps / reference).toFixed(2)}× ${against})`;
    console.log(
      `  ${name.padEnd(28)} ${Math.round(rps).toLocaleString('en')}/s, p99 ${p99} ms${ratio}`,
    );
  }
}

async function main(): Promise<void> {
  console.log(
    `memento: ${values.count} generated institutions, ${TURNS} turns of ${SECONDS} s, ${CONNECTIONS} connections`,
  );
  const cached = await serve(String(256 * 1024 * 1024));
  try {
    // Every document and memento asked once, so that the turns measure the cache.
    for (const t of [...cached.documents, ...cached.mementos])
      await fetch(`${cached.base}${t.path}`);
    console.log('cached (CACHE_MAX_BYTES 256 MiB):');
    report(
      await byTurns(cached.base, {
        'current .ttl': cached.documents,
        'memento .ttl': cached.mementos,
        'TimeMap (link-format)': cached.timemaps,
      }),
      'current .ttl',
    );
  } finally {
    cached.server.child.kill('SIGTERM');
    await cached.server.exit;
  }
  const uncached = await serve('0');
  try {
    console.log('uncached (CACHE_MAX_BYTES 0):');
    report(
      await byTurns(uncached.base, {
        'current .ttl': uncached.documents,
        'memento .ttl': uncached.mementos,
      }),
      'current .ttl',
    );
  } finally {
    uncached.server.child.kill('SIGTERM');
    await uncached.server.exit;
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
