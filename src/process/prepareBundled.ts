// Before the first load of the bundled dataset: its third-party files fetched into data/third-party/
// when missing (from THIRD_PARTY_DIR, else from their origins), or, when they cannot be had, the
// generated demonstration dataset written in their place, said in one line of the log.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/config';
import { generate } from '../generate/generated';
import type { Logger } from '../util/logger';
import { BUNDLED_NAMES, DEMONSTRATION_COUNT } from '../util/bundled';
import { fetchThirdParty, FETCH_COMMAND, THIRD_PARTY_DIR } from '../util/thirdParty';

/** How long the start waits for the bundled files from their origins before it serves the demonstration. */
const FETCH_AT_START_MS = 15_000;

/**
 * Makes the bundled dataset servable when it is what the server loads (no remote store, DATASET
 * unset and nothing at its default path): fetched, or the demonstration dataset written instead.
 */
export async function prepareBundled(config: Config, logger: Logger): Promise<void> {
  if (config.store.kind === 'remote' || config.datasetGiven || fs.existsSync(config.dataset))
    return;
  const outcomes = await fetchThirdParty({
    names: BUNDLED_NAMES,
    ...(config.thirdPartyDir ? { from: config.thirdPartyDir } : {}),
    timeoutMs: FETCH_AT_START_MS,
  });
  for (const outcome of outcomes)
    if (outcome.outcome === 'fetched')
      logger.info({ file: outcome.name, from: outcome.from }, 'bundled data file fetched');
  const failed = outcomes.flatMap((o) => (o.outcome === 'failed' ? [o.reason] : []));
  if (failed.length === 0) return;
  writeDemonstration(config);
  logger.warn(
    { missing: failed },
    `the bundled dataset is missing ${failed.length} of its ${BUNDLED_NAMES.length} files (${failed[0]}): serving ${DEMONSTRATION_COUNT} generated demonstration institutions instead; ${FETCH_COMMAND} (or ${THIRD_PARTY_DIR}=<folder>) fetches the real data, and a reload (SIGHUP) serves it`,
  );
}

/** The demonstration dataset, written whole to a temporary file and renamed into place. */
function writeDemonstration(config: Config): void {
  const target = config.demonstrationDataset;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const partial = `${target}.tmp-${process.pid}`;
  const lines = [...generate({ count: DEMONSTRATION_COUNT, seed: 1, base: config.baseIri })];
  fs.writeFileSync(partial, lines.join(''));
  fs.renameSync(partial, target);
}
