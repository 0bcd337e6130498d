// An update goes live as a load does (commitVersion.ts): its snapshot written beside the current
// one, its events appended to the change log, the snapshot renamed into place, the commit line.
// Under the log's lock the current version is checked to be the update's base: an update made
// over a version another load has since replaced is refused, and nothing is written.
import { statesAfter } from '../history/log';
import { describedBy, LogWriter } from '../history/logWriter';
import { diff, versionTime, type VersionInfo } from '../history/model';
import {
  completeCommit,
  snapshotPointer,
  type CommitStep,
  type Committed,
  type VersionTarget,
} from '../load/commit/commitVersion';
import { LoadError } from '../load/loadError';
import type { SnapshotHistory } from '../load/snapshot/snapshot';
import { SnapshotWriter } from '../load/snapshot/snapshotWriter';
import type { PreparedUpdate } from './applyUpdate';
import { readBase } from './applyUpdate';

/** An update whose base is no longer the current version. */
export class StaleUpdateError extends LoadError {
  override name = 'StaleUpdateError';
}

export interface UpdateCommitOptions {
  readonly now?: Date;
  /** A test's hook, called at each step (as `CommitOptions.at`). */
  readonly at?: (step: CommitStep) => void;
}

/** Refuses the update unless `current` is the version it was made over. */
function checkBase(update: PreparedUpdate, current: string | undefined): void {
  const base = update.base.trailer.version;
  if (current === base) return;
  throw new StaleUpdateError(
    update.base.file,
    undefined,
    undefined,
    `the update was made over version ${base}, but the current version is ${current ?? 'none'}: another load happened meanwhile; harvest and update again`,
  );
}

/**
 * Writes the merged snapshot to the temporary file beside the target, ended and flushed; its
 * writer (to rename or discard), its bytes and its quads.
 */
export function writeMerged(
  update: PreparedUpdate,
  target: Pick<VersionTarget, 'dataset' | 'baseIri'>,
  history: SnapshotHistory | undefined,
): { file: SnapshotWriter; bytes: number; triples: number } {
  const { merged } = update;
  let triples = 0;
  const file = new SnapshotWriter(target.dataset, target.baseIri);
  try {
    for (const piece of update.pieces((quads) => (triples = quads))) file.put(piece);
    const bytes = file.finish({
      triples,
      institutions: merged.institutions,
      withdrawn: merged.withdrawn,
      version: merged.version,
      rest: update.base.trailer.rest,
      history,
      query: update.query,
      rows: merged.rows,
      states: merged.states,
    });
    return { file, bytes, triples };
  } catch (error) {
    file.discard();
    throw error;
  }
}

/**
 * Writes the merged version at `target` with its events; nothing when it is the base's again. The
 * update's own pieces, read for the merge, are removed.
 */
export async function commitUpdate(
  update: PreparedUpdate,
  target: VersionTarget,
  options: UpdateCommitOptions = {},
): Promise<Committed> {
  try {
    return committed(update, target, options);
  } finally {
    update.loaded.canonical?.snapshot?.discard();
  }
}

function committed(
  update: PreparedUpdate,
  target: VersionTarget,
  options: UpdateCommitOptions,
): Committed {
  const { version } = update.merged;
  const at = options.at ?? (() => undefined);
  const unchanged = { written: undefined, version, changes: [], unchanged: true, dropped: 0 };
  if (target.historyDir === '') {
    checkBase(update, readBase(target.dataset, target.baseIri).trailer.version);
    if (version === update.base.trailer.version) return unchanged;
    const { file, bytes } = writeMerged(update, target, undefined);
    try {
      file.rename();
      return { written: { bytes, version }, version, unchanged: false, dropped: 0 };
    } finally {
      file.discard();
    }
  }
  const writer = new LogWriter(target.historyDir, target.baseIri);
  writer.acquire();
  try {
    const pointer = snapshotPointer(target.dataset, target.baseIri);
    checkBase(update, pointer?.version);
    const log = writer.prepare(pointer);
    const last = log.versions.at(-1);
    checkBase(update, last?.version);
    if (version === update.base.trailer.version) return { ...unchanged, time: last!.time };
    const now: VersionInfo = { version, time: versionTime(options.now ?? new Date(), last!.time) };
    const changes = diff(statesAfter(log.versions), update.merged.states);
    const descriptions = update.loaded.history.descriptions;
    const id = log.contents.id === undefined ? {} : { log: log.contents.id };
    const { file, bytes } = writeMerged(update, target, { ...now, ...id });
    try {
      writer.append({
        ...now,
        changes,
        description: describedBy(descriptions),
        institutions: update.merged.institutions,
        withdrawn: update.merged.withdrawn,
      });
      at('append');
      at('before-rename');
      file.rename();
      at('after-rename');
      const dropped = completeCommit(writer, now, target.historyKeepVersions, at);
      return {
        written: { bytes, version },
        version,
        time: now.time,
        changes,
        unchanged: false,
        dropped,
      };
    } finally {
      file.discard();
    }
  } finally {
    writer.release();
  }
}
