// The history under faults (a script, not a test): a server process over a generated history of
// many versions of 10 institutions, the first of them renamed by every version (`npm run generate
// -- --history` spreads its changes: no ISIL there gets more than a few dozen versions), while a bystander fetches a cached `.ttl` every 50 ms and prints its p50/p99: idle, under
// 8 connections asking for uncached page mementos of the ISIL with the most versions, and under 8
// asking for uncached `.ttl` mementos in brotli. Also the server's RSS after the page load and
// after a quiet spell, and the feed root's size. With --old DIR (a checkout of the code to compare:
// `git archive <commit> | tar -x -C DIR`, node_modules linked), the old and new code run by turns.
//   npx tsx test/bench/historyFaults.ts [--versions 10000] [--seconds 10] [--turns 2] [--old DIR]
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { FIRST_VERSION_TIME } from '../../cli/generateHistory';
import { writeGeneratedSnapshot } from '../../cli/generatedSnapshot';
import {
  canonicalDescription,
  compactStates,
  institutionHash,
  versionOf,
} from '../../src/history/canonical';
import { LOG_FILE, readLog } from '../../src/history/log';
import { LogWriter } from '../../src/history/logWriter';
import { diff, isMemento, timestamp14, type InstitutionState } from '../../src/history/model';
import { generate } from '../../src/generate/generated';
import { institutionIri } from '../../src/rdf/iris';
import type { Isil } from '../../src/rdf/isil';
import { PREFIXES } from '../../src/rdf/namespaces';
import { PROJECT_ROOT } from '../../src/util/paths';
import { freePort } from '../servers/topology';
import { AS_DEPLOYED } from './drivers';
import { median } from './historyFixture';

const { values } = parseArgs({
  options: {
    versions: { type: 'string', default: '10000' },
    seconds: { type: 'string', default: '10' },
    turns: { type: 'string', default: '2' },
    old: { type: 'string' },
  },
});
const VERSIONS = Number(values.versions);
const SECONDS = Number(values.seconds);
const TURNS = Number(values.turns);
const COUNT = 10;
const CONNECTIONS = 8;
const BYSTANDER_MS = 50;
const QUIET_MS = 15_000;
const BASE = 'https://ld.zdb-services.de';
const DIR = path.join(PROJECT_ROOT, '.bench', 'history-faults');
const log = (text: string) => process.stdout.write(`${text}\n`);

interface Fixture {
  readonly snapshot: string;
  readonly historyDir: string;
}

const XSD_STRING = `"^^<${PREFIXES.xsd}string>`;
const NAME = /(<http:\/\/xmlns\.com\/foaf\/0\.1\/name> "[^"]*)"/;

/**
 * The history of `VERSIONS` versions, written by the log's own writer as generateHistory.ts writes
 * one (the last version's snapshot naming it), made once in .bench/history-faults.
 */
