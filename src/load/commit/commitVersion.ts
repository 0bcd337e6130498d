// A new version of the embedded store goes live: its events are appended to the change log
// (src/history/log.ts), the snapshot that names them is renamed into place (the commit point), and
// the log marks them committed; retention follows. Without a log (HISTORY_DIR='') the snapshot is
// written alone. A killed writer leaves the old version with its log, or the new one with its
// events: readers ignore events no snapshot or commit line names, and the next writer cuts them.
import fs from 'node:fs';
import { describedBy, LogWriter } from '../../history/logWriter';
import { statesAfter, type Pointer } from '../../history/log';
import { diff, versionTime, type Change, type VersionInfo } from '../../history/model';
import { statesOf, type DatasetStates } from '../../history/states';
import type { Loaded, OnPhase } from '../report';
import { readTrailer } from '../snapshot/snapshot';
import { writeSnapshot, type WrittenSnapshot } from '../snapshot/snapshotWriter';

/** Where a version is written, and how the log is kept (src/config/config.ts). */
export interface VersionTarget {
  readonly dataset: string;
  readonly baseIri: string;
  readonly historyDir: string;
  readonly historyKeepVersions: number;
}

/** The steps a test may stop the writer at (killed there, as a crash would). */
export type CommitStep = 'append' | 'before-rename' | 'after-rename' | 'retention';

export interface CommitOptions {
  /** The version's time when not now (the bundled dataset's is its data's: src/history/derived.ts). */
  readonly time?: number;
  readonly now?: Date;
  /** A test's hook, called at each step. */
  readonly at?: (step: CommitStep) => void;
  /** Told as the change log's phase and the snapshot's start (`LoadOptions.onPhase`). */
  readonly onPhase?: OnPhase;
  /**
   * The version served at the target while no log names one (cli/servedVersion.ts), asked for
   * only when the log has no version: a first version that is it adopts its time, so that what
   * was served (mementos, feed pages, dates) stays as it was.
   */
  readonly served?: () => Promise<Served | undefined>;
  /**
   * Starts the log anew (`--reset-history`): the log in place is set aside, renamed beside it, and
   * the version is a first one at the load's time; the past's mementos and feed pages are gone.
   */
  readonly resetHistory?: boolean;
}

/** The version a log's first version finds served before it (cli/servedVersion.ts). */
export interface Served {
  readonly version: string;
  /** The time its history is served at, when known. */
  readonly time?: number;
  /** Another version's states and counts: it is logged first, as it was served. */
  readonly past?: DatasetStates & { readonly institutions: number; readonly withdrawn: number };
}

/** What went live. */
export interface Committed {
  readonly written: WrittenSnapshot | undefined;
  readonly version: string;
  /** The version's time in the log, when one is kept. */
  readonly time?: number;
  /** The events it added; undefined without a log. */
  readonly changes?: readonly Change[];
  /** Whether the log already ended with this version (nothing was added). */
  readonly unchanged: boolean;
  /** Versions retention dropped. */
  readonly dropped: number;
  /** A first version that took the time of the same version served before it. */
  readonly adopted?: boolean;
  /** The version served before a first version that is another: its history is not in the log. */
  readonly restarted?: string;
  /** The version served before a first version that is another, logged first as it was served. */
  readonly kept?: VersionInfo;
  /** Where a reset set the log it replaced aside, if there was one. */
  readonly setAside?: string;
}

/**
 * A failure after the snapshot was renamed into place: the new version is live (its events are in
 * the log, named by the snapshot), and the next load or start completes what was left.
 */
export class LiveVersionError extends Error {
  override name = 'LiveVersionError';
  constructor(version: string, what: string, cause: unknown) {
    super(
      `version ${version} is live (the snapshot is in place), but ${what}: ${(cause as Error).message}; the next load or start completes it`,
      { cause },
    );
  }
}

const logId = (log: { readonly contents: { readonly id?: string } }) =>
  log.contents.id === undefined ? {} : { log: log.contents.id };

/** The log version a snapshot names in its trailer, if the file is a whole snapshot that does. */
export function snapshotPointer(file: string, baseIri: string): Pointer | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    return readTrailer(file, fd, baseIri).history;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Writes `loaded` as the version at `target`, with its change log when one is kept. The snapshot
 * the load wrote its pieces to (`LoadOptions.snapshot`) is ended and renamed, or removed when the
 * version does not go live.
 */
export function commitVersion(
  loaded: Loaded,
  target: VersionTarget,
  options: CommitOptions = {},
): Promise<Committed> {
  return committed(loaded, target, options).finally(() => loaded.canonical?.snapshot?.discard());
}

