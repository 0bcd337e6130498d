// Latency during a reload (a script, not a test): the p99 of `.ttl` requests while the server
// reloads 17,000 institutions on SIGHUP, against the p99 without a reload, measured in one run.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { generate } from '../../loader/generate';
import { PROJECT_ROOT } from '../../src/paths';

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
  },
});
const COUNT = Number(values.count);
const CONNECTIONS = Number(values.connections);
const DURATION = Number(values.duration);
const ROUNDS = Number(values.rounds);
/** The ISILs driven (their Turtle rendered first), as in `npm run bench`'s cached case. */
const HOT = 2000;
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

/** Drives the hot `.ttl` documents at random until `until` resolves (or for `seconds`). */
function drive(paths: readonly string[], until: Promise<unknown> | number): Promise<Window> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: BASE,
        connections: CONNECTIONS,
        duration: typeof until === 'number' ? until : 3600,
        requests: [
          {
            setupRequest: (req) => ({
              ...req,
              path: paths[Math.floor(Math.random() * paths.length)]!,
            }),
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
    const loaded = spawnSync(process.execPath, ['--import', 'tsx', 'loader/load.ts', source], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATASET: snapshot },
      encoding: 'utf8',
    });
    if (loaded.status !== 0) throw new Error(`load failed: ${loaded.stderr}`);
  }
  /** The machine is shared: its load average says how much the figures can be trusted. */
  const load = () => os.loadavg()[0]!.toFixed(1);
  log(
    `reload bench: ${COUNT} institutions, ${CONNECTIONS} connections, ${process.version}, load average ${load()}`,
  );

  const port = await freePort();
  BASE = `http://${HOST}:${port}`;
  const server: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, DATASET: snapshot, PORT: String(port), HOST, LOG_LEVEL: 'warn' },
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
  await drive(paths, Math.max(2, DURATION / 5));

  const row = (name: string, w: Window) =>
    log(
      `| ${name} | ${w.seconds.toFixed(1)} | ${w.requests} | ${w.p50} | ${w.p99} | ${w.max} | ${w.errors} |`,
    );
  log('| window | s | requests | p50 ms | p99 ms | max ms | errors |');
  log('|---|---:|---:|---:|---:|---:|---:|');
  const ratios: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const quiet = await drive(paths, DURATION);
    row(`round ${round}: no reload`, quiet);
    // A comment changes the snapshot's bytes, so its version, and nothing else: the ETags stay.
    // After the snapshot's index line, it makes the reload query the store for the index: the
    // heavier path, a snapshot edited by hand's.
    fs.appendFileSync(snapshot, `# reload bench round ${round}\n`);
    const swapped = versionChange(version);
    const during = drive(paths, swapped);
    server.kill('SIGHUP');
    version = await swapped;
    row(`round ${round}: SIGHUP until the swap`, await during);
    const after = await drive(paths, DURATION);
    row(`round ${round}: the ${DURATION} s after the swap (cache refilling)`, after);
    ratios.push((await during).p99 / quiet.p99);
  }
  log(
    `p99 during a reload / p99 without: ${ratios.map((r) => r.toFixed(2)).join(', ')} (target ≤ 3); load average ${load()}`,
  );
  done = true;
  server.kill('SIGTERM');
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
