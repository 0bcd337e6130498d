// The version a server serves at the loader's target while no change log names one: the snapshot at
// DATASET, or the bundled dataset when DATASET is not set and nothing is there. Such a version is
// served with a history of its own (src/history/derived.ts), which the loader's first log keeps:
// the same version adopts its time, another is logged first, as it was served.
import fs from 'node:fs';
import type { Config } from '../src/config/config';
import { dataTime } from '../src/history/derived';
import { statesOf } from '../src/history/states';
import type { Served } from '../src/load/commit/commitVersion';
import { loadSources } from '../src/load/loadSources';
import { readTrailer } from '../src/load/snapshot/snapshot';
import type { Dataset } from '../src/store/dataset';
import { bundledMissing } from '../src/util/bundled';

type ServedConfig = Pick<
  Config,
  'dataset' | 'datasetGiven' | 'baseIri' | 'bundledDataset' | 'statesCache'
>;

/**
 * The version served at `config.dataset` without a log, at the time its history is served at (the
 * one its trailer names, else its data's: `dataTime`), and, when it is not `loaded`'s version, its
 * states, read from its sources as the server reads them. Undefined when nothing is served there
 * that the loader can name (the demonstration data, a snapshot of an older loader).
 */
export async function servedVersion(
  config: ServedConfig,
  loaded: Dataset,
): Promise<Served | undefined> {
  const trailer = trailerAt(config);
  if (trailer === null) return undefined;
  if (trailer === undefined && (config.datasetGiven || bundledMissing().length > 0))
    return undefined;
  if (trailer?.version === loaded.version)
    return {
      version: loaded.version,
      time: trailer.history?.time ?? dataTime(loaded, loaded.loadedAt),
    };
  const served = trailer
    ? await loadSources([config.dataset], { baseIri: config.baseIri, reuseStates: true })
    : await loadSources(config.bundledDataset, {
        baseIri: config.baseIri,
        statesCache: config.statesCache,
        validate: false,
      });
  const { dataset } = served;
  try {
    const time = trailer?.history?.time ?? dataTime(dataset, dataset.loadedAt);
    if (dataset.version === loaded.version) return { version: dataset.version, time };
    const past = {
      ...(await statesOf(dataset)),
      institutions: dataset.institutionCount,
      withdrawn: dataset.withdrawnCount,
    };
    return { version: dataset.version, time, past };
  } finally {
    dataset.free();
  }
}

/** The trailer of the snapshot at DATASET; undefined when there is none, null when unreadable. */
function trailerAt(config: ServedConfig): ReturnType<typeof readTrailer> | undefined | null {
  let fd: number;
  try {
    fd = fs.openSync(config.dataset, 'r');
  } catch {
    return undefined;
  }
  try {
    const trailer = readTrailer(config.dataset, fd, config.baseIri);
    return trailer.version === undefined ? null : trailer;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}
