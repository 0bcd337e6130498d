// The change log's size on disk (a script, not a test; time budget 2 minutes, the fixture's
// generation included): the bench's 100-version history of 17,000 generated institutions
// (historyFixture.ts), its bytes per version: the first (every institution created, with its
// description) and the later ones (1% of the institutions changed each), against the snapshot of
// one version. Alone: npx tsx test/bench/historyLog.ts
import fs from 'node:fs';
import { readLog } from '../../src/history/log';
import { budgetRow, historyFixture, median } from './historyFixture';

const BUDGET_MINUTES = 2;
const log = (text: string) => process.stdout.write(`${text}\n`);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} kB`;

function main(): void {
  const started = Date.now();
  const fixture = historyFixture();
  const contents = readLog(fixture.log)!;
  const total = fs.statSync(fixture.log).size;
  const snapshot = fs.statSync(fixture.snapshot).size;
  const versions = contents.versions;
  // A version's bytes: from the end of the one before (the header's end for the first) to its own.
  const sizes = versions.map(
    (v, i) => v.end - (i === 0 ? contents.headerEnd : versions[i - 1]!.end),
  );
  const later = sizes.slice(1);
  const events = versions.slice(1).map((v) => v.events.length);
  const perEvent = later.reduce((a, b) => a + b, 0) / events.reduce((a, b) => a + b, 0);
  log(
    `history log: ${versions.length} versions of ${fixture.written.institutions} institutions (generated in ${fixture.seconds.toFixed(1)} s), ${mb(total)} on disk; the last snapshot ${mb(snapshot)}`,
  );
  log('');
  log('| change log | figure | target | |');
  log('|---|---|---|---|');
  log(
    `| change log on disk, ${versions.length} versions (1% changed a version) | ${mb(total)} (${(total / snapshot).toFixed(2)}× one snapshot) | | |`,
  );
  log(
    `| the first version (every institution created) | ${mb(sizes[0]!)} (${(sizes[0]! / snapshot).toFixed(2)}× one snapshot) | | |`,
  );
  log(
    `| each later version: median (min-max) | ${kb(median(later))} (${kb(Math.min(...later))}-${kb(Math.max(...later))}), median ${median(events)} events, ${(perEvent / 1024).toFixed(1)} kB an event | | |`,
  );
  log(budgetRow('historyLog.ts', started, BUDGET_MINUTES));
}

main();
