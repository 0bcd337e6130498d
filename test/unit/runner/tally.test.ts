// The test command's closing lines (test/runner/tally.ts): skips said by what was missing, and the
// one summary line CI reads, summed over the command's mocha runs.
import assert from 'node:assert/strict';
import { readTally, recordSkip, summary } from '../../runner/tally';
import { tempDir } from '../../support';

describe('the test command: its closing lines', () => {
  it('sums the runs and says each missing thing once, with its count', () => {
    const lines = summary(
      [
        { passes: 10, failures: 1, pending: 5 },
        { passes: 3, failures: 0, pending: 2 },
      ],
      [
        { missing: 'chromium', count: 4 },
        { missing: 'virtuoso-opensource-7-bin', count: 2 },
        { missing: 'chromium', count: 1 },
      ],
    );
    assert.deepEqual(lines, [
      'skipped 5: chromium missing',
      'skipped 2: virtuoso-opensource-7-bin missing',
      '13 passed, 1 failed, 7 skipped',
    ]);
  });

  it('says the skips no missing thing explains, and counts a run that crashed as a failure', () => {
    assert.deepEqual(summary([{ passes: 2, failures: 0, pending: 3 }], [], 1), [
      'skipped 3: marked to skip in the tests',
      '2 passed, 1 failed, 3 skipped',
    ]);
    assert.deepEqual(summary([{ passes: 2, failures: 0, pending: 0 }], []), ['2 passed, 0 failed']);
  });

  it('reads back the skips recorded in its folder, and records none without one', () => {
    const folder = tempDir();
    recordSkip({ missing: 'nginx-light', count: 3 }, folder);
    recordSkip({ missing: 'varnish', count: 1 }, folder);
    recordSkip({ missing: 'nowhere', count: 1 }, '');
    assert.deepEqual(readTally(folder), {
      results: [],
      skips: [
        { missing: 'nginx-light', count: 3 },
        { missing: 'varnish', count: 1 },
      ],
    });
  });
});
