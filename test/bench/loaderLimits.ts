// Bench of the loader's limits (a script, not a test): the peak memory of `npm run load` on about
// 200 MB of RDF without an institution (refused) and with institutions, per input MB, and the time
// a 100,000-level chain of blank nodes takes to load, be written, and load again. Run alone with
// `npx tsx test/bench/loaderLimits.ts`; test/bench/bench.ts prints its rows too.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generate } from '../../cli/generate';
import { PROJECT_ROOT } from '../../src/util/paths';

const BASE = 'https://ld.zdb-services.de';
/** The size of the two large inputs: near the sizes once measured (200 MB, 2.96 GB peak). */
const INPUT_BYTES = 200 * 1000 * 1000;
const CHAIN_DEPTH = 100_000;
const DIST_LOADER = path.join(PROJECT_ROOT, '.bench', 'dist', 'cli', 'loadCommand.js');

/**
 * The loader as the image runs it (compiled by test/bench/bench.ts) when that build is newer than
 * every loader source, else through tsx.
 */
function loaderCommand(): string[] {
  const built = fs.statSync(DIST_LOADER, { throwIfNoEntry: false })?.mtimeMs;
  const sources = ['cli', path.join('src', 'store')].flatMap((folder) =>
    fs
      .readdirSync(path.join(PROJECT_ROOT, folder), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .map((name) => fs.statSync(path.join(PROJECT_ROOT, folder, name)).mtimeMs),
  );
  return built !== undefined && sources.every((changed) => changed < built)
    ? [DIST_LOADER]
    : ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli', 'loadCommand.ts')];
}

interface LoadRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly seconds: number;
  /** The loader process's peak resident set, MB (worker threads included). */
  readonly peakMb: number;
}

/** `npm run load -- …args` writing `dataset`, with its peak RSS read as it exits. */
function runLoader(work: string, dataset: string, args: string[]): LoadRun {
  const peakFile = path.join(work, 'peak');
  const preload = path.join(work, 'peak.cjs');
  fs.writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(peakFile)}, String(process.resourceUsage().maxRSS)));\n`,
  );
  fs.rmSync(peakFile, { force: true });
  const began = performance.now();
  const run = spawnSync(process.execPath, ['--require', preload, ...loaderCommand(), ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, DATASET: dataset, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const seconds = (performance.now() - began) / 1000;
  const peakMb = Number(fs.readFileSync(peakFile, 'utf8')) / 1024;
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, seconds, peakMb };
}

/** Writes lines from `next` to `file` until it holds about `bytes`; returns the bytes written. */
function writeUntil(file: string, bytes: number, next: () => string): number {
  const fd = fs.openSync(file, 'w');
  let written = 0;
  try {
    while (written < bytes) {
      let batch = '';
      while (batch.length < 1 << 20) batch += next();
      written += fs.writeSync(fd, batch);
    }
  } finally {
    fs.closeSync(fd);
  }
  return written;
}

const mb = (bytes: number) => bytes / 1e6;

export async function loaderLimits(): Promise<{ label: string; value: string }[]> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'isil-ld-bench-loader-'));
  const rows: { label: string; value: string }[] = [];
  const expect = (run: LoadRun, status: number, what: string) => {
    if (run.status !== status)
      throw new Error(`${what}: exit ${run.status}, not ${status}: ${run.stderr.slice(0, 500)}`);
  };
  try {
    const snapshot = path.join(work, 'dataset.nq');

    // About 200 MB of valid N-Triples, no institution: refused right after parsing.
    const none = path.join(work, 'none.nt');
    let n = 0;
    const noneBytes = writeUntil(none, INPUT_BYTES, () => {
      n++;
      return `<http://example.org/thing/${n}> <http://example.org/p${n % 7}> "value number ${n} of plain data" .\n`;
    });
    fs.writeFileSync(snapshot, 'the snapshot before\n');
    const refused = runLoader(work, snapshot, [none]);
    expect(refused, 1, 'the load without an institution');
    if (fs.readFileSync(snapshot, 'utf8') !== 'the snapshot before\n')
      throw new Error('the refused load changed the snapshot');
    rows.push({
      label: `npm run load, ${mb(noneBytes).toFixed(0)} MB of N-Triples without an institution (refused): peak RSS`,
      value: `${refused.peakMb.toFixed(0)} MB (${(refused.peakMb / mb(noneBytes)).toFixed(1)} MB per input MB), ${refused.seconds.toFixed(1)} s`,
    });
    fs.rmSync(none);

    // About 200 MB of generated institutions, loaded and written (not validated: SHACL would add
    // a millisecond an institution and nothing to the memory a byte).
    const institutions = path.join(work, 'institutions.nt');
    const generated = generate({ count: 1_000_000, seed: 3, base: BASE })[Symbol.iterator]();
    let count = 0;
    const institutionBytes = writeUntil(institutions, INPUT_BYTES, () => {
      count++;
      return generated.next().value as string;
    });
    const loaded = runLoader(work, snapshot, ['--skip-validation', institutions]);
    expect(loaded, 0, 'the load of generated institutions');
    rows.push({
      label: `npm run load, ${mb(institutionBytes).toFixed(0)} MB of N-Triples, ${count.toLocaleString('en')} institutions, snapshot written: peak RSS`,
      value: `${loaded.peakMb.toFixed(0)} MB (${(loaded.peakMb / mb(institutionBytes)).toFixed(1)} MB per input MB), ${loaded.seconds.toFixed(1)} s`,
    });
    fs.rmSync(institutions);

    // A chain of 100,000 blank nodes below one institution, deepest first (the order that made
    // cutting a snapshot into pieces quadratic), written and loaded again.
    const I = `<${BASE}/resource/organisations/DE-Deep>`;
    const lines = [
      `${I} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Organization> .`,
      `${I} <http://xmlns.com/foaf/0.1/name> "Deep" .`,
    ];
    for (let i = CHAIN_DEPTH - 1; i >= 0; i--)
      lines.push(`_:b${i} <http://example.org/next> _:b${i + 1} .`);
    lines.push(`${I} <http://example.org/next> _:b0 .`);
    const chain = path.join(work, 'chain.nt');
    fs.writeFileSync(chain, `${lines.join('\n')}\n`);
    const first = runLoader(work, snapshot, [chain]);
    expect(first, 0, 'the chain');
    const copy = path.join(work, 'chain.nq');
    fs.copyFileSync(snapshot, copy);
    const again = runLoader(work, snapshot, [copy]);
    expect(again, 0, "the chain's snapshot");
    rows.push(
      {
        label: `npm run load, a chain of ${CHAIN_DEPTH.toLocaleString('en')} blank nodes, snapshot written`,
        value: `${first.seconds.toFixed(1)} s, peak RSS ${first.peakMb.toFixed(0)} MB`,
      },
      {
        label: 'npm run load, that snapshot loaded again and written',
        value: `${again.seconds.toFixed(1)} s, peak RSS ${again.peakMb.toFixed(0)} MB`,
      },
    );
    return rows;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  loaderLimits().then(
    (rows) => {
      for (const { label, value } of rows) process.stdout.write(`${label}: ${value}\n`);
    },
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