function fixture(): Fixture {
  const dir = path.join(DIR, `fixture-${VERSIONS}`);
  const files = { snapshot: path.join(dir, 'dataset.nq'), historyDir: dir };
  if (fs.existsSync(path.join(dir, 'done'))) return files;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const texts = [...generate({ count: COUNT, seed: 1, base: BASE })];
  const isils = texts.map((t) => /organisations\/([^>]+)>/.exec(t)![1]!);
  const first = texts[0]!;
  const canonical = texts.map((t, i) =>
    canonicalDescription(institutionIri(BASE, isils[i]! as Isil), t.replaceAll(XSD_STRING, '"')),
  );
  const rest = institutionHash('');
  const writer = new LogWriter(dir, BASE);
  writer.acquire();
  let previous: Map<string, InstitutionState> | undefined;
  try {
    writer.prepare(undefined);
    for (let n = 1; n <= VERSIONS; n++) {
      const time = FIRST_VERSION_TIME + (n - 1) * 3600;
      if (n > 1) {
        texts[0] = first.replace(NAME, `$1 (${n})"`);
        canonical[0] = canonicalDescription(
          institutionIri(BASE, isils[0]! as Isil),
          texts[0].replaceAll(XSD_STRING, '"'),
        );
      }
      const states = new Map<string, InstitutionState>(
        isils.map((isil, i) => [
          isil,
          { isil, status: 'live', hash: institutionHash(canonical[i]!) },
        ]),
      );
      const now = { version: versionOf(states, rest), time };
      writer.append({
        ...now,
        changes: diff(previous, states),
        description: (isil) => canonical[isils.indexOf(isil)]!,
        institutions: COUNT,
        withdrawn: 0,
      });
      if (n === VERSIONS)
        writeGeneratedSnapshot(texts, files.snapshot, BASE, () => ({
          institutions: COUNT,
          withdrawn: 0,
          version: now.version,
          rest,
          states: compactStates(states),
          history: now,
        }));
      writer.commit(now);
      previous = states;
    }
  } finally {
    writer.release();
  }
  log(`generated ${VERSIONS} versions in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  fs.writeFileSync(path.join(dir, 'done'), '');
  return files;
}

interface Targets {
  /** The ISIL with the most mementos, and their times. */
  readonly busy: { readonly isil: string; readonly times: readonly number[] };
  /** Every memento of every ISIL still live: [isil, time]. */
  readonly mementos: readonly (readonly [string, number])[];
  /** A live ISIL other than the busy one: the bystander's document. */
  readonly bystander: string;
}

function targetsOf(f: Fixture): Targets {
  const times = new Map<string, number[]>();
  const gone = new Set<string>();
  for (const v of readLog(path.join(f.historyDir, LOG_FILE))!.versions)
    for (const e of v.events)
      if (isMemento(e)) {
        gone.delete(e.isil);
        times.set(e.isil, [...(times.get(e.isil) ?? []), e.time]);
      } else gone.add(e.isil);
  const live = [...times]
    .filter(([isil]) => !gone.has(isil))
    .sort((a, b) => b[1].length - a[1].length);
  const [busy, other] = live;
  return {
    busy: { isil: busy![0], times: busy![1] },
    mementos: live.flatMap(([isil, ts]) => ts.map((t) => [isil, t] as const)),
    bystander: other![0],
  };
}

/** A server process of the code in `root` over a copy of the fixture. */
async function serve(root: string, f: Fixture, name: string) {
  const dir = path.join(DIR, `run-${name}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const snapshot = path.join(dir, 'dataset.nq');
  fs.copyFileSync(f.snapshot, snapshot);
  fs.copyFileSync(path.join(f.historyDir, LOG_FILE), path.join(dir, LOG_FILE));
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src', 'main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      ...AS_DEPLOYED,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      DUMPS_DIR: '',
      BASE_IRI: BASE,
      DATASET: snapshot,
      HISTORY_DIR: dir,
      CACHE_MAX_BYTES: String(256 * 1024 * 1024),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exit = new Promise((resolve) => child.once('exit', resolve));
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    child.kill('SIGTERM');
    await exit;
  };
  try {
    await ready(`${base}/readyz`, child);
  } catch (error) {
    await stop();
    throw error;
  }
  return { base, stop, rss: () => rssOf(child.pid!) };
}

async function ready(url: string, child: ChildProcess): Promise<void> {
  const until = Date.now() + 300_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode})`);
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} not ready`);
}

/** The resident memory of a process, in MB. */
function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The bystander's latencies (ms) for `ms`, a request every 50 ms; errors counted as 30 s. */
async function bystander(url: string, ms: number): Promise<number[]> {
  const out: number[] = [];
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const asked = performance.now();
    const ok = await fetch(url).then(
      async (r) => (await r.arrayBuffer(), r.status === 200),
      () => false,
    );
    const took = performance.now() - asked;
    out.push(ok ? took : 30_000);
    await sleep(Math.max(0, BYSTANDER_MS - took));
  }
  return out;
}

/** `CONNECTIONS` loops asking for `paths` in turn until `ms` has passed: requests answered. */
async function load(
  base: string,
  paths: readonly string[],
  headers: Record<string, string>,
  ms: number,
): Promise<number> {
  let next = 0;
  let done = 0;
  const until = performance.now() + ms;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        const p = paths[next++ % paths.length]!;
        await fetch(`${base}${p}`, { headers }).then(
          async (r) => (await r.arrayBuffer(), done++),
          () => undefined,
        );
      }
    }),
  );
  return done;
}

