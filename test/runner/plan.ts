// What a test run runs: the tiers' files, or only the files named; which run in parallel.

/** The tiers, cheapest first; each is a folder of test/ (docs/testing.md says what goes where). */
export const TIERS = ['unit', 'integration', 'system'] as const;
export type Tier = (typeof TIERS)[number];

/** The suites that share the run's one Virtuoso: one process, one file after another. */
export const SERIAL_FOLDER = 'test/system/remote/';

/** Mocha's options that take a value, so that the value is not read as a file. */
const WITH_VALUE = new Set([
  '-g',
  '--grep',
  '-f',
  '--fgrep',
  '-t',
  '--timeout',
  '-s',
  '--slow',
  '-R',
  '--reporter',
  '-O',
  '--reporter-option',
  '--retries',
  '-j',
  '--jobs',
]);

export interface Run {
  readonly files: readonly string[];
  /** Whether mocha runs these files in worker processes side by side (`--parallel`). */
  readonly parallel: boolean;
}

export interface Plan {
  readonly runs: readonly Run[];
  /** Passed to every mocha run as given (`--grep x`, `--bail`). */
  readonly mochaArgs: readonly string[];
}

export interface Sources {
  /** The test files of a tier, relative to the project's root. */
  tierFiles(tier: Tier): readonly string[];
  /** Whether `arg` names a file or folder (or a glob) to run. */
  isPath(arg: string): boolean;
}

/**
 * The runs for the command line `args` (after `npm test --`, a tier name first for
 * `npm run test:<tier>`): a file named runs alone, in one process, whatever the tier; without
 * one, the tiers named (all by default) run, the serial folder's files after the others, which run
 * in parallel when `jobs` > 1. Throws on an argument that is neither a tier, a path nor an option.
 */
export function plan(args: readonly string[], jobs: number, sources: Sources): Plan {
  const tiers: Tier[] = [];
  const files: string[] = [];
  const mochaArgs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith('-')) {
      mochaArgs.push(arg);
      const next = args[i + 1];
      if (WITH_VALUE.has(arg) && next !== undefined) {
        mochaArgs.push(next);
        i++;
      }
    } else if ((TIERS as readonly string[]).includes(arg)) tiers.push(arg as Tier);
    else if (sources.isPath(arg)) files.push(arg);
    else throw new Error(`${arg}: not a tier (${TIERS.join(', ')}), a test file, nor an option`);
  }
  if (files.length > 0) return { runs: [{ files, parallel: false }], mochaArgs };
  const chosen = TIERS.filter((tier) => tiers.length === 0 || tiers.includes(tier));
  // The slowest tier first, so that the last worker busy is not the one given a long file last.
  const all = [...chosen].reverse().flatMap((tier) => sources.tierFiles(tier));
  const serial = all.filter((file) => file.startsWith(SERIAL_FOLDER));
  const rest = all.filter((file) => !file.startsWith(SERIAL_FOLDER));
  const runs: Run[] = [];
  if (rest.length > 0) runs.push({ files: rest, parallel: jobs > 1 && rest.length > 1 });
  if (serial.length > 0) runs.push({ files: serial, parallel: false });
  return { runs, mochaArgs };
}

/** The number of mocha workers from TEST_JOBS (default 2); a bad value is an error. */
export function jobsFrom(value: string | undefined): number {
  if (value === undefined || value === '') return 2;
  const jobs = Number(value);
  if (!Number.isInteger(jobs) || jobs < 1)
    throw new Error(`TEST_JOBS: ${value} is not a whole number ≥ 1`);
  return jobs;
}
