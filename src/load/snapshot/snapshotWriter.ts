// Writing a snapshot (snapshot.ts says what it holds): its pieces go to a temporary file beside
// the target as the canonical reading makes them, hashed as they go; the trailer ends the file,
// which is flushed to disk and renamed over the target (the commit point). Nothing is held.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { canonicalDataset } from '../describe/canonicalDataset';
import type { InstitutionState } from '../../history/model';
import { compactStates } from '../../history/canonical';
import type { SelectBinding } from '../../store/bindings';
import { refused } from '../loadError';
import { chunks, mib } from '../reading';
import type { Loaded } from '../report';
import {
  CHUNK_MARK,
  INDEX_LINE,
  MAX_SNAPSHOT_BYTES,
  queryHash,
  snapshotHeader,
  type SnapshotHistory,
} from './snapshot';

/** How many snapshots this thread began. */
let begun = 0;

/**
 * A new temporary file for a snapshot beside `target`, before it is renamed over it: a name of
 * its own for every writer, as two loads of one process (threads share a pid) may overlap.
 */
function temporaryOf(target: string): string {
  return `${target}.tmp-${process.pid}-t${threadId}-${++begun}`;
}

/**
 * A snapshot being written: its first line at once, then each piece as it is put (a PieceSink),
 * to the temporary file of `target`; `finish` ends it with its trailer and flushes it, `rename`
 * puts it in place. `discard` removes what was not put in place (a failed or refused load).
 */
export class SnapshotWriter {
  readonly file: string;
  private fd: number | undefined;
  private readonly hash = crypto.createHash('sha256');
  private bytes = 0;
  private readonly start: number;
  /** Whether the last piece ended with a chunk mark. */
  private ended = false;
  private renamed = false;

  /** Whether pieces may still be put (not finished, nor discarded). */
  get open(): boolean {
    return this.fd !== undefined;
  }

  constructor(
    readonly target: string,
    baseIri: string,
  ) {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    this.file = temporaryOf(target);
    this.fd = fs.openSync(this.file, 'w+');
    this.write(snapshotHeader(baseIri));
    this.start = this.bytes;
  }

  /** Appends a piece of quads (ended by a chunk mark where one may go). */
  put(piece: string | Buffer): void {
    const buffer = typeof piece === 'string' ? Buffer.from(piece) : piece;
    if (buffer.length === 0) return;
    this.write(buffer);
    this.ended = buffer.subarray(-CHUNK_MARK.length).toString() === CHUNK_MARK;
  }

  /** The quads put so far, read back from the file a MiB at a time. */
  pieces(): Iterable<Buffer> {
    const { fd } = this;
    if (fd === undefined) throw new Error('the snapshot is closed');
    return chunks(fd, undefined, this.bytes, this.start);
  }

  /**
   * Ends the snapshot with its trailer (its fields in one order: a load's snapshot and an update's
   * are compared byte for byte), flushes it to disk and closes it; returns how many bytes it holds.
   */
  finish(fields: TrailerFields): number {
    // The trailer is a piece of its own, so that a load finds it whole at the end.
    if (!this.ended) this.write(CHUNK_MARK);
    const { rows, history } = fields;
    // Blank nodes are labelled anew by every load: rows naming one would not match the store.
    const keepRows = rows?.every((row) => Object.values(row).every((t) => t?.type !== 'bnode'));
    const trailer = JSON.stringify({
      sha256: this.hash.copy().digest('hex'),
      triples: fields.triples,
      institutions: fields.institutions,
      withdrawn: fields.withdrawn,
      version: fields.version,
      rest: fields.rest,
      ...(history ? { history } : {}),
      ...(keepRows ? { query: fields.query, rows } : {}),
      states: compactStates(fields.states),
    });
    this.write(`${INDEX_LINE}${trailer}\n`);
    fs.fsyncSync(this.fd!);
    this.close();
    return this.bytes;
  }

  /** Renames the finished file over the target: the version goes live. */
  rename(): void {
    fs.renameSync(this.file, this.target);
    this.renamed = true;
  }

  /** Closes the file and removes it, unless it went in place; as often as asked. */
  discard(): void {
    this.close();
    if (!this.renamed) fs.rmSync(this.file, { force: true });
  }

  private close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }

  private write(text: string | Buffer): void {
    if (this.fd === undefined) throw new Error('the snapshot is closed');
    const buffer = typeof text === 'string' ? Buffer.from(text) : text;
    this.hash.update(buffer);
    this.bytes += fs.writeSync(this.fd, buffer);
    if (this.bytes > MAX_SNAPSHOT_BYTES)
      throw refused(
        this.target,
        `the snapshot comes to more than ${mib(MAX_SNAPSHOT_BYTES)}, the most a load reads (MAX_SNAPSHOT_BYTES; docs/loading.md): no server could load it`,
      );
  }
}

/** What `writeSnapshot` wrote. */
export interface WrittenSnapshot {
  readonly bytes: number;
  /** The version a server loading the snapshot shows (`/readyz`, `Dataset-Version`). */
  readonly version: string;
}

/**
 * Writes the loaded dataset as an N-Quads snapshot at `target`, canonically (docs/loading.md,
 * "The snapshot's order"): the same sources in the same order give the same bytes. A load told
 * this target (`LoadOptions.snapshot`) wrote its pieces as it read; any other is read canonically
 * again, into the target's temporary file. Its trailer names the version, every ISIL's state, the
 * rest's hash, and `history` (the change log's version and time this snapshot commits) when
 * given; then the file is flushed and renamed over the target, so that a reader sees the old
 * snapshot or the new one, never a part. One larger than a load reads (MAX_SNAPSHOT_BYTES) is not
 * written.
 */
export async function writeSnapshot(
  loaded: Pick<Loaded, 'dataset' | 'rows' | 'canonical'>,
  target: string,
  // `history`: the change log's version it goes live with; `beforeRename`: a test's hook.
  { history, beforeRename }: { history?: SnapshotHistory; beforeRename?: () => void } = {},
): Promise<WrittenSnapshot> {
  const { dataset, rows } = loaded;
  const streamed = loaded.canonical?.snapshot;
  const own = streamed?.target === target && streamed.open;
  const writer = own ? streamed : new SnapshotWriter(target, dataset.baseIri);
  try {
    const read = own
      ? loaded.canonical!.history
      : (await canonicalDataset(dataset, undefined, undefined, undefined, writer)).history;
    const bytes = writer.finish({
      ...read,
      triples: dataset.store.size,
      institutions: dataset.institutionCount,
      withdrawn: dataset.withdrawnCount,
      history,
      query: queryHash(dataset.store),
      rows,
    });
    beforeRename?.();
    writer.rename();
    return { bytes, version: read.version };
  } finally {
    writer.discard();
  }
}

/** What a trailer says besides its sha256 (`SnapshotWriter.finish`). */
export interface TrailerFields {
  readonly triples: number;
  readonly institutions: number;
  readonly withdrawn: number;
  readonly version: string;
  readonly rest: string;
  readonly history: SnapshotHistory | undefined;
  /** The hash of the index query the rows were read with (`queryHash`). */
  readonly query: string;
  /** The index's rows; undefined when they are not known (the store is queried at start). */
  readonly rows: readonly SelectBinding[] | undefined;
  readonly states: ReadonlyMap<string, InstitutionState>;
}
