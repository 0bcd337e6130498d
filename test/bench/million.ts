// A million generated institutions in a remote store (a script, not a test): generated
// as a snapshot, streamed by `npm run load` into Virtuoso through its bulk loader, and served by
// the service in remote mode. Prints the time of each step, the memory of each process (the
// loader's peak, Virtuoso's, the service's) and the uncached dereference rate. Needs about 40 GB
// of disk and 12 GB of memory; `npm run bench` does not run it. Alone:
//   npx tsx test/bench/million.ts [--count 1000000] [--main .bench/dist/src/main.js]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generate } from '../../cli/generate';
import { PROJECT_ROOT } from '../../src/util/paths';
import { freePort } from '../servers/topology';
import { startVirtuoso } from '../servers/virtuoso';
import { benchDumps, driveAutocannon, driveWrk, hasWrk, type Target } from './drivers';
import { rssOf } from './hardening';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '1000000' },
    main: { type: 'string' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    buffers: { type: 'string', default: '1000000' },
  },
});
const COUNT = Number(values.count);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const BASE = 'https://ld.zdb-services.de';
const WORK = path.join(PROJECT_ROOT, '.bench', 'million');
const SNAPSHOT = path.join(WORK, 'dataset.nq');
const HOST = '127.0.0.1';
/** The entry points: compiled (as the image runs them) when --main names the compiled server. */
const DIST = values.main ? path.resolve(values.main, '..', '..') : undefined;
const entry = (script: string) =>
  DIST
    ? [path.join(DIST, `${script}.js`)]
    : ['--import', 'tsx', path.join(PROJECT_ROOT, `${script}.ts`)];

const log = (text: string) => process.stdout.write(`${text}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;

/** Runs a command to its end, sampling its RSS; resolves with its time, peak RSS and output. */
function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ ms: number; peakMb: number; stdout: string; stderr: string }> {
  const started = Date.now();
  const child = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  let peakMb = 0;
  const sampler = setInterval(() => {
    try {
      peakMb = Math.max(peakMb, rssOf(child.pid!));
    } catch {
      // exited
    }
  }, 250);
  return new Promise((resolve, reject) =>
    child.once('close', (code) => {
      clearInterval(sampler);
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve({ ms: Date.now() - started, peakMb, stdout, stderr });
    }),
  );
}

async function main(): Promise<void> {
  fs.mkdirSync(WORK, { recursive: true });
  log(`million: ${COUNT} institutions, ${process.version}`);
  const gen = await run([
    ...entry('cli/generate'),
    ...['--count', String(COUNT), '--format', 'snapshot', '--quiet', '--out', SNAPSHOT],
  ]);
  const size = fs.statSync(SNAPSHOT).size;
  log(
    `generate --format snapshot: ${seconds(gen.ms)}, ${(size / 1024 ** 3).toFixed(1)} GiB, peak RSS ${gen.peakMb} MB`,
  );

  const virtuoso = await startVirtuoso(300_000, 60, Number(values.buffers));
  try {
    const load = await run(
      [...entry('cli/loadCommand'), '--quiet', '--virtuoso-bulk', virtuoso.dir, SNAPSHOT],
      {
        STORE: 'remote',
        SPARQL_ENDPOINT: virtuoso.endpoint,
        VIRTUOSO_ISQL: String(virtuoso.sqlPort),
        VIRTUOSO_PASSWORD: 'dba',
      },
    );
    const virtuosoPid = Number(
      fs.readdirSync('/proc').find((p) => {
        try {
          return /^\d+$/.test(p) && fs.readlinkSync(`/proc/${p}/cwd`) === virtuoso.dir;
        } catch {
          return false;
        }
      }),
    );
    log(
      `npm run load (STORE=remote, --virtuoso-bulk): ${seconds(load.ms)}, the loader's peak RSS ${load.peakMb} MB; Virtuoso RSS ${rssOf(virtuosoPid)} MB`,
    );
    log(`  ${load.stdout.trim()}`);

    const port = await freePort();
    const started = Date.now();
    const service = spawn(process.execPath, entry('src/main'), {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        HOST,
        PORT: String(port),
        LOG_LEVEL: 'warn',
        DUMPS_DIR: benchDumps(),
        STORE: 'remote',
        SPARQL_ENDPOINT: virtuoso.endpoint,
        STORE_TIMEOUT_MS: '60000',
        CACHE_MAX_BYTES: '0',
        DATASET: '',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    try {
      const url = `http://${HOST}:${port}`;
      for (;;) {
        try {
          if ((await fetch(`${url}/readyz`)).status === 200) break;
        } catch {
          // not listening yet
        }
        if (Date.now() - started > 600_000) throw new Error('the service was not ready in 10 min');
        await new Promise((r) => setTimeout(r, 200));
      }
      const ready = (await (await fetch(`${url}/readyz`)).json()) as { institutions: number };
      log(
        `the service in remote mode: ready in ${seconds(Date.now() - started)}, ${ready.institutions} institutions, RSS ${rssOf(service.pid!)} MB`,
      );
      // Every twentieth institution's document, asked at random: none is cached (CACHE_MAX_BYTES=0).
      // 50,000 targets: wrk's LuaJIT takes at most 65,536 constants in one function.
      const targets: Target[] = [];
      let n = 0;
      for (const institution of generate({ count: COUNT, seed: 1, base: BASE }))
        if (n++ % 20 === 0)
          targets.push({
            path: `/data/organisations/${/organisations\/([^>]+)>/.exec(institution)![1]}.ttl`,
          });
      const drive = (s: number) =>
        hasWrk
          ? Promise.resolve(driveWrk(url, targets, s, CONNECTIONS, path.join(WORK, 'targets.lua')))
          : driveAutocannon(url, targets, s, CONNECTIONS);
      await drive(Math.max(1, DURATION / 5));
      const r = await drive(DURATION);
      log(
        `uncached .ttl of ${targets.length} institutions at random, ${CONNECTIONS} connections: ${Math.round(r.rps)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${r.errors} errors; service RSS ${rssOf(service.pid!)} MB, Virtuoso ${rssOf(virtuosoPid)} MB`,
      );
    } finally {
      service.kill('SIGKILL');
    }
  } finally {
    await virtuoso.stop();
    fs.rmSync(SNAPSHOT, { force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`million failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
