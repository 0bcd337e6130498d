// Where a load's time goes (a script, not a test): `npm run load` of the bench's generated
// institutions, validating and with --skip-validation, by turns with Oxigraph's own `Store.load()` of
// the same file, each a process of its own; prints each phase of the load (`LoadOptions.onPhase`)
// with its wall time and the process's RSS and heap after it, the medians, their ratios to
// `Store.load()`, and the peak RSS of each. With `--large`, also the load of about 201 MB of
// generated institutions with --skip-validation, once. The change log is kept (a new one a run).
// `npm run bench` runs it; alone: `npx tsx test/bench/loadPhases.ts [--count N] [--turns N] [--large]`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import oxigraph from 'oxigraph';
import { generate } from '../../cli/generate';
import { main as loadCommand } from '../../cli/loadCommand';
import type { LoadPhase } from '../../src/load/report';
import { PROJECT_ROOT } from '../../src/util/paths';
import { AS_DEPLOYED } from './drivers';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    count: { type: 'string', default: '17000' },
    turns: { type: 'string', default: '3' },
    /** Also the load of about LARGE_BYTES of generated institutions, --skip-validation, once. */
    large: { type: 'boolean', default: false },
    /** In a child: `load` or `store`, then the file (and the loader's arguments). */
    child: { type: 'string' },
    'skip-validation': { type: 'boolean', default: false },
  },
});
const COUNT = Number(values.count);
const TURNS = Number(values.turns);
const WORK = path.join(PROJECT_ROOT, '.bench', 'loadPhases');
const BASE = 'https://ld.zdb-services.de';
/** The large input's size: the 201 MB the goal names. */
const LARGE_BYTES = 201 * 1000 * 1000;
const GOALS = { validating: 3, skipping: 3, peakMb: 650, largePeakMb: 1500 };
/** How a child's figures reach the parent: one line of JSON on stderr after this. */
const REPORT = 'load-phases\t';

const log = (text: string) => process.stdout.write(`${text}\n`);
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const mb = (bytes: number) => Math.round(bytes / (1024 * 1024));

/** A phase as a child saw it start: ms since the child's work began, memory then. */
interface PhaseMark {
  /** `start` covers what comes before the first phase (the validation workers' start). */
  readonly phase: LoadPhase | 'start' | 'Store.load()';
  readonly ms: number;
  readonly rssMb: number;
  readonly heapMb: number;
}

/** What a child reports. */
interface ChildReport {
  readonly marks: readonly PhaseMark[];
  readonly peakMb: number;
}

/** A run as the parent saw it: the child's process from spawn to exit. */
interface Run extends ChildReport {
  readonly wallMs: number;
}

/** In a child: one load or one `Store.load()`, with its marks and peak RSS on stderr. */
async function child(kind: string, file: string): Promise<void> {
  const marks: PhaseMark[] = [];
  const started = performance.now();
  const mark = (phase: PhaseMark['phase']) => {
    const memory = process.memoryUsage();
    marks.push({
      phase,
      ms: performance.now() - started,
      rssMb: mb(memory.rss),
      heapMb: mb(memory.heapUsed),
    });
  };
  mark(kind === 'store' ? 'Store.load()' : 'start');
  if (kind === 'store') {
    const store = new oxigraph.Store();
    store.load(fs.readFileSync(file), { format: 'nt' });
    mark('end');
  } else {
    const args = ['--quiet', ...(values['skip-validation'] ? ['--skip-validation'] : []), file];
    // A process of its own, as `npm run load` is: the store goes with it (`LoadHooks.exits`).
    const code = await loadCommand(args, { onPhase: mark, exits: true });
    if (code !== 0) throw new Error(`the load ended with ${code}`);
  }
  const report: ChildReport = { marks, peakMb: mb(process.resourceUsage().maxRSS * 1024) };
  process.stderr.write(`${REPORT}${JSON.stringify(report)}\n`);
}

/** Runs this script as a child: `store` or `load` of `file`, the log and snapshot new. */
function run(kind: 'store' | 'load', file: string, skipValidation = false): Run {
  const dataset = path.join(WORK, 'dataset.nq');
  const history = path.join(WORK, 'history');
  fs.rmSync(dataset, { force: true });
  fs.rmSync(history, { recursive: true, force: true });
  const began = performance.now();
  const spawned = spawnSync(
    process.execPath,
    [
      ...['--import', 'tsx', __filename, '--child', kind, file],
      ...(skipValidation ? ['--skip-validation'] : []),
    ],
    {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        DATASET: dataset,
        HISTORY_DIR: history,
        LOG_LEVEL: 'silent',
        ...AS_DEPLOYED,
      },
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    },
  );
  const wallMs = performance.now() - began;
  const line = spawned.stderr.split('\n').find((l) => l.startsWith(REPORT));
  if (spawned.status !== 0 || line === undefined)
    throw new Error(`${kind} of ${file} failed: ${spawned.stderr.slice(0, 2000)}`);
  return { ...(JSON.parse(line.slice(REPORT.length)) as ChildReport), wallMs };
}

/** Each phase's time (ms) and the memory at its end, as one run's marks give them. */
function phasesOf(
  marks: readonly PhaseMark[],
): { phase: string; ms: number; rssMb: number; heapMb: number }[] {
  return marks.slice(0, -1).map((m, i) => {
    const next = marks[i + 1]!;
    return { phase: m.phase, ms: next.ms - m.ms, rssMb: next.rssMb, heapMb: next.heapMb };
  });
}

