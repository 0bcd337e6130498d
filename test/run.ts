// The test command: `npm test` runs every tier, `npm run test:<tier>` one, and either runs only
// the files named after `--`. Each run is a mocha process; their counts are summed at the end.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { jobsFrom, plan, type Run, type Tier } from './runner/plan';
import { readTally, summary, TALLY } from './runner/tally';

const ROOT = path.join(__dirname, '..');
const MOCHA = path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');

const tierFiles = (tier: Tier): string[] =>
  fs
    .readdirSync(path.join(ROOT, 'test', tier), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => path.posix.join('test', tier, file.split(path.sep).join('/')))
    .sort();

interface Ended {
  readonly code: number | null;
  /** What it printed, when it ran beside the first run (printed after that one's). */
  readonly output: Buffer[];
}

/** Starts one mocha run; the first prints as it goes, the others keep their output till the end. */
function start(
  run: Run,
  first: boolean,
  jobs: number,
  mochaArgs: readonly string[],
  tally: string,
) {
  const parallel = run.parallel ? ['--parallel', '--jobs', String(jobs)] : [];
  const child = spawn(process.execPath, [MOCHA, ...parallel, ...mochaArgs, ...run.files], {
    cwd: ROOT,
    stdio: first ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, [TALLY]: tally },
  });
  const output: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
  return new Promise<Ended>((resolve) => child.once('close', (code) => resolve({ code, output })));
}

async function main(): Promise<number> {
  let jobs: number;
  let runs: ReturnType<typeof plan>;
  try {
    jobs = jobsFrom(process.env.TEST_JOBS);
    runs = plan(process.argv.slice(2), jobs, {
      tierFiles,
      isPath: (arg) => arg.includes('*') || fs.existsSync(arg),
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
  const tally = fs.mkdtempSync(path.join(os.tmpdir(), 'isil-ld-tally-'));
  // The serial run (the suites sharing one Virtuoso) goes beside the parallel one: much of its
  // time is spent waiting on Virtuoso and on servers, not on a core of its own.
  const ended = await Promise.all(
    runs.runs.map((run, i) => start(run, i === 0, jobs, runs.mochaArgs, tally)),
  );
  for (const { output } of ended) for (const chunk of output) process.stdout.write(chunk);
  const { results, skips } = readTally(tally);
  fs.rmSync(tally, { recursive: true, force: true });
  const crashed = Math.max(0, runs.runs.length - results.length);
  if (crashed > 0)
    process.stderr.write(`${crashed} mocha runs ended without counting their tests\n`);
  process.stdout.write(`\n${summary(results, skips, crashed).join('\n')}\n`);
  return ended.every(({ code }) => code === 0) ? 0 : 1;
}

main().then((status) => (process.exitCode = status));