async function committed(
  loaded: Loaded,
  target: VersionTarget,
  options: CommitOptions,
): Promise<Committed> {
  const { dataset } = loaded;
  const { version } = dataset;
  if (target.historyDir === '') {
    options.onPhase?.('snapshot');
    const written = await writeSnapshot(loaded, target.dataset);
    return { written, version, unchanged: false, dropped: 0 };
  }
  options.onPhase?.('log');
  const at = options.at ?? (() => undefined);
  const writer = new LogWriter(target.historyDir, target.baseIri);
  writer.acquire();
  try {
    const setAside = options.resetHistory ? writer.setAside() : undefined;
    const pointer = snapshotPointer(target.dataset, target.baseIri);
    let log = writer.prepare(pointer);
    const { served, kept } = await firstOfLog(writer, log.versions.length === 0, version, options);
    if (kept) log = writer.prepare(pointer);
    const last = log.versions.at(-1);
    if (last?.version === version) {
      // The log ends with this version already: the snapshot is written only when the one in place
      // is not it (a restored older file), naming the log's version.
      const current = pointer?.version === version && pointer.time === last.time;
      const history = { version, time: last.time, ...logId(log) };
      options.onPhase?.('snapshot');
      const written = current
        ? undefined
        : await writeSnapshot(loaded, target.dataset, { history });
      return { written, version, time: last.time, changes: [], unchanged: true, dropped: 0 };
    }
    const { time, first } = timeOf(version, last, options, kept ? undefined : served);
    const now = { version, time };
    // The load's own states (no second reading), unless it took them from a trailer or cache.
    const own = loaded.history.descriptions.size > 0 ? loaded.history : undefined;
    const { states: next, descriptions } = own ?? (await statesOf(dataset));
    const changes = diff(last === undefined ? undefined : statesAfter(log.versions), next);
    writer.append({
      ...now,
      changes,
      description: describedBy(descriptions),
      institutions: dataset.institutionCount,
      withdrawn: dataset.withdrawnCount,
    });
    at('append');
    // The log is flushed: the snapshot that names its version is written and renamed into place.
    options.onPhase?.('snapshot');
    const written = await writeSnapshot(loaded, target.dataset, {
      history: { ...now, ...logId(log) },
      beforeRename: () => at('before-rename'),
    });
    at('after-rename');
    const dropped = completeCommit(writer, now, target.historyKeepVersions, at);
    const extra = { ...first, ...(setAside ? { setAside } : {}), ...(kept ? { kept } : {}) };
    return { written, version, time: now.time, changes, unchanged: false, dropped, ...extra };
  } finally {
    writer.release();
  }
}

/** The commit line of `now`, whose snapshot is in place, and retention; the number dropped. */
export function completeCommit(
  writer: LogWriter,
  now: VersionInfo,
  keep: number,
  at: (step: CommitStep) => void,
): number {
  const live = <T>(what: string, step: () => T): T => {
    try {
      return step();
    } catch (error) {
      throw new LiveVersionError(now.version, what, error);
    }
  };
  live('its commit line could not be written to the change log', () => writer.commit(now));
  return live('retention could not rewrite the change log', () =>
    writer.retain(keep, () => at('retention')),
  );
}

/**
 * The time of a new version after `last`, and, for a log's first, what it made of the version
 * served before it: the same version adopts the time it was served at; another one it could not
 * log first (`firstOfLog`) leaves the history to start anew.
 */
function timeOf(
  version: string,
  last: VersionInfo | undefined,
  options: CommitOptions,
  served: Served | undefined,
): { time: number; first: Pick<Committed, 'adopted' | 'restarted'> } {
  if (options.time !== undefined)
    return { time: last && options.time <= last.time ? last.time + 1 : options.time, first: {} };
  if (served?.version === version && served.time !== undefined)
    return { time: served.time, first: { adopted: true } };
  return {
    time: versionTime(options.now ?? new Date(), last?.time),
    first: served ? { restarted: served.version } : {},
  };
}

/**
 * For a log without versions: the version served at the target, and another one served without a
 * log, logged as the log's first at the time it was served at and committed at once (it is what
 * the target serves): its mementos and feed pages stay, and the new version follows it as a
 * change.
 */
async function firstOfLog(
  writer: LogWriter,
  empty: boolean,
  version: string,
  options: CommitOptions,
): Promise<{ served?: Served; kept?: VersionInfo }> {
  const served = empty && !options.resetHistory ? await options.served?.() : undefined;
  const { past, time } = served ?? {};
  if (served?.version === version || past === undefined || time === undefined) return { served };
  const kept = { version: served!.version, time };
  writer.append({
    ...kept,
    changes: diff(undefined, past.states),
    description: describedBy(past.descriptions),
    institutions: past.institutions,
    withdrawn: past.withdrawn,
  });
  writer.commit(kept);
  return { served, kept };
}