const quantile = (xs: readonly number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

interface Figures {
  idle: [number, number];
  pages: [number, number];
  pagesDone: number;
  compressed: [number, number];
  compressedDone: number;
  rssLoaded: number;
  rssQuiet: number;
  rootBytes: number;
}

const p50p99 = (xs: number[]): [number, number] => [quantile(xs, 0.5), quantile(xs, 0.99)];

async function measure(root: string, f: Fixture, t: Targets, name: string): Promise<Figures> {
  const server = await serve(root, f, name);
  try {
    const mine = `${server.base}/data/organisations/${t.bystander}.ttl`;
    await (await fetch(mine)).arrayBuffer();
    const idle = p50p99(await bystander(mine, SECONDS * 1000));
    // Newest first, as a client paging back through the versions would ask.
    const pages = [...t.busy.times]
      .reverse()
      .map((time) => `/memento/${timestamp14(time)}/isil/${t.busy.isil}`);
    const [byPages, pagesDone] = await Promise.all([
      bystander(mine, SECONDS * 1000),
      load(server.base, pages, { Accept: 'text/html' }, SECONDS * 1000),
    ]);
    const rssLoaded = server.rss();
    await sleep(QUIET_MS);
    const rssQuiet = server.rss();
    const ttl = [...t.mementos]
      .reverse()
      .map(([isil, time]) => `/memento/${timestamp14(time)}/data/organisations/${isil}.ttl`);
    const [byCompressed, compressedDone] = await Promise.all([
      bystander(mine, SECONDS * 1000),
      load(server.base, ttl, { 'Accept-Encoding': 'br' }, SECONDS * 1000),
    ]);
    const rootBytes = (
      await (
        await fetch(`${server.base}/feed`, { headers: { Accept: 'application/trig' } })
      ).arrayBuffer()
    ).byteLength;
    return {
      idle,
      pages: p50p99(byPages),
      pagesDone,
      compressed: p50p99(byCompressed),
      compressedDone,
      rssLoaded,
      rssQuiet,
      rootBytes,
    };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const f = fixture();
  const t = targetsOf(f);
  log(
    `history under faults: ${VERSIONS} versions of ${COUNT} institutions, ${t.busy.isil} with ${t.busy.times.length} mementos; ${CONNECTIONS} connections, ${SECONDS} s a phase, ${TURNS} turns`,
  );
  const codes: [string, string][] = [['new', PROJECT_ROOT]];
  if (values.old) codes.push(['old', path.resolve(values.old)]);
  const runs = new Map<string, Figures[]>(codes.map(([n]) => [n, []]));
  for (let turn = 0; turn < TURNS; turn++)
    for (const [name, root] of turn % 2 === 0 ? codes : [...codes].reverse()) {
      const figures = await measure(root, f, t, name);
      log(`  ${name}, turn ${turn + 1}: ${JSON.stringify(figures)}`);
      runs.get(name)!.push(figures);
    }
  const ms = (xs: number[]) => `${median(xs).toFixed(0)} ms`;
  log('');
  log('| history under faults (bystander p50 / p99) | code | figure |');
  log('|---|---|---|');
  for (const [name, all] of runs) {
    const pair = (pick: (x: Figures) => [number, number]) =>
      `${ms(all.map((x) => pick(x)[0]))} / ${ms(all.map((x) => pick(x)[1]))}`;
    log(`| idle | ${name} | ${pair((x) => x.idle)} |`);
    log(
      `| 8 connections, page mementos of ${t.busy.times.length} versions | ${name} | ${pair((x) => x.pages)}, ${median(all.map((x) => x.pagesDone / SECONDS)).toFixed(1)} pages/s |`,
    );
    log(
      `| 8 connections, uncached .ttl mementos in br | ${name} | ${pair((x) => x.compressed)}, ${median(all.map((x) => x.compressedDone / SECONDS)).toFixed(0)} req/s |`,
    );
    log(
      `| RSS after the page load; after ${QUIET_MS / 1000} s quiet | ${name} | ${median(all.map((x) => x.rssLoaded)).toFixed(0)} MB; ${median(all.map((x) => x.rssQuiet)).toFixed(0)} MB |`,
    );
    log(
      `| feed root (TriG) | ${name} | ${(median(all.map((x) => x.rootBytes)) / 1024).toFixed(0)} KiB |`,
    );
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `history under faults failed: ${(error as Error).stack ?? String(error)}\n`,
    );
    process.exit(1);
  },
);
