// Measures two builds by turns: `npm run bench` of a base revision and of the working tree, in
// mirrored order (base, head, head, base, base, head, …) so that neither side always runs first,
// and the machine's drift and whatever the run before leaves behind fall on both alike; then the
// median of each figure per side and their ratio. What a change that must not move the figures
// (a restructuring) reports:
//   npm run bench:ab -- --base a452229 [--head REV] --turns 3 [-- bench options, e.g. --forks 1]
// Each revision named is checked out in a git worktree under .bench/ab/ and installed with
// `npm ci` once; without --head, the head is the working tree. With --public, each run stops once
// its forks have measured the public cases (the first table: 303, cached, 304, uncached, against
// the Express baseline of the same fork), about five minutes a run with `--forks 1` against 35 for
// the whole bench; the figures are then those cases' req/s and ratios, read as the forks print them.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../../src/util/paths';

const AB = path.join(PROJECT_ROOT, '.bench', 'ab');

/** A figure of one run: the case's req/s and its ratio to Express, or a figure's first number. */
type Figures = Map<string, number>;

/**
 * `revision` checked out in .bench/ab/<side> and installed (once per revision), so that the
 * working tree may change while the turns run.
 */
function checkout(side: 'base' | 'head', revision: string): string {
  const dir = path.join(AB, side);
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim();
  const commit = git('rev-parse', '--verify', `${revision}^{commit}`);
  if (fs.existsSync(dir)) {
    const at = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8' });
    if (at.trim() === commit) return dir;
    git('worktree', 'remove', '--force', dir);
  }
  fs.mkdirSync(AB, { recursive: true });
  git('worktree', 'add', '--detach', dir, commit);
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  return dir;
}

/**
 * One run of the bench in `dir` with `args`, its output kept in `out`; with `forks`, stopped (its
 * process group: the servers it started with it) once that many forks have measured the public
 * cases.
 */
function run(dir: string, args: readonly string[], out: string, forks?: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join('test', 'bench', 'bench.ts'), ...args],
      { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'], detached: forks !== undefined },
    );
    const chunks: Buffer[] = [];
    let stopped = false;
    child.stdout.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString('utf8');
      if (forks !== undefined && !stopped && (text.match(LAST_CASE) ?? []).length >= forks) {
        stopped = true;
        process.kill(-child.pid!, 'SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const text = Buffer.concat(chunks).toString('utf8');
      fs.writeFileSync(out, text);
      if (code === 0 || stopped) resolve(text);
      else reject(new Error(`the bench in ${dir} exited with ${code}; its output: ${out}`));
    });
  });
}

/** The line each fork prints after its last public case. */
const LAST_CASE = /^ {2}baseline Express 5 \(again, at the end\): /gm;

/**
 * The public cases' figures as the forks print them (`  200 .ttl (cached): 7923 req/s; …`): each
 * case's mean req/s over the forks, and its ratio to the mean of the Express baseline's runs.
 */
export function publicFiguresOf(text: string): Figures {
  const rates = new Map<string, number[]>();
  for (const [, name, rps] of text.matchAll(/^ {2}([^:\n]+): (\d+) req\/s;/gm))
    rates.set(name!, [...(rates.get(name!) ?? []), Number(rps)]);
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const express = mean(
    [...rates].filter(([name]) => name.startsWith('baseline Express 5')).flatMap(([, r]) => r),
  );
  const figures: Figures = new Map();
  for (const [name, list] of rates) {
    figures.set(`${name}: req/s`, Math.round(mean(list)));
    if (!name.startsWith('baseline'))
      figures.set(`${name}: × Express`, Math.round((100 * mean(list)) / express) / 100);
  }
  return figures;
}

