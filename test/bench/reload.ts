// Latency during a reload (a script, not a test): the p99 of cached `.ttl` requests while the
// server reloads 17,000 institutions on SIGHUP, against the p99 without a reload; then the same for
// uncached documents (each asked for once), also in the moments after the swap, when the old store
// is freed. Measured in one run.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { generate } from '../../cli/generate';
import { loadSources, writeSnapshot } from '../../src/load/loadSources';
import { PROJECT_ROOT } from '../../src/util/paths';
import { benchDumps } from './drivers';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '17000' },
    connections: { type: 'string', default: '50' },
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    /** Serve the snapshot a previous run left in .bench/reload instead of loading it again. */
    reuse: { type: 'boolean', default: false },
    /** Serve a copy of this snapshot (of --count generated institutions, seed 1): `npm run bench`'s. */
    snapshot: { type: 'string' },
    /** `cached` or `uncached`: measure only those documents (both by default). */
    only: { type: 'string' },
  },
});
const COUNT = Number(values.count);
const CONNECTIONS = Number(values.connections);
const DURATION = Number(values.duration);
const ROUNDS = Number(values.rounds);
/** The ISILs driven (their Turtle rendered first), as in `npm run bench`'s cached case. */
const HOT = 2000;
/**
 * The window after the swap in which the old store is freed (freeing 17,000 institutions held a
 * store's thread 0.4-0.9 s), when an uncached request, which needs a store's thread, could wait.
 */
const AFTER_SWAP_MS = 3000;
/** The formats of the uncached documents. */
const FORMATS = ['ttl', 'nt', 'rdf', 'jsonld'] as const;
const WORK = path.join(PROJECT_ROOT, '.bench', 'reload');
const HOST = '127.0.0.1';
let BASE = '';

interface Window {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly requests: number;
  readonly errors: number;
  readonly seconds: number;
}

/** The next path to ask for: one of the hot documents at random, or the next uncached one. */
type Paths = () => string;

const atRandom =
  (paths: readonly string[]): Paths =>
  () =>
    paths[Math.floor(Math.random() * paths.length)]!;

/**
 * Documents never asked for since the last swap (a swap starts an empty cache): each is asked for
 * once, in a fixed shuffled order; `swapped` starts the order again. `repeats` counts the requests
 * past its end, which may have been answered from the cache.
 */
class Uncached {
  private at = 0;
  repeats = 0;

  constructor(private readonly paths: readonly string[]) {}

  readonly next: Paths = () => {
    if (this.at >= this.paths.length) this.repeats++;
    return this.paths[this.at++ % this.paths.length]!;
  };

  swapped(): void {
    this.at = 0;
  }
}

/** A fixed shuffle (seeded), so that runs ask for the same documents in the same order. */
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  let seed = 1;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 48271) % 2147483647;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Drives the documents `next` names until `until` resolves (or for `seconds`). */
function drive(next: Paths, until: Promise<unknown> | number): Promise<Window> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: BASE,
        connections: CONNECTIONS,
        duration: typeof until === 'number' ? until : 3600,
        requests: [
          {
            setupRequest: (req) => ({ ...req, path: next() }),
          },
        ],
      },
      (error, result) => {
        if (error) return reject(error);
        resolve({
          p50: result.latency.p50,
          p99: result.latency.p99,
          max: result.latency.max,
          requests: result['2xx'] + result.non2xx,
          errors: result.errors + result.timeouts + result.non2xx,
          seconds: (Date.now() - started) / 1000,
        });
      },
    );
    if (typeof until !== 'number') void until.then(() => instance.stop());
  });
}

