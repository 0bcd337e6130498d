// The history benches' fixture (historyLoad.ts, historyLog.ts, historyHttp.ts): the bench's 17,000
// generated institutions through 100 versions, each changing 1% of them, as `npm run generate --
// --history 100 --change 0.01` writes it, with the N-Triples of one more version; made once in
// .bench/history and taken again while its options are the same. Each bench works on a copy.
import fs from 'node:fs';
import path from 'node:path';
import { generateHistory, type WrittenHistory } from '../../cli/generateHistory';
import { LOG_FILE } from '../../src/history/log';
import { PROJECT_ROOT } from '../../src/util/paths';

export const HISTORY_BENCH_DIR = path.join(PROJECT_ROOT, '.bench', 'history');
const FIXTURE = path.join(HISTORY_BENCH_DIR, 'fixture');

export interface FixtureOptions {
  readonly count: number;
  readonly versions: number;
  readonly change: number;
}

export const FIXTURE_DEFAULTS: FixtureOptions = { count: 17_000, versions: 100, change: 0.01 };

export interface Fixture {
  readonly snapshot: string;
  readonly historyDir: string;
  readonly log: string;
  /** The N-Triples of the version after the last. */
  readonly next: string;
  readonly written: WrittenHistory;
  /** How long the generator took, when it ran for this fixture. */
  readonly seconds: number;
  readonly base: string;
}

/** The fixture of `options`, generated unless .bench/history holds it already. */
export function historyFixture(options: FixtureOptions = FIXTURE_DEFAULTS): Fixture {
  const base = 'https://ld.zdb-services.de';
  const marker = path.join(FIXTURE, 'fixture.json');
  const files = {
    snapshot: path.join(FIXTURE, 'dataset.nq'),
    historyDir: FIXTURE,
    log: path.join(FIXTURE, LOG_FILE),
    next: path.join(FIXTURE, 'next.nt'),
    base,
  };
  const wanted = JSON.stringify({ ...options, seed: 1, base });
  try {
    const kept = JSON.parse(fs.readFileSync(marker, 'utf8')) as {
      options: string;
      written: WrittenHistory;
      seconds: number;
    };
    if (kept.options === wanted) return { ...files, written: kept.written, seconds: kept.seconds };
  } catch {
    // none yet, or not whole: made again
  }
  fs.rmSync(FIXTURE, { recursive: true, force: true });
  const started = Date.now();
  const written = generateHistory({ ...options, seed: 1, ...files });
  const seconds = (Date.now() - started) / 1000;
  fs.writeFileSync(marker, JSON.stringify({ options: wanted, written, seconds }));
  return { ...files, written, seconds };
}

/** A copy of the fixture's snapshot and log in `dir` (a bench that writes them works on this). */
export function copyFixture(
  fixture: Fixture,
  dir: string,
): { snapshot: string; historyDir: string } {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const snapshot = path.join(dir, 'dataset.nq');
  fs.copyFileSync(fixture.snapshot, snapshot);
  fs.copyFileSync(fixture.log, path.join(dir, LOG_FILE));
  return { snapshot, historyDir: dir };
}

export const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Seconds with one decimal. */
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The row that says whether a bench kept to its time budget. */
export function budgetRow(name: string, startedAt: number, budgetMinutes: number): string {
  const minutes = (Date.now() - startedAt) / 60_000;
  return `| ${name}: time taken | ${minutes.toFixed(1)} min | ≤ ${budgetMinutes} min | ${minutes <= budgetMinutes ? 'PASS' : 'MISS'} |`;
}
