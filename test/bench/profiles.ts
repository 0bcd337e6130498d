// The cost of profiles (a script, not a test): generated PICA+ records loaded once, then served by
// this tree's server and by the base revision's (`--base`, a checkout: default ../main) from the
// same snapshot, by turns, each case driven at 50 connections (wrk, else autocannon): the cached zdb `.ttl`
// of both (the row that must not move), and this tree's cached and uncached full `.ttl`.
//   npx tsx test/bench/profiles.ts [--base ../main] [--count 5000] [--duration 8] [--turns 2]
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generatePica } from '../../cli/generatePica';
import { PROJECT_ROOT } from '../../src/util/paths';
import { driveAutocannon, driveWrk, hasWrk, type Target } from './drivers';

const { values } = parseArgs({
  options: {
    base: { type: 'string', default: path.join(PROJECT_ROOT, '..', 'main') },
    count: { type: 'string', default: '5000' },
    duration: { type: 'string', default: '8' },
    turns: { type: 'string', default: '2' },
  },
});
const COUNT = Number(values.count);
const DURATION = Number(values.duration);
const TURNS = Number(values.turns);
const HOT = 2000;
const WORK = path.join(PROJECT_ROOT, '.bench', 'profiles');
/** wrk where it is installed, else autocannon, as `npm run bench` chooses. */
const drive = async (base: string, targets: readonly Target[], list: string) =>
  hasWrk
    ? driveWrk(base, targets, DURATION, 50, list)
    : await driveAutocannon(base, targets, DURATION, 50);
const log = (text: string) => process.stdout.write(`${text}\n`);

function start(root: string, port: number, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DUMPS_DIR: '',
      HISTORY_DIR: '',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function ready(port: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the server on ${port} did not get ready`);
}

async function warm(port: number, targets: readonly Target[]): Promise<void> {
  for (const t of targets) await (await fetch(`http://127.0.0.1:${port}${t.path}`)).arrayBuffer();
}

async function main(): Promise<void> {
  fs.mkdirSync(WORK, { recursive: true });
  const source = path.join(WORK, 'synthetic.dat');
  const isils: string[] = [];
  const fd = fs.openSync(source, 'w');
  for (const record of generatePica({ count: COUNT, seed: 1 })) {
    const isil = /\x1f(?:e)([^\x1e\x1f]+)/.exec(record.slice(record.indexOf('008H')))?.[1];
    if (isil) isils.push(isil);
    fs.writeSync(fd, record);
  }
  fs.closeSync(fd);
  const snapshot = path.join(WORK, 'dataset.nq');
  const load = spawnSync(process.execPath, ['--import', 'tsx', 'cli/loadCommand.ts', source], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, DATASET: snapshot, HISTORY_DIR: '' },
    encoding: 'utf8',
  });
  if (load.status !== 0) throw new Error(`load failed: ${load.stderr}`);
  const hot = isils.slice(0, HOT);
  const zdb = hot.map((i) => ({ path: `/data/organisations/${i}.ttl` }));
  const full = hot.map((i) => ({ path: `/data/organisations/${i}.ttl?_profile=full` }));
  const fullUncached = isils.map((i) => ({ path: `/data/organisations/${i}.ttl?_profile=full` }));
  const figures = new Map<string, number[]>();
  const record = (name: string, rps: number) =>
    figures.set(name, [...(figures.get(name) ?? []), rps]);
  const list = path.join(WORK, 'targets.lua');
  for (let turn = 0; turn < TURNS; turn++) {
    // Mirrored order, so that neither side always runs first.
    const sides = turn % 2 === 0 ? (['base', 'head'] as const) : (['head', 'base'] as const);
    for (const side of sides) {
      const root = side === 'base' ? values.base! : PROJECT_ROOT;
      const server = start(root, 18181, { DATASET: snapshot });
      const uncached =
        side === 'head'
          ? start(root, 18182, { DATASET: snapshot, CACHE_MAX_BYTES: '0' })
          : undefined;
      try {
        await ready(18181);
        await warm(18181, zdb);
        record(
          `${side}: 200 .ttl zdb (cached)`,
          (await drive('http://127.0.0.1:18181', zdb, list)).rps,
        );
        if (side === 'head') {
          await warm(18181, full);
          record(
            'head: 200 .ttl full (cached)',
            (await drive('http://127.0.0.1:18181', full, list)).rps,
          );
          await ready(18182);
          record(
            'head: 200 .ttl full (cache off)',
            (await drive('http://127.0.0.1:18182', fullUncached, list)).rps,
          );
        }
      } finally {
        server.kill();
        uncached?.kill();
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [name, rps] of figures)
    log(`${name}: ${Math.round(median(rps))} req/s (${rps.map(Math.round).join(', ')})`);
  const ratio =
    median(figures.get('head: 200 .ttl zdb (cached)')!) /
    median(figures.get('base: 200 .ttl zdb (cached)')!);
  log(`cached zdb .ttl, head / base: ${ratio.toFixed(2)}×`);
}

void main();
