// The test command: `npm test` runs every tier, `npm run test:<tier>` one, and either runs only
// the files named after `--`. Each run is a mocha process; their counts are summed at the end.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { jobsFrom, plan, type Tier } from './runner/plan';
import { readTally, summary, TALLY } from './runner/tally';

const ROOT = path.join(__dirname, '..');
const MOCHA = path.join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');

const tierFiles = (tier: Tier): string[] =>
  fs
    .readdirSync(path.join(ROOT, 'test', tier), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => path.posix.join('test', tier, file.split(path.sep).join('/')))
    .sort();

function main(): number {
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
  let status = 0;
  let crashed = 0;
  for (const run of runs.runs) {
    const before = readTally(tally).results.length;
    const args = [MOCHA, ...(run.parallel ? ['--parallel', '--jobs', String(jobs)] : [])];
    const child = spawnSync(process.execPath, [...args, ...runs.mochaArgs, ...run.files], {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, [TALLY]: tally },
    });
    if (child.status !== 0) status = 1;
    if (readTally(tally).results.length === before) {
      process.stderr.write(
        `mocha ended (${child.status ?? child.signal}) without counting its tests\n`,
      );
      crashed++;
    }
  }
  const { results, skips } = readTally(tally);
  fs.rmSync(tally, { recursive: true, force: true });
  process.stdout.write(`\n${summary(results, skips, crashed).join('\n')}\n`);
  return status;
}

process.exitCode = main();
