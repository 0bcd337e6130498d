// The change log's cost to a load (a script, not a test; time budget 8 minutes, the fixture's
// generation included): `npm run load` of one more version (101) over the bench's 100-version
// history of 17,000 generated institutions (historyFixture.ts), with the change log (HISTORY_DIR:
// the log read, the version compared, its events appended) against without (HISTORY_DIR=''), by
// turns, 3 each, each turn on a fresh copy of the fixture. Alone:
//   npx tsx test/bench/historyLoad.ts [--loader dist/cli/loadCommand.js] [--turns 3]
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../../src/util/paths';
import {
  budgetRow,
  copyFixture,
  HISTORY_BENCH_DIR,
  historyFixture,
  median,
  seconds,
  type Fixture,
} from './historyFixture';

const { values } = parseArgs({
  options: {
    /** The compiled loader `npm run bench` measures (as the image runs it); tsx otherwise. */
    loader: { type: 'string' },
    turns: { type: 'string', default: '3' },
  },
});
const TURNS = Number(values.turns);
const BUDGET_MINUTES = 8;
/** The goal: a load with the log at most this many times one without. */
const GOAL = 1.2;
const log = (text: string) => process.stdout.write(`${text}\n`);
const TIME = '/usr/bin/time';

/** One load of the next version over a fresh copy of the fixture; its wall time and its report. */
function loadOnce(
  fixture: Fixture,
  withLog: boolean,
): { ms: number; cpuMs: number; outcome: string } {
  const copy = copyFixture(fixture, path.join(HISTORY_BENCH_DIR, 'load'));
  const command = values.loader
    ? [values.loader]
    : ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli', 'loadCommand.ts')];
  const started = Date.now();
  // /usr/bin/time gives the CPU time (the loader's threads and its validation workers): on a
  // machine shared with other work the steadier figure.
  const run = spawnSync(
    TIME,
    ['-f', 'TIME %U %S', process.execPath, ...command, '--quiet', fixture.next],
    {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        BASE_IRI: fixture.base,
        DATASET: copy.snapshot,
        HISTORY_DIR: withLog ? copy.historyDir : '',
      },
      encoding: 'utf8',
    },
  );
  const ms = Date.now() - started;
  if (run.status !== 0) throw new Error(`load failed: ${run.stderr}`);
  const outcome = /; (snapshot .*?); peak memory/.exec(run.stdout)?.[1] ?? run.stdout.trim();
  const [user, system] = (/TIME ([\d.]+) ([\d.]+)/.exec(run.stderr) ?? []).slice(1).map(Number);
  return { ms, cpuMs: ((user ?? NaN) + (system ?? NaN)) * 1000, outcome };
}

function main(): void {
  if (!Number.isInteger(TURNS) || TURNS < 1)
    throw new Error(`--turns: a whole number, not ${TURNS}`);
  const started = Date.now();
  const fixture = historyFixture();
  log(
    `history load: one more version over ${fixture.written.versions} versions of ${fixture.written.institutions} institutions, ${TURNS} turns, loader ${values.loader ?? 'cli/loadCommand.ts through tsx'}`,
  );
  const withLog: number[] = [];
  const without: number[] = [];
  const cpu = { withLog: [] as number[], without: [] as number[] };
  for (let turn = 1; turn <= TURNS; turn++) {
    // By turns, the order mirrored each turn: the machine drifts over a run.
    const order = turn % 2 === 1 ? [true, false] : [false, true];
    for (const logged of order) {
      const { ms, cpuMs, outcome } = loadOnce(fixture, logged);
      (logged ? withLog : without).push(ms);
      (logged ? cpu.withLog : cpu.without).push(cpuMs);
      log(
        `  turn ${turn}, ${logged ? 'with the log' : "HISTORY_DIR=''"}: ${seconds(ms)}, CPU ${seconds(cpuMs)} (${outcome})`,
      );
    }
  }
  const ratio = median(withLog) / median(without);
  const cpuRatio = median(cpu.withLog) / median(cpu.without);
  log('');
  log('| history load | figure | target | |');
  log('|---|---|---|---|');
  log(
    `| load of one more version with the change log / without (medians of ${TURNS} turns: ${withLog.map(seconds).join(', ')} / ${without.map(seconds).join(', ')}) | ${ratio.toFixed(2)}× | ≤ ${GOAL}× | ${ratio <= GOAL ? 'PASS' : 'MISS'} |`,
  );
  log(
    `| the same, CPU time (${cpu.withLog.map(seconds).join(', ')} / ${cpu.without.map(seconds).join(', ')}) | ${cpuRatio.toFixed(2)}× | | |`,
  );
  log(budgetRow('historyLoad.ts', started, BUDGET_MINUTES));
}

main();
