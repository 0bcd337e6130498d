// Freeing a replaced store (a script, not a test): how long a describe query of the new store
// waits when it is sent right after the old store is freed, against one sent at a quiet moment,
// and the process's RSS before the first load and after each replaced store is gone. Both stores
// as the server holds them after a reload, through StoreThread.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../../src/util/paths';
import { StoreThread } from '../../src/store/embedded/storeThread';

const { values } = parseArgs({
  options: {
    /** The snapshot to load: by default the one `test/bench/reload.ts` writes. */
    snapshot: {
      type: 'string',
      default: path.join(PROJECT_ROOT, '.bench', 'reload', 'dataset.nq'),
    },
    rounds: { type: 'string', default: '3' },
  },
});

const log = (text: string) => process.stdout.write(`${text}\n`);
const rssMb = () => Math.round(process.memoryUsage().rss / 2 ** 20);

async function main(): Promise<void> {
  const snapshot = values.snapshot;
  if (!fs.existsSync(snapshot))
    throw new Error(`no snapshot at ${snapshot}: run test/bench/reload.ts first, or --snapshot`);
  const options = { baseIri: 'https://ld.zdb-services.de' };
  const thread = new StoreThread();
  log(`store free bench: ${snapshot}, ${process.version}, RSS ${rssMb()} MB before any load`);
  log(
    '| round | describe, quiet (ms) | describe right after the old store is freed (ms) | RSS after (MB) |',
  );
  log('|---|---:|---:|---:|');
  let current = (await thread.open({ sources: [snapshot], options })).dataset;
  for (let round = 1; round <= Number(values.rounds); round++) {
    const next = (await thread.open({ sources: [snapshot], options })).dataset;
    const institutions = [...next.institutions()].slice(0, 102);
    // The first queries of a store warm its indexes and the query's plan.
    for (const institution of institutions.slice(0, 100)) await next.describe(institution);
    let started = performance.now();
    await next.describe(institutions[100]!);
    const quiet = performance.now() - started;
    // What a reload's swap does: the previous store freed, the next request answered from the new.
    current.free();
    current = next;
    started = performance.now();
    await next.describe(institutions[101]!);
    const afterFree = performance.now() - started;
    // The old store's memory is released once its thread has ended.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    log(`| ${round} | ${quiet.toFixed(1)} | ${afterFree.toFixed(1)} | ${rssMb()} |`);
  }
  current.free();
  await thread.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
