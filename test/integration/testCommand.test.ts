// The test command (test/run.ts) run as `npm test -- FILE` does: that file alone, its skips said by
// what was missing before the summary line CI reads, and with CI=true a missing package a failure.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/util/paths';

const SUITE = path.join('test', 'support', 'skippingSuite.ts');

function run(env: Record<string, string | undefined>) {
  const child = spawnSync(process.execPath, ['--import', 'tsx', 'test/run.ts', SUITE], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    env: { ...process.env, TEST_TALLY: undefined, ...env },
  });
  return { ...child, last: child.stdout.trimEnd().split('\n').slice(-4) };
}

describe('the test command over one file', function () {
  this.timeout(120_000);

  it('runs that file alone and ends with its skips by what was missing, then the summary', () => {
    const { status, last, stderr } = run({ CI: undefined });
    assert.equal(status, 0, stderr);
    assert.deepEqual(last, [
      'skipped 3: package-a missing',
      'skipped 1: package-b missing',
      'skipped 1: marked to skip in the tests',
      '1 passed, 0 failed, 5 skipped',
    ]);
  });

  it('fails what a missing package would skip with CI=true, saying the remedy', () => {
    const { status, stdout, last } = run({ CI: 'true' });
    assert.equal(status, 1);
    assert.equal(last.at(-1), '1 passed, 2 failed, 1 skipped');
    assert.match(stdout, /Error: package-a missing: install package-a/);
    assert.match(stdout, /Error: package-b missing: install package-b/);
  });
});