/** The phases of several runs, each figure the median over the runs. */
function phaseTable(title: string, runs: readonly Run[]): void {
  const all = runs.map((r) => phasesOf(r.marks));
  log('');
  log(`${title} (medians of ${runs.length} runs; memory at the phase's end)`);
  log('| phase | wall ms | RSS MB | heap MB |');
  log('|---|---:|---:|---:|');
  for (const [i, { phase }] of all[0]!.entries()) {
    const of = (pick: (p: { ms: number; rssMb: number; heapMb: number }) => number) =>
      median(all.map((phases) => pick(phases[i]!)));
    log(
      `| ${phase} | ${of((p) => p.ms).toFixed(0)} | ${of((p) => p.rssMb).toFixed(0)} | ${of((p) => p.heapMb).toFixed(0)} |`,
    );
  }
}

/** Writes generated institutions to `file` until it holds about `bytes`; returns how many. */
function writeInstitutions(file: string, count: number, bytes = Infinity): number {
  const fd = fs.openSync(file, 'w');
  let written = 0;
  let n = 0;
  try {
    let batch: string[] = [];
    let size = 0;
    for (const text of generate({ count, seed: 1, base: BASE })) {
      batch.push(text);
      size += text.length;
      n++;
      if (size >= 1 << 20) {
        written += fs.writeSync(fd, batch.join(''));
        batch = [];
        size = 0;
        if (written >= bytes) break;
      }
    }
    if (batch.length > 0 && written < bytes) written += fs.writeSync(fd, batch.join(''));
  } finally {
    fs.closeSync(fd);
  }
  return n;
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);
const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');

async function parent(): Promise<void> {
  fs.mkdirSync(WORK, { recursive: true });
  const file = path.join(WORK, 'generated.nt');
  writeInstitutions(file, COUNT);
  const inputMb = fs.statSync(file).size / 1e6;
  const store: Run[] = [];
  const validating: Run[] = [];
  const skipping: Run[] = [];
  for (let t = 1; t <= TURNS; t++) {
    store.push(run('store', file));
    validating.push(run('load', file));
    store.push(run('store', file));
    skipping.push(run('load', file, true));
    log(
      `load phases: turn ${t}: Store.load() ${seconds(store.at(-2)!.wallMs)} / ${seconds(store.at(-1)!.wallMs)} s, ` +
        `npm run load validating ${seconds(validating.at(-1)!.wallMs)} s (peak ${validating.at(-1)!.peakMb} MB), ` +
        `--skip-validation ${seconds(skipping.at(-1)!.wallMs)} s (peak ${skipping.at(-1)!.peakMb} MB)`,
    );
  }
  phaseTable(
    `npm run load, validating, ${COUNT} institutions (${inputMb.toFixed(0)} MB)`,
    validating,
  );
  phaseTable('npm run load --skip-validation', skipping);
  phaseTable("Oxigraph's Store.load() of the same file", store);
  const wall = (runs: readonly Run[]) => median(runs.map((r) => r.wallMs));
  const peak = (runs: readonly Run[]) => Math.round(median(runs.map((r) => r.peakMb)));
  const each = (runs: readonly Run[]) => runs.map((r) => seconds(r.wallMs)).join(', ');
  const base = wall(store);
  const rows = [
    [
      `npm run load validating / Store.load() of the same file, process wall time (medians of ${TURNS} turns: ${each(validating)} / ${each(store)} s)`,
      wall(validating) / base,
      GOALS.validating,
    ],
    [
      `npm run load --skip-validation / Store.load() (medians: ${each(skipping)} / ${each(store)} s)`,
      wall(skipping) / base,
      GOALS.skipping,
    ],
  ] as const;
  log('');
  log('| figure | measured | goal | |');
  log('|---|---:|---|---|');
  for (const [label, ratio, goal] of rows)
    log(`| ${label} | ${ratio.toFixed(2)}× | ≤ ${goal}× | ${verdict(ratio <= goal)} |`);
  log(
    `| npm run load validating, peak RSS, ${COUNT} institutions (--skip-validation ${peak(skipping)} MB, Store.load() ${peak(store)} MB) | ${peak(validating)} MB | ≤ ${GOALS.peakMb} MB | ${verdict(peak(validating) <= GOALS.peakMb)} |`,
  );
  if (!values.large) return;
  const large = path.join(WORK, 'large.nt');
  const institutions = writeInstitutions(large, 1_000_000, LARGE_BYTES);
  const largeMb = fs.statSync(large).size / 1e6;
  try {
    const loaded = run('load', large, true);
    const alone = run('store', large);
    phaseTable(
      `npm run load --skip-validation, ${institutions} institutions (${largeMb.toFixed(0)} MB)`,
      [loaded],
    );
    log('');
    log(
      `| npm run load --skip-validation of ${largeMb.toFixed(0)} MB (${institutions} institutions; ${seconds(loaded.wallMs)} s, Store.load() ${seconds(alone.wallMs)} s at ${alone.peakMb} MB): peak RSS | ${loaded.peakMb} MB (${(loaded.peakMb / largeMb).toFixed(1)} MB per input MB) | ≤ ${GOALS.largePeakMb} MB | ${verdict(loaded.peakMb <= GOALS.largePeakMb)} |`,
    );
  } finally {
    fs.rmSync(large, { force: true });
  }
}

const done = values.child === undefined ? parent() : child(values.child, positionals[0] ?? '');
done.catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
