// The version a server serves at the loader's target while no change log names one: the snapshot at
// DATASET, or the bundled dataset when DATASET is not set and nothing is there. Such a version is
// served with a history of its own (src/history/derived.ts); the loader's first log entry adopts it.
import fs from 'node:fs';
import type { Config } from '../src/config';
import { dataTime } from '../src/history/derived';
import { bundledMissing } from '../src/util/bundled';
import type { Dataset } from '../src/store/dataset';
import { loadSources } from '../src/load/loadSources';
import { readTrailer } from '../src/load/snapshot';

/** A served version; its time (the one its history shows) is known when it is the loaded one's. */
export interface ServedVersion {
  readonly version: string;
  readonly time?: number;
}

/**
 * The version served at `config.dataset` without a log, and, when it is `loaded`'s version, the
 * time its history is served at: the one its trailer names, else its data's (`dataTime`). Undefined
 * when nothing is served there that the loader can name (the demonstration data, a snapshot of an
 * older loader without a version).
 */
export async function servedVersion(
  config: Pick<Config, 'dataset' | 'datasetGiven' | 'baseIri' | 'bundledDataset' | 'statesCache'>,
  loaded: Dataset,
): Promise<ServedVersion | undefined> {
  const own = (version: string, time: () => number): ServedVersion =>
    version === loaded.version ? { version, time: time() } : { version };
  let fd: number | undefined;
  try {
    fd = fs.openSync(config.dataset, 'r');
  } catch {
    fd = undefined;
  }
  if (fd !== undefined) {
    try {
      const trailer = readTrailer(config.dataset, fd, config.baseIri);
      if (trailer.version === undefined) return undefined;
      return own(trailer.version, () => trailer.history?.time ?? dataTime(loaded, loaded.loadedAt));
    } catch {
      return undefined;
    } finally {
      fs.closeSync(fd);
    }
  }
  if (config.datasetGiven || bundledMissing().length > 0) return undefined;
  // Its version is read as the server reads it (from the states cache once it has served it).
  const bundled = await loadSources(config.bundledDataset, {
    baseIri: config.baseIri,
    statesCache: config.statesCache,
    validate: false,
  });
  try {
    const { version } = bundled.dataset;
    return own(version, () => dataTime(bundled.dataset, bundled.dataset.loadedAt));
  } finally {
    bundled.dataset.free();
  }
}
