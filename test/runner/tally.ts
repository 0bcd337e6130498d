// What the mocha runs of one test command counted, kept in a folder they share (TEST_TALLY), and
// the lines that end the command: the skips by what was missing, then "N passed, N failed".
import fs from 'node:fs';
import path from 'node:path';

/** The environment variable naming the folder; test/summary-reporter.cjs writes `results` there. */
export const TALLY = 'TEST_TALLY';

export interface Results {
  readonly passes: number;
  readonly failures: number;
  readonly pending: number;
}

export interface Skip {
  /** What was missing: a Debian package, third-party files, a right. */
  readonly missing: string;
  readonly count: number;
}

/** Records that `count` tests were skipped for want of `missing` (nothing outside a tally). */
export function recordSkip(skip: Skip, folder = process.env[TALLY]): void {
  if (folder) fs.appendFileSync(path.join(folder, 'skips'), `${JSON.stringify(skip)}\n`);
}

function lines<T>(folder: string, name: string): T[] {
  const file = path.join(folder, name);
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}

export const readTally = (folder: string) => ({
  results: lines<Results>(folder, 'results'),
  skips: lines<Skip>(folder, 'skips'),
});

/**
 * The closing lines: one per missing thing ("skipped 120: virtuoso-opensource-7-bin missing"),
 * one for the skips no missing thing explains, then the summary line CI reads. A mocha run that
 * ended without results (it crashed) counts as `crashed` failures.
 */
export function summary(
  results: readonly Results[],
  skips: readonly Skip[],
  crashed = 0,
): string[] {
  const sum = (key: keyof Results) => results.reduce((total, r) => total + r[key], 0);
  const pending = sum('pending');
  const byMissing = new Map<string, number>();
  for (const { missing, count } of skips)
    byMissing.set(missing, (byMissing.get(missing) ?? 0) + count);
  const said = [...byMissing.values()].reduce((total, n) => total + n, 0);
  const out = [...byMissing].map(([missing, count]) => `skipped ${count}: ${missing} missing`);
  if (pending > said) out.push(`skipped ${pending - said}: marked to skip in the tests`);
  const failures = sum('failures') + crashed;
  out.push(`${sum('passes')} passed, ${failures} failed${pending ? `, ${pending} skipped` : ''}`);
  return out;
}
