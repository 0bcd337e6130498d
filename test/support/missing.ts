// Skipping the tests that cannot run here for want of something (a Debian package, the third-party
// files, a right), counted for the run's closing lines (test/runner/tally.ts); CI fails instead.
import { recordSkip } from '../runner/tally';

/**
 * Skips the suite (from a `before` hook) or the test (from the test or a `beforeEach`) for want
 * of `missing`; with CI=true, where `.ci/packages` installed everything, throws instead, saying
 * `remedy`, so that no test is silently lost there.
 */
export function skipWithout(context: Mocha.Context, missing: string, remedy: string): never {
  if (process.env.CI) throw new Error(`${missing} missing: ${remedy}`);
  // In a `before` hook, mocha skips every test of the suite and of the suites inside it.
  const hook = context.test?.title.startsWith('"before all" hook') ? context.test : undefined;
  recordSkip({ missing, count: hook ? (hook.parent?.total() ?? 0) : 1 });
  context.skip();
}
