// What an update costs (a script, not a test): `npm run load -- --update` of a day's 100 changed
// records (30 created, 50 updated, 10 withdrawn, 10 deleted) over a version of the bench's 17,000
// generated institutions, against the full load of the merged sources, by turns, each turn on a
// fresh copy of the same base version (snapshot and change log). Alone:
//   npx tsx test/bench/loadUpdate.ts [--count 17000] [--turns 3] [--loader dist/cli/loadCommand.js]
// With --update-only the full loads are left out (the 300,000-institution row: its goal is the
// update's own time).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../../src/util/paths';
import { updateSet } from '../support/updateSet';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '17000' },
    turns: { type: 'string', default: '3' },
    /** The compiled loader `npm run bench` measures (as the image runs it); tsx otherwise. */
    loader: { type: 'string' },
    'update-only': { type: 'boolean', default: false },
  },
});
const COUNT = Number(values.count);
const TURNS = Number(values.turns);
const UPDATE_ONLY = values['update-only'];
/** The goal of the update's own time over the 300,000-institution set (docs/benchmark.md). */
const GOAL_SECONDS = 15;
/** Institutions of the base loaded at once: their records stay under MAX_INPUT_BYTES. */
const PART = 100_000;
/** The goals (docs/benchmark.md): the update's time against the full load's, its peak RSS. */
const GOAL_RATIO = 0.2;
const GOAL_RSS_MB = 400;
const BASE = 'https://ld.zdb-services.de';
const WORK = path.join(PROJECT_ROOT, '.bench', 'update');
const log = (text: string) => process.stdout.write(`${text}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const median = (xs: readonly number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** One run of the loader over `dir`'s copy of the base; its wall time and peak memory. */
function load(
  dir: string,
  args: readonly string[],
): { ms: number; peakMb: number; outcome: string } {
  const command = values.loader
    ? [values.loader]
    : ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli', 'loadCommand.ts')];
  const started = Date.now();
  const run = spawnSync(process.execPath, [...command, '--quiet', ...args], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      BASE_IRI: BASE,
      DATASET: path.join(dir, 'dataset.nq'),
      HISTORY_DIR: dir,
    },
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const ms = Date.now() - started;
  if (run.status !== 0) throw new Error(`load ${args.join(' ')} failed: ${run.stderr}`);
  const peakMb = Number(/peak memory (\d+) MB/.exec(run.stdout)?.[1] ?? NaN);
  const outcome = /change log: (.*?); peak memory/.exec(run.stdout)?.[1] ?? '';
  return { ms, peakMb, outcome };
}

function main(): void {
  fs.rmSync(WORK, { recursive: true, force: true });
  fs.mkdirSync(WORK, { recursive: true });
  const set = updateSet(COUNT);
  const files = {
    update: path.join(WORK, 'update.xml'),
    merged: path.join(WORK, 'merged.pica'),
  };
  // A load reads at most MAX_INPUT_BYTES of records: a larger base is loaded in parts, the first
  // in full and each other applied over it as an update (the same version, as the tests hold).
  const lines = set.base.split(/(?<=\n)/);
  const parts: string[] = [];
  for (let at = 0; at < lines.length; at += PART) {
    const part = path.join(WORK, `base-${parts.length + 1}.pica`);
    fs.writeFileSync(part, lines.slice(at, at + PART).join(''));
    parts.push(part);
  }
  fs.writeFileSync(files.update, set.update);
  fs.writeFileSync(files.merged, set.merged);
  const base = path.join(WORK, 'base');
  fs.mkdirSync(base);
  for (const [n, part] of parts.entries()) load(base, n === 0 ? [part] : ['--update', part]);
  log(
    `load --update: 100 changed records over ${COUNT} generated institutions (PICA+), ${TURNS} turns, loader ${values.loader ?? 'cli/loadCommand.ts through tsx'}`,
  );
  const runs = { update: [] as number[], full: [] as number[], rss: [] as number[] };
  for (let turn = 1; turn <= TURNS; turn++) {
    // By turns, the order mirrored each turn: the machine drifts over a run.
    const order = UPDATE_ONLY
      ? ['update']
      : turn % 2 === 1
        ? ['update', 'full']
        : ['full', 'update'];
    for (const kind of order) {
      const dir = path.join(WORK, `turn-${kind}`);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.cpSync(base, dir, { recursive: true });
      const run =
        kind === 'update' ? load(dir, ['--update', files.update]) : load(dir, [files.merged]);
      (kind === 'update' ? runs.update : runs.full).push(run.ms);
      if (kind === 'update') runs.rss.push(run.peakMb);
      log(`  turn ${turn}, ${kind}: ${seconds(run.ms)}, peak ${run.peakMb} MB (${run.outcome})`);
    }
  }
  const rss = Math.max(...runs.rss);
  log('');
  if (UPDATE_ONLY) {
    const ms = median(runs.update);
    log('| load --update | figure | goal | |');
    log('|---|---|---|---|');
    log(
      `| npm run load -- --update of 100 changed records over ${COUNT.toLocaleString('en')} institutions (median of ${TURNS} turns: ${runs.update.map(seconds).join(', ')}; peak ${rss} MB) | ${seconds(ms)} | ≤ ${GOAL_SECONDS} s | ${ms <= GOAL_SECONDS * 1000 ? 'PASS' : 'MISS'} |`,
    );
    fs.rmSync(WORK, { recursive: true, force: true });
    return;
  }
  const ratio = median(runs.update) / median(runs.full);
  log('| load --update | figure | goal | |');
  log('|---|---|---|---|');
  log(
    `| npm run load -- --update of 100 changed records (30 created, 50 updated, 10 withdrawn, 10 deleted) over ${COUNT.toLocaleString('en')} institutions / the full load of the merged sources (medians of ${TURNS} turns: ${runs.update.map(seconds).join(', ')} / ${runs.full.map(seconds).join(', ')}) | ${ratio.toFixed(2)}× | ≤ ${GOAL_RATIO}× | ${ratio <= GOAL_RATIO ? 'PASS' : 'MISS'} |`,
  );
  log(
    `| its peak RSS (the largest of ${TURNS} turns) | ${rss} MB | ≤ ${GOAL_RSS_MB} MB | ${rss <= GOAL_RSS_MB ? 'PASS' : 'MISS'} |`,
  );
  fs.rmSync(WORK, { recursive: true, force: true });
}

main();
