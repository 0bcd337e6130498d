// What the harvest commands share: the error of a command line that cannot be run (exit status 2),
// a number flag checked against its range, the pacing flags, and how a harvest runs and fails.
import path from 'node:path';
import { Progress, progressMode } from './progress';
import { SruError } from './sru';

/** Thrown for a command line that cannot be run: exit status 2. */
export class UsageError extends Error {}

/** A number flag's value, `fallback` when absent; a value out of `valid` is a UsageError. */
export function numberFlag(
  name: string,
  value: string | undefined,
  fallback: number,
  valid: (n: number) => boolean,
  expected: string,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || !valid(n)) {
    throw new UsageError(`--${name}: expected ${expected}, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** The pacing flags both harvests take, each checked against its range. */
export function pacingFlags(values: {
  rate?: string | undefined;
  retries?: string | undefined;
  timeout?: string | undefined;
}): { rate: number; retries: number; timeoutMs: number } {
  return {
    rate: numberFlag(
      'rate',
      values.rate,
      1,
      (n) => n > 0 && n <= 100,
      'requests a second, more than 0 and at most 100',
    ),
    retries: numberFlag(
      'retries',
      values.retries,
      5,
      (n) => Number.isInteger(n) && n >= 0 && n <= 20,
      'an integer from 0 to 20',
    ),
    timeoutMs:
      numberFlag(
        'timeout',
        values.timeout,
        60,
        (n) => n > 0 && n <= 3600,
        'seconds, more than 0 and at most 3600',
      ) * 1000,
  };
}

/**
 * Runs a harvest into `out`: SIGINT and SIGTERM abort it, its progress is shown unless `quiet`,
 * and its summary line (what `work` returns) is printed; a failure says the file is unchanged.
 * Returns the exit status.
 */
export async function runHarvest(
  options: { readonly out: string; readonly quiet?: boolean },
  work: (signal: AbortSignal, progress: Progress) => Promise<string>,
): Promise<number> {
  const abort = new AbortController();
  const stop = (): void => abort.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const progress = new Progress('harvest', progressMode(options.quiet));
  try {
    const summary = await work(abort.signal, progress);
    progress.end();
    process.stdout.write(summary);
    return 0;
  } catch (error) {
    progress.end(false);
    const message = error instanceof SruError ? error.message : String(error);
    process.stderr.write(`harvest failed, ${path.resolve(options.out)} unchanged: ${message}\n`);
    return 1;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
