// The OAI-PMH step of `npm run bench`: Debian's harvester (`oai_pmh`) harvests ListRecords (oai_dc)
// of 17,000 institutions from the real server, through every resumption token, then incrementally
// from a late version's time; prints each harvest's time and records a second, and the server's
// memory (RSS) idle and at its peak while they run. The history is the 100-version one of
// `npm run generate -- --history 100 --change 0.01` when the generator has it, else the five
// versions of the tests' registry (test/support/history.ts) over as many institutions.
// Budget: 15 minutes (the step stops itself past it). Run alone: `npx tsx test/bench/oaiHarvest.ts`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../../src/util/paths';
import { LOG_FILE, readLog } from '../../src/history/log';
import { registryVersions, writeHistory } from '../support/history';
import { startServerProcess } from '../support/serverProcess';
import { hasHarvester, readHarvest, runHarvester } from '../support/oaiHarvester';
import { tempDir } from '../support';
import { rssOf } from './hardening';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '17000' },
    versions: { type: 'string', default: '100' },
  },
});
const COUNT = Number(values.count);
const VERSIONS = Number(values.versions);
const BUDGET_MS = 15 * 60_000;

const log = (line: string) => process.stdout.write(`${line}\n`);
const stamp = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 19)}Z`;

/** The snapshot and change log to serve, and how they were made. */
async function history(): Promise<{ dataset: string; historyDir: string; made: string }> {
  const generator = fs.readFileSync(path.join(PROJECT_ROOT, 'cli', 'generate.ts'), 'utf8');
  if (generator.includes('--history')) {
    const dir = tempDir();
    const dataset = path.join(dir, 'dataset.nq');
    const historyDir = path.join(dir, 'history');
    const args = ['--history', String(VERSIONS), '--change', '0.01', '--count', String(COUNT)];
    const run = spawnSync(
      'npm',
      ['run', '--silent', 'generate', '--', ...args, '--out', dataset, '--history-dir', historyDir],
      { cwd: PROJECT_ROOT, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn' } },
    );
    if (run.status !== 0) throw new Error(`npm run generate failed: ${run.stderr}`);
    return { dataset, historyDir, made: `npm run generate -- ${args.join(' ')}` };
  }
  const fixture = await writeHistory(registryVersions(COUNT));
  return {
    dataset: fixture.dataset,
    historyDir: fixture.historyDir,
    made: `5 versions of test/support/history.ts's registry (the generator has no --history here)`,
  };
}

async function main(): Promise<void> {
  if (!hasHarvester) {
    log('oai harvest: skipped (oai_pmh missing: sudo bash .ci/packages)');
    return;
  }
  const started = Date.now();
  const made = await history();
  const versions = readLog(path.join(made.historyDir, LOG_FILE))?.versions ?? [];
  log(
    `oai harvest: ${COUNT} institutions, ${versions.length} versions (${made.made}), in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  const server = await startServerProcess({
    env: {
      DATASET: made.dataset,
      HISTORY_DIR: made.historyDir,
      BASE_IRI: 'https://ld.zdb-services.de',
      LOG_LEVEL: 'info',
    },
  });
  try {
    const url = `http://127.0.0.1:${server.port}/oai`;
    await fetch(`${url}?verb=Identify`);
    const idle = rssOf(server.pid);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(server.pid))), 200);
    const full = await runHarvester(url, ['--metadataPrefix', 'oai_dc']);
    const records = readHarvest(full.output);
    const fullPeak = peak;
    log(
      `| oai full harvest (ListRecords oai_dc, oai_pmh) | ${records.length} records (${records.filter((r) => r.deleted).length} deleted) | ${full.seconds.toFixed(1)} s | ${Math.round(records.length / full.seconds)} records/s |`,
    );
    // From the version a tenth of the way back from the last: the changes of the last tenth.
    const from = versions[Math.max(0, Math.floor(versions.length * 0.9))]!.time;
    const incremental = await runHarvester(url, [
      '--metadataPrefix',
      'oai_dc',
      '--from',
      stamp(from),
    ]);
    const changed = readHarvest(incremental.output);
    clearInterval(sampler);
    log(
      `| oai incremental harvest (--from ${stamp(from)}) | ${changed.length} records | ${incremental.seconds.toFixed(1)} s | ${Math.round(changed.length / incremental.seconds)} records/s |`,
    );
    log(
      `oai harvest memory: RSS idle ${idle} MB, peak during the full harvest ${fullPeak} MB, during both ${peak} MB`,
    );
  } finally {
    server.child.kill('SIGTERM');
    await server.exit;
  }
}

const budget = setTimeout(() => {
  log(`oai harvest: past its budget of ${BUDGET_MS / 60_000} minutes, stopped`);
  process.exit(1);
}, BUDGET_MS);
budget.unref();
main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(`oai harvest failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
