// The history an embedded version is served with (docs/history.md): the change log in HISTORY_DIR
// up to the version the snapshot names, read as it is. A snapshot that is not the log's last
// version (an older file restored in place) gets its difference appended as a new version at its
// own time: history never runs backwards; a log that cannot take it is refused, never replaced by
// another history. Without a log (the bundled sources, HISTORY_DIR='', a
// snapshot written without one) the version is a history of its own: one version, every ISIL
// created at its time.
import type { Config, DatasetLoad } from '../../config/config';
import { dataTime, derivedHistory } from '../../history/derived';
import {
  committed,
  fileHistory,
  type Committed,
  foreignTo,
  HistoryError,
  LOG_FILE,
  LogReplaced,
  readLogInTurns,
  statesAfter,
  type Pointer,
} from '../../history/log';
import { describedBy, LogWriter } from '../../history/logWriter';
import { diff, versionTime, type History } from '../../history/model';
import { statesOf } from '../../history/states';
import { snapshotPointer } from '../../load/commit/commitVersion';
import { LoadError } from '../../load/loadError';
import type { Logger } from '../../util/logger';
import type { Dataset } from '../dataset';
import path from 'node:path';

/**
 * The history of `dataset`, opened from `load`. A log that is not this snapshot's well-formed
 * history (another base, another dataset's, damaged) is refused as its snapshot would be (a
 * LoadError naming it and the line), and so is a restored snapshot whose difference the log cannot
 * take (a folder that cannot be written): serving it with a history of its own would change pages
 * served as immutable. A version the snapshot names without its commit line gets it here.
 */
export async function embeddedHistory(
  config: Pick<Config, 'historyDir' | 'baseIri' | 'dataset'>,
  load: DatasetLoad,
  dataset: Dataset,
  logger?: Logger,
): Promise<History> {
  // A log renamed over while it was read (a loader's retention) is read again, as it is now.
  for (let attempt = 1; ; attempt++) {
    try {
      return await historyOfLog(config, load, dataset, logger, attempt === 3);
    } catch (error) {
      if (!(error instanceof LogReplaced)) throw error;
    }
  }
}

async function historyOfLog(
  config: Pick<Config, 'historyDir' | 'baseIri' | 'dataset'>,
  load: DatasetLoad,
  dataset: Dataset,
  logger: Logger | undefined,
  lastAttempt: boolean,
): Promise<History> {
  const own = (time?: number) =>
    derivedHistory(dataset, time ?? dataTime(dataset, dataset.loadedAt));
  if (!load.snapshot) return own();
  // The version the trailer read with the data names, not the file now at DATASET: a loader may
  // have renamed its next version into place since the data was read.
  const pointer = dataset.logVersion ?? snapshotPointer(config.dataset, config.baseIri);
  if (config.historyDir === '') return own(pointer?.time);
  const file = path.join(config.historyDir, LOG_FILE);
  try {
    // Read in turns: the serving thread answers requests while a reload reads a large log.
    const contents = await readLogInTurns(file);
    if (contents === undefined || contents.versions.length === 0) {
      const foreign = contents && foreignTo(contents, pointer);
      if (foreign) throw new HistoryError(`${file}: ${foreign}`);
      return own(pointer?.time);
    }
    const foreign = foreignTo(contents, pointer);
    if (foreign !== undefined) throw new HistoryError(`${file}: ${foreign}`);
    let log = committed(contents, pointer);
    const overtaken =
      pointer && !samePointer(snapshotPointer(config.dataset, config.baseIri), pointer);
    const read = overtaken ? upTo(log, pointer) : undefined;
    // Served with its history up to its own version; the next reload serves the newer one.
    if (read) return fileHistory(read, config.baseIri);
    const last = log.versions.at(-1);
    if (last !== undefined && !last.committed) log = completed(config, pointer, logger) ?? log;
    // The log ends with the snapshot's version (by the name its trailer gives, or its content's).
    if (
      last !== undefined &&
      (last.version === pointer?.version || last.version === dataset.version)
    )
      return fileHistory(log, config.baseIri);
    return await restored(config, dataset, logger);
  } catch (error) {
    // A HistoryError names the file already; the LoadError names it once.
    if (error instanceof LogReplaced && !lastAttempt) throw error;
    if (error instanceof HistoryError)
      throw new LoadError(file, undefined, undefined, error.message.replace(`${file}: `, ''));
    throw new LoadError(
      file,
      undefined,
      undefined,
      `the change log cannot be read or written (${(error as Error).message}): the snapshot's version must be logged before it is served`,
    );
  }
}

/**
 * The snapshot's version marked committed in the log (its loader stopped after the rename), by a
 * writer of its own; undefined when another process holds the log or it cannot be written now
 * (the snapshot names the version, so it is served all the same, and the next writer marks it).
 */
function completed(
  config: Pick<Config, 'historyDir' | 'baseIri'>,
  pointer: Pointer | undefined,
  logger: Logger | undefined,
): Committed | undefined {
  const writer = new LogWriter(config.historyDir, config.baseIri);
  try {
    writer.acquire();
    return writer.prepare(pointer);
  } catch (error) {
    logger?.warn(
      { err: error, dir: config.historyDir },
      'the change log lacks the commit line of the version served, and it cannot be written now',
    );
    return undefined;
  } finally {
    writer.release();
  }
}

function samePointer(a: Pointer | undefined, b: Pointer): boolean {
  return a?.version === b.version && a.time === b.time;
}

/** The log's committed versions up to the one `pointer` names, if it names one of them. */
function upTo(log: Committed, pointer: Pointer): Committed | undefined {
  const at = log.versions.findIndex((v) => samePointer(v, pointer));
  if (at < 0) return undefined;
  const versions = log.versions.slice(0, at + 1);
  return { ...log, versions, end: versions.at(-1)!.end };
}

/**
 * A snapshot the log does not end with: its difference from the log's last version is appended
 * and committed at once (the snapshot is in place), then the log is read as for any version.
 */
async function restored(
  config: Pick<Config, 'historyDir' | 'baseIri' | 'dataset'>,
  dataset: Dataset,
  logger: Logger | undefined,
): Promise<History> {
  const writer = new LogWriter(config.historyDir, config.baseIri);
  writer.acquire();
  try {
    const pointer = snapshotPointer(config.dataset, config.baseIri);
    const log = writer.prepare(pointer);
    const last = log.versions.at(-1);
    if (last?.version !== dataset.version) {
      const { states, descriptions } = await statesOf(dataset);
      const now = { version: dataset.version, time: versionTime(new Date(), last?.time) };
      const changes = diff(last ? statesAfter(log.versions) : undefined, states);
      writer.append({
        ...now,
        changes,
        description: describedBy(descriptions),
        institutions: dataset.institutionCount,
        withdrawn: dataset.withdrawnCount,
      });
      writer.commit(now);
      logger?.info(
        { version: now.version, events: changes.length, previous: last?.version },
        "the snapshot is not the change log's last version (restored?): its difference is logged as a new version",
      );
    }
    return fileHistory(writer.prepare(pointer), config.baseIri);
  } finally {
    writer.release();
  }
}