/** The figures of the bench's two summary tables. */
export function figuresOf(text: string): Figures {
  const figures: Figures = new Map();
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length < 4 || cells[1] === '' || /^-+:?$/.test(cells[2]!)) continue;
    // A figure's name without what changes from run to run ("slowest fork (each: 6.5 s)").
    const name = cells[1]!.replace(/ \(each: [^)]*\)/, '');
    const first = cells[2];
    const number = /-?\d+(?:\.\d+)?/.exec(first!.replace(/,/g, ''))?.[0];
    if (number === undefined || ['case', 'figure', 'window'].includes(name)) continue;
    if (name.startsWith('round ')) continue;
    // A case row: req/s (mean), each fork, p50, p99, errors, × Express.
    if (cells.length >= 10 && /^\d+$/.test(first!)) {
      figures.set(`${name}: req/s`, Number(number));
      figures.set(`${name}: × Express`, Number(cells[7]));
      figures.set(`${name}: p99 ms`, Number(cells[5]));
    } else figures.set(name, Number(number));
  }
  const met = /bench: (\d+) of (\d+) targets met/.exec(text);
  if (met) figures.set(`targets met (of ${met[2]})`, Number(met[1]));
  return figures;
}

const median = (xs: readonly number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** The table of medians: each figure of the base and of the head, and head / base. */
function table(base: Figures[], head: Figures[]): string {
  const rows = ['| figure | base (median) | head (median) | head / base | base runs | head runs |'];
  rows.push('|---|---:|---:|---:|---|---|');
  for (const name of base[0]!.keys()) {
    const a = base.map((f) => f.get(name)).filter((x): x is number => x !== undefined);
    const b = head.map((f) => f.get(name)).filter((x): x is number => x !== undefined);
    if (a.length === 0 || b.length === 0) continue;
    const [ma, mb] = [median(a), median(b)];
    const ratio = ma === 0 ? '' : (mb / ma).toFixed(2);
    rows.push(`| ${name} | ${ma} | ${mb} | ${ratio} | ${a.join(', ')} | ${b.join(', ')} |`);
  }
  return rows.join('\n');
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      base: { type: 'string' },
      head: { type: 'string' },
      turns: { type: 'string', default: '3' },
      public: { type: 'boolean', default: false },
    },
    allowPositionals: true,
  });
  const turns = Number(values.turns);
  if (!values.base || !Number.isInteger(turns) || turns < 1) {
    process.stderr.write(
      'usage: npm run bench:ab -- --base REV [--head REV] [--turns N] [--public] [-- bench options]\n',
    );
    process.exit(2);
  }
  // The forks the bench runs (its --forks, 3 unless given), after which a --public run stops.
  const forksAt = positionals.findIndex((a) => a === '--forks' || a.startsWith('--forks='));
  const forksGiven = positionals[forksAt]?.startsWith('--forks=')
    ? positionals[forksAt]!.slice('--forks='.length)
    : positionals[forksAt + 1];
  const forks = values.public ? (forksAt >= 0 ? Number(forksGiven) : 3) : undefined;
  if (forks !== undefined && !(Number.isInteger(forks) && forks >= 1)) {
    process.stderr.write(`--forks: a whole number of at least 1, not ${forksGiven}\n`);
    process.exit(2);
  }
  const baseDir = checkout('base', values.base);
  // The working tree unless a revision is named.
  const headDir = values.head === undefined ? PROJECT_ROOT : checkout('head', values.head);
  const base: Figures[] = [];
  const head: Figures[] = [];
  const figures = values.public ? publicFiguresOf : figuresOf;
  for (let turn = 1; turn <= turns; turn++) {
    // Base first in odd turns, head first in even ones: with base always first, head's public cases
    // measured about 10% lower, where the two builds interleaved base, head, head, base (ten runs
    // of 303 and cached .ttl after the warm phase) were within 4% of each other (docs/benchmark.md).
    const sides = [
      ['base', baseDir, base],
      ['head', headDir, head],
    ] as const;
    for (const [side, dir, into] of turn % 2 ? sides : [...sides].reverse()) {
      process.stderr.write(`turn ${turn} of ${turns}: ${side}\n`);
      const out = path.join(AB, `${side}-${turn}.txt`);
      into.push(figures(await run(dir, positionals, out, forks)));
    }
  }
  process.stdout.write(`${table(base, head)}\n`);
}

if (require.main === module)
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  });
