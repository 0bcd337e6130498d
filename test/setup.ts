// The run's setup (.mocharc.json): the third-party files fetched into data/third-party/ when any
// is missing, from THIRD_PARTY_DIR or else from their origins, as `npm run fetch-data` does. What
// cannot be had is said once here; the suites that need it skip, or fail in CI (needsThirdParty).
import assertModule, { AssertionError } from 'node:assert';
import {
  fetchThirdParty,
  FETCH_COMMAND,
  thirdPartyDir,
  THIRD_PARTY_DIR,
} from '../src/util/thirdParty';

export async function mochaGlobalSetup(): Promise<void> {
  const from = thirdPartyDir();
  const outcomes = await fetchThirdParty({ ...(from ? { from } : {}), timeoutMs: 30_000 });
  const failed = outcomes.flatMap((o) => (o.outcome === 'failed' ? [o.reason] : []));
  if (failed.length > 0)
    process.stderr.write(
      `${failed.length} third-party files could not be had (${failed[0]}): the suites that read them ${process.env.CI ? 'fail (CI)' : 'are skipped'}; ${FETCH_COMMAND}, or ${THIRD_PARTY_DIR}=<folder>, fetches them\n`,
    );
}

// A failing `assert.ok` without a message makes Node read and parse the calling test's source to
// quote the expression; on the larger test files under tsx that ran for over ten minutes, a hung
// run instead of a failure. The same check, with a plain message.
function ok(value: unknown, message?: string | Error): asserts value {
  if (value) return;
  if (message instanceof Error) throw message;
  throw new AssertionError({
    message: message ?? `expected a truthy value, got ${String(value)}`,
    actual: value,
    expected: true,
    operator: '==',
    stackStartFn: ok,
  });
}
assertModule.ok = ok;
assertModule.strict.ok = ok;
