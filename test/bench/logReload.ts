// The serving thread while a reload reads a large change log (a script, not a test): the bench's
// history (historyFixture.ts: 100 versions of 17,000 generated institutions) read as a reload
// reads it, the whole file at once (readLog, as before) and in turns (readLogInTurns), each then
// made the served history (fileHistory), while a bystander timer runs every millisecond; prints
// the longest event-loop stall (perf_hooks monitorEventLoopDelay) and the time to read, by turns.
//   npx tsx test/bench/logReload.ts [--turns 3]
import { monitorEventLoopDelay } from 'node:perf_hooks';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { committed, fileHistory, readLog, readLogInTurns } from '../../src/history/log';
import { historyFixture, median } from './historyFixture';

const { values } = parseArgs({ options: { turns: { type: 'string', default: '3' } } });
const TURNS = Number(values.turns);
const BASE = 'https://ld.zdb-services.de';
const log = (text: string) => process.stdout.write(`${text}\n`);

interface Figures {
  readonly stallMs: number;
  readonly readMs: number;
}

/** One read of `file` by `read`, the event loop's longest stall meanwhile. */
async function measure(
  file: string,
  read: (file: string) => Promise<ReturnType<typeof readLog>>,
): Promise<Figures> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  // A bystander: something the loop must get to, as requests are.
  const bystander = setInterval(() => undefined, 1);
  delay.enable();
  // The monitor's timer has run once before the read begins: a stall from its start is counted.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const started = performance.now();
  const history = fileHistory(committed((await read(file))!, undefined), BASE);
  const readMs = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 20));
  delay.disable();
  clearInterval(bystander);
  history.close();
  return { stallMs: delay.max / 1e6, readMs };
}

async function main(): Promise<void> {
  const fixture = historyFixture();
  const bytes = fs.statSync(fixture.log).size;
  const whole: Figures[] = [];
  const turns: Figures[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    whole.push(await measure(fixture.log, (file) => Promise.resolve(readLog(file))));
    turns.push(await measure(fixture.log, readLogInTurns));
  }
  const ms = (xs: readonly number[]) => `${median(xs).toFixed(0)} ms`;
  log(
    `change log of ${(bytes / 1024 / 1024).toFixed(0)} MB (${fixture.written.events} events), ${TURNS} turns each, medians`,
  );
  log('');
  log('| reload reading the change log | longest stall | time to read | |');
  log('|---|---|---|---|');
  const row = (name: string, figures: Figures[]) =>
    log(
      `| ${name} | ${ms(figures.map((f) => f.stallMs))} | ${ms(figures.map((f) => f.readMs))} | |`,
    );
  row('at once (readLog)', whole);
  row('in turns (readLogInTurns)', turns);
  log(
    `| stall in turns / at once | ${(median(turns.map((f) => f.stallMs)) / median(whole.map((f) => f.stallMs))).toFixed(3)} | | |`,
  );
}

void main();
