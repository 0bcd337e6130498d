// What the harvest commands share in reading their flags: the error of a command line that cannot
// be run (exit status 2) and a number flag checked against its range.

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
