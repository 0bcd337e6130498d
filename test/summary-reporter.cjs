// Mocha's spec reporter, followed by the plain line CI reads: "N passed, N failed[, N skipped]".
// Under the test command (test/run.ts, which sets TEST_TALLY) the counts go to its tally instead,
// and it prints the one line for all its mocha runs.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending } = this.stats;
      const tally = process.env.TEST_TALLY;
      if (tally)
        fs.appendFileSync(
          path.join(tally, 'results'),
          `${JSON.stringify({ passes, failures, pending })}\n`,
        );
      else
        process.stdout.write(
          `${passes} passed, ${failures} failed${pending ? `, ${pending} skipped` : ''}\n`,
        );
    });
  }
}

module.exports = SpecWithSummary;
