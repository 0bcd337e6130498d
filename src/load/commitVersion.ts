// A new version of the embedded store goes live: its events are appended to the change log
// (src/history/log.ts), the snapshot that names them is renamed into place (the commit point), and
// the log marks them committed; retention follows. Without a log (HISTORY_DIR='') the snapshot is
// written alone. A killed writer leaves the old version with its log, or the new one with its
// events: readers ignore events no snapshot or commit line names, and the next writer cuts them.
import fs from 'node:fs';
import { LogWriter } from '../history/logWriter';
import { statesAfter, type Pointer } from '../history/log';
import { diff, versionTime, type Change } from '../history/model';
import { statesOf, type DatasetStates } from '../history/states';
import type { Loaded, OnPhase } from './report';
import { readTrailer, writeSnapshot, type WrittenSnapshot } from './snapshot';
import { SnapshotWriting } from './snapshotWriter';

/** Where a version is written, and how the log is kept (src/config.ts). */
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
}

/** The log version a snapshot names in its trailer, if the file is a whole snapshot that does. */
export function snapshotPointer(file: string, baseIri: string): Pointer | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    return readTrailer(file, fd, baseIri).history;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes `loaded` as the version at `target`, with its change log when one is kept. */
export async function commitVersion(
  loaded: Loaded,
  target: VersionTarget,
  options: CommitOptions = {},
  states?: DatasetStates,
): Promise<Committed> {
  const { dataset } = loaded;
  const { version } = dataset;
  const phase = options.onPhase ?? (() => undefined);
  if (target.historyDir === '') {
    phase('snapshot');
    return {
      written: writeSnapshot(loaded, target.dataset),
      version,
      unchanged: false,
      dropped: 0,
    };
  }
  phase('log');
  const at = options.at ?? (() => undefined);
  const writer = new LogWriter(target.historyDir, target.baseIri);
  writer.acquire();
  try {
    const pointer = snapshotPointer(target.dataset, target.baseIri);
    const log = writer.prepare(pointer);
    const last = log.versions.at(-1);
    if (last?.version === version) {
      // The log ends with this version already: the snapshot is written only when the one in place
      // is not it (a restored older file), naming the log's version.
      const current = pointer?.version === version && pointer.time === last.time;
      phase('snapshot');
      return {
        written: current ? undefined : writeSnapshot(loaded, target.dataset, { history: last }),
        version,
        time: last.time,
        changes: [],
        unchanged: true,
        dropped: 0,
      };
    }
    const now = {
      version,
      time: options.time ?? versionTime(options.now ?? new Date(), last?.time),
    };
    if (last !== undefined && now.time <= last.time) now.time = last.time + 1;
    // The load's own states (no second reading), unless it took them from a trailer or cache.
    const own = loaded.history.descriptions.size > 0 ? loaded.history : undefined;
    const { states: next, descriptions } = states ?? own ?? (await statesOf(dataset));
    const changes = diff(last === undefined ? undefined : statesAfter(log.versions), next);
    // The snapshot is written by a thread of its own while this one writes the log; it is renamed
    // into place only once the log is flushed.
    const snapshot = await SnapshotWriting.start(loaded, target.dataset, now);
    try {
      writer.append({
        ...now,
        changes,
        description: (isil) => {
          const text = descriptions.get(isil);
          if (text === undefined) throw new Error(`no description of ${isil} to log`);
          return text;
        },
        institutions: dataset.institutionCount,
        withdrawn: dataset.withdrawnCount,
      });
    } catch (error) {
      await snapshot.abandon();
      throw error;
    }
    at('append');
    phase('snapshot');
    const written = await snapshot.done(() => at('before-rename'));
    at('after-rename');
    writer.commit(now);
    const dropped = writer.retain(target.historyKeepVersions, () => at('retention'));
    return { written, version, time: now.time, changes, unchanged: false, dropped };
  } finally {
    writer.release();
  }
}
