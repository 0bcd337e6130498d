// The test command's plan (test/runner/plan.ts): a file named runs alone, the tiers otherwise, the
// suites sharing the run's Virtuoso after the rest and one at a time; bad input said.
import assert from 'node:assert/strict';
import { jobsFrom, plan, SERIAL_FOLDER, type Tier } from '../../runner/plan';

const FILES: Record<Tier, string[]> = {
  unit: ['test/unit/a.test.ts', 'test/unit/b.test.ts'],
  integration: ['test/integration/c.test.ts'],
  system: ['test/system/d.test.ts', `${SERIAL_FOLDER}e.test.ts`, `${SERIAL_FOLDER}f.test.ts`],
};
const sources = {
  tierFiles: (tier: Tier) => FILES[tier],
  isPath: (arg: string) => arg.endsWith('.ts') || arg.includes('*'),
};

describe('the test command: what a run runs', () => {
  it('runs every tier without arguments: the others in parallel, slowest tier first, then the serial', () => {
    assert.deepEqual(plan([], 2, sources).runs, [
      {
        files: [
          'test/system/d.test.ts',
          'test/integration/c.test.ts',
          'test/unit/a.test.ts',
          'test/unit/b.test.ts',
        ],
        parallel: true,
      },
      { files: [`${SERIAL_FOLDER}e.test.ts`, `${SERIAL_FOLDER}f.test.ts`], parallel: false },
    ]);
  });

  it('runs only the tier named, and nothing side by side with one job', () => {
    assert.deepEqual(plan(['unit'], 1, sources).runs, [{ files: FILES.unit, parallel: false }]);
    assert.deepEqual(plan(['integration'], 2, sources).runs, [
      { files: FILES.integration, parallel: false },
    ]);
  });

  it('runs a file named alone, in one process, whatever the tier named before it', () => {
    for (const args of [['test/unit/x.test.ts'], ['unit', 'test/unit/x.test.ts']])
      assert.deepEqual(plan(args, 2, sources).runs, [
        { files: ['test/unit/x.test.ts'], parallel: false },
      ]);
  });

  it("passes mocha's options on, an option's value not taken for a file", () => {
    const { runs, mochaArgs } = plan(
      ['--grep', 'a.ts', '--bail', 'test/unit/x.test.ts'],
      2,
      sources,
    );
    assert.deepEqual(mochaArgs, ['--grep', 'a.ts', '--bail']);
    assert.deepEqual(runs, [{ files: ['test/unit/x.test.ts'], parallel: false }]);
  });

  it('refuses an argument that is neither a tier, a file nor an option, naming it', () => {
    assert.throws(() => plan(['units'], 2, sources), /^Error: units: not a tier/);
  });

  it('takes the number of jobs from TEST_JOBS, 2 by default, and refuses a bad one', () => {
    assert.equal(jobsFrom(undefined), 2);
    assert.equal(jobsFrom(''), 2);
    assert.equal(jobsFrom('3'), 3);
    for (const bad of ['0', '-1', '1.5', 'two'])
      assert.throws(() => jobsFrom(bad), new RegExp(`^Error: TEST_JOBS: ${bad} `));
  });
});