async function readyVersion(): Promise<string | undefined> {
  try {
    const res = await fetch(`${BASE}/readyz`);
    return res.status === 200 ? ((await res.json()) as { version: string }).version : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Resolves once the version's search index and dumps, made in the background after each swap,
 * are done: a window "without a reload" is measured without them.
 */
async function backgroundDone(): Promise<void> {
  for (;;) {
    const state = (await (await fetch(`${BASE}/readyz`)).json()) as {
      search?: string;
      dumps?: string;
    };
    if (state.search !== 'building' && state.dumps !== 'making') return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Resolves once /readyz shows a version other than `than` (polled every 20 ms). */
async function versionChange(than: string | undefined): Promise<string> {
  for (;;) {
    const version = await readyVersion();
    if (version !== undefined && version !== than) return version;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A port nobody listens on now: a fixed one may be taken on a shared machine. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, HOST, () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

async function main(): Promise<void> {
  const log = (text: string) => process.stdout.write(`${text}\n`);
  fs.mkdirSync(WORK, { recursive: true });
  const source = path.join(WORK, 'synthetic.nt');
  const snapshot = path.join(WORK, 'dataset.nq');
  const isils: string[] = [];
  if (values.snapshot !== undefined) fs.copyFileSync(values.snapshot, snapshot);
  const reuse = values.snapshot !== undefined || (values.reuse && fs.existsSync(snapshot));
  const fd = reuse ? undefined : fs.openSync(source, 'w');
  for (const institution of generate({
    count: COUNT,
    seed: 1,
    base: 'https://ld.zdb-services.de',
  })) {
    isils.push(/organisations\/([^>]+)>/.exec(institution)![1]!);
    if (fd !== undefined) fs.writeSync(fd, institution);
  }
  if (fd !== undefined) {
    fs.closeSync(fd);
    const loaded = spawnSync(process.execPath, ['--import', 'tsx', 'cli/loadCommand.ts', source], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATASET: snapshot },
      encoding: 'utf8',
    });
    if (loaded.status !== 0) throw new Error(`load failed: ${loaded.stderr}`);
  }
  // Two editions of the snapshot that differ by one triple outside every description: swapping
  // one in for the other changes the version and no document (ETags stay). A snapshot is whole or
  // refused (its trailer covers every byte), so no comment can be appended to make a new version.
  const editions = [path.join(WORK, 'edition-a.nq'), path.join(WORK, 'edition-b.nq')] as const;
  fs.copyFileSync(snapshot, editions[0]);
  const extra = path.join(WORK, 'extra.nt');
  fs.writeFileSync(extra, '<urn:isil-ld:bench> <urn:isil-ld:edition> "b" .\n');
  const other = await loadSources([editions[0], extra], { baseIri: 'https://ld.zdb-services.de' });
  await writeSnapshot(other, editions[1]);
  other.dataset.free();
  let edition = 0;
  /** Puts the other edition at the snapshot's path, renamed over it as the loader does. */
  const nextEdition = () => {
    edition = 1 - edition;
    fs.copyFileSync(editions[edition]!, `${snapshot}.next`);
    fs.renameSync(`${snapshot}.next`, snapshot);
  };
  /** The machine is shared: its load average says how much the figures can be trusted. */
  const load = () => os.loadavg()[0]!.toFixed(1);
  log(
    `reload bench: ${COUNT} institutions, ${CONNECTIONS} connections, ${process.version}, load average ${load()}`,
  );

  const port = await freePort();
  BASE = `http://${HOST}:${port}`;
  const server: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      DATASET: snapshot,
      DUMPS_DIR: benchDumps(),
      PORT: String(port),
      HOST,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  process.on('exit', () => server.kill('SIGKILL'));
  let done = false;
  server.once('exit', (code, signal) => {
    if (done) return;
    process.stderr.write(`the server exited (${code ?? signal}): no figures\n`);
    process.exit(1);
  });
  let version = await versionChange(undefined);
  const paths = isils.slice(0, HOT).map((isil) => `/data/organisations/${isil}.ttl`);
  for (const p of paths) await (await fetch(`${BASE}${p}`)).arrayBuffer();

  const row = (name: string, w: Window) =>
    log(
      `| ${name} | ${w.seconds.toFixed(1)} | ${w.requests} | ${w.p50} | ${w.p99} | ${w.max} | ${w.errors} |`,
    );
  const header = () => {
    log('| window | s | requests | p50 ms | p99 ms | max ms | errors |');
    log('|---|---:|---:|---:|---:|---:|---:|');
  };
  const ratioList = (ratios: readonly number[]) =>
    ratios.map((r) => (Number.isFinite(r) ? r.toFixed(2) : 'none answered')).join(', ');
  /** p99 of `w` over p99 of `base`; infinite when nothing was answered in `w` (a stall). */
  const ratio = (w: Window, base: Window) => (w.requests === 0 ? Infinity : w.p99 / base.p99);

  if (values.only !== 'uncached') {
    const hot = atRandom(paths);
    await drive(hot, Math.max(2, DURATION / 5));
    header();
    const ratios: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      await backgroundDone();
      const quiet = await drive(hot, DURATION);
      row(`round ${round}: no reload`, quiet);
      nextEdition();
      const swapped = versionChange(version);
      const during = drive(hot, swapped);
      server.kill('SIGHUP');
      version = await swapped;
      row(`round ${round}: SIGHUP until the swap`, await during);
      const after = await drive(hot, DURATION);
      row(`round ${round}: the ${DURATION} s after the swap (cache refilling)`, after);
      ratios.push((await during).p99 / quiet.p99);
    }
    log(
      `p99 during a reload / p99 without: ${ratioList(ratios)} (target ≤ 3); load average ${load()}`,
    );
  }

  if (values.only !== 'cached') {
    // Every format of every ISIL but the hot documents cached above, each asked for once.
    const uncached = new Uncached(
      shuffled(
        isils.flatMap((isil, i) =>
          FORMATS.filter((format) => i >= HOT || format !== 'ttl').map(
            (format) => `/data/organisations/${isil}.${format}`,
          ),
        ),
      ),
    );
    log('');
    log(`uncached documents (each asked for once since the last swap):`);
    header();
    const during: number[] = [];
    const freeing: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      await backgroundDone();
      const quiet = await drive(uncached.next, DURATION);
      row(`round ${round}: no reload`, quiet);
      nextEdition();
      const swapped = versionChange(version).then((next) => {
        uncached.swapped();
        return next;
      });
      const loading = drive(uncached.next, swapped);
      server.kill('SIGHUP');
      version = await swapped;
      const afterSwap = await drive(
        uncached.next,
        new Promise((resolve) => setTimeout(resolve, AFTER_SWAP_MS)),
      );
      row(`round ${round}: SIGHUP until the swap`, await loading);
      row(
        `round ${round}: the ${AFTER_SWAP_MS / 1000} s after the swap (old store freed)`,
        afterSwap,
      );
      during.push(ratio(await loading, quiet));
      freeing.push(ratio(afterSwap, quiet));
    }
    log(
      `uncached: p99 while loading / p99 without: ${ratioList(during)}; in the ${AFTER_SWAP_MS / 1000} s after the swap / without: ${ratioList(freeing)}; ${uncached.repeats} requests past the uncached documents; load average ${load()}`,
    );
  }
  done = true;
  server.kill('SIGTERM');
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
