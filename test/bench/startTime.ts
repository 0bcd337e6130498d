// The time from spawning `npm start` to the first 200 of /readyz on the bundled data (a script, not
// a test): by turns, a start that loads the snapshot kept of the bundled sources, and one that reads
// the sources (the kept snapshot removed first, the states cache kept: the start before it was
// kept), medians of `--starts` each and their ratio. `npm run bench` runs it; alone:
// `npx tsx test/bench/startTime.ts [--starts 5]`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { STATES_CACHE } from '../../src/util/bundled';
import { PROJECT_ROOT } from '../../src/util/paths';
import { AS_DEPLOYED, benchDumps, thirdPartyForBench } from './drivers';

const { values } = parseArgs({ options: { starts: { type: 'string', default: '5' } } });
const STARTS = Number(values.starts);
const PORT = 18096;
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const log = (text: string) => process.stdout.write(`${text}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** `npm start` on the bundled data: ms from the spawn to the first 200 of /readyz. */
async function start(): Promise<number> {
  // DATASET not set: the bundled data, as on a fresh clone.
  const env = { ...process.env };
  delete env.DATASET;
  const started = performance.now();
  const child = spawn(NPM, ['start'], {
    cwd: PROJECT_ROOT,
    env: {
      ...env,
      ...AS_DEPLOYED,
      PORT: String(PORT),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      HISTORY_DIR: '',
      DUMPS_DIR: benchDumps(),
    },
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
      const ready = await fetch(`http://127.0.0.1:${PORT}/readyz`).then(
        (res) => res.status === 200,
        () => false,
      );
      if (ready) return performance.now() - started;
      if (performance.now() - started > 120_000) throw new Error('not ready within 120 s');
      await sleep(20);
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** Removes the snapshot kept of the bundled sources (their states stay cached). */
function forget(): void {
  for (const file of fs.existsSync(STATES_CACHE) ? fs.readdirSync(STATES_CACHE) : [])
    if (file.startsWith('snapshot-')) fs.rmSync(path.join(STATES_CACHE, file));
}

async function main(): Promise<void> {
  await thirdPartyForBench();
  // A first start keeps the states and the snapshot: every measured one finds them.
  await start();
  const kept: number[] = [];
  const read: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    kept.push(await start());
    forget();
    read.push(await start());
  }
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  log(
    `start time: npm start to the first 200 of /readyz, bundled data, median of ${STARTS} by turns: ${s(median(kept))} loading the kept snapshot, ${s(median(read))} reading the sources (${(median(read) / median(kept)).toFixed(2)}×)`,
  );
  log(
    `| start to ready, bundled data (median of ${STARTS}) | ${s(median(kept))} | ≤ 3 s | ${median(kept) <= 3000 ? 'PASS' : 'MISS'} |`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`start time failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
