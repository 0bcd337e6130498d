// `npm run load -- --update FILE…`: the records of FILE applied over the current version (its
// snapshot and its trailer) without loading that version: the update's records are loaded and
// validated alone, every other institution keeps the canonical lines and hash the base snapshot
// holds, and the result is the snapshot a full load of the merged sources writes (docs/data.md).
import crypto from 'node:crypto';
import fs from 'node:fs';
import { isilKey } from '../rdf/isil';
import { LoadError } from '../load/loadError';
import { loadSources } from '../load/loadSources';
import { chunks } from '../load/reading';
import type { Loaded, LoadOptions } from '../load/report';
import {
  queryHash,
  readTrailer,
  snapshotBase,
  snapshotHeader,
  type Trailer,
} from '../load/snapshot/snapshot';
import { expandSources } from '../load/read/sources';
import { deletionsOf } from './deletions';
import { mergedPieces, mergedStates, type MergedStates } from './mergedVersion';
import { snapshotBlocks, type Block } from './snapshotBlocks';

/** The version an update applies over, as its snapshot's trailer names it. */
export interface BaseVersion {
  readonly file: string;
  readonly trailer: Trailer & Required<Pick<Trailer, 'version' | 'states' | 'rest'>>;
}

/** An update loaded and merged, ready to be written (`commitUpdate`). */
export interface PreparedUpdate {
  readonly base: BaseVersion;
  /** The update's own load: its report, and its dataset to free. */
  readonly loaded: Loaded;
  readonly merged: MergedStates;
  /** The hash of the index query, as a full load's trailer names it. */
  readonly query: string;
  /** How many deletions the update's files hold. */
  readonly deletions: number;
  /** The merged snapshot's quads, read from the base as they are written; told their count. */
  pieces(counted: (quads: number) => void): Iterable<Buffer>;
}

/** The version at `file`, refused unless it is a whole snapshot of `baseIri` that names its states. */
export function readBase(file: string, baseIri: string): BaseVersion {
  const refuse = (reason: string) => new LoadError(file, undefined, undefined, reason);
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    throw refuse(
      `no version to update (${(error as Error).message}): load the sources in full first`,
    );
  }
  try {
    const base = snapshotBase(fd);
    if (base !== baseIri)
      throw refuse(
        base === undefined
          ? 'not a snapshot this loader wrote: an update applies over one'
          : `a snapshot of the base <${base}>, not <${baseIri}>: load the sources in full`,
      );
    const trailer = readTrailer(file, fd, baseIri);
    const { version, states, rest } = trailer;
    if (version === undefined || states === undefined || rest === undefined)
      throw refuse(
        "its trailer names no version and states (an older loader's): load the sources in full once",
      );
    return { file, trailer: { ...trailer, version, states, rest } };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The base snapshot's blocks, its bytes hashed as they are read: bytes that are not those its
 * trailer hashed are refused once the last is read, before anything made of them is written.
 */
function* baseBlocks({ file, trailer }: BaseVersion, baseIri: string): Generator<Block> {
  const fd = fs.openSync(file, 'r');
  try {
    const hash = crypto.createHash('sha256');
    const header = Buffer.byteLength(snapshotHeader(baseIri));
    const hashed = (function* () {
      let skip = header;
      for (const chunk of chunks(fd, hash, trailer.start)) {
        const from = Math.min(skip, chunk.length);
        skip -= from;
        if (from < chunk.length) yield chunk.subarray(from);
      }
    })();
    yield* snapshotBlocks(hashed, baseIri);
    if (hash.digest('hex') !== trailer.sha256)
      throw new LoadError(
        file,
        undefined,
        undefined,
        'the snapshot does not match its trailer: its bytes changed since it was written',
      );
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Reads the version at `dataset` and loads the update's `sources` (validated as `options` say),
 * with their deletions; throws a LoadError for a refusal, leaving everything as it was.
 */
export async function prepareUpdate(
  sources: readonly string[],
  dataset: string,
  options: LoadOptions,
): Promise<PreparedUpdate> {
  const { baseIri } = options;
  const base = readBase(dataset, baseIri);
  const { files } = expandSources(sources, options.format);
  const deleted = files.flatMap(({ file }) => deletionsOf(file));
  // The update's own pieces go to a file of their own beside the version, read back as merged.
  const own = { ...options, requireInstitutions: false, snapshot: `${dataset}.update` };
  const loaded = await loadSources(sources, own);
  try {
    const snapshot = loaded.canonical?.snapshot;
    if (snapshot === undefined) throw new Error('an update is canonicalised when loaded');
    // A record the load does not publish (status N, malformed) leaves its ISIL out, as a full
    // load of the merged sources would.
    const removed = new Set(deleted.map(isilKey));
    for (const skipped of loaded.report.skipped)
      if (skipped.id !== undefined) removed.add(isilKey(skipped.id));
    const update = {
      states: loaded.history.states,
      rows: loaded.rows,
      removed,
      blocks: snapshotBlocks(snapshot.pieces(), baseIri),
    };
    // The base's rows, when read with the index query of today (a full load's are).
    const query = queryHash(loaded.dataset.store);
    const rows =
      base.trailer.query === query && Array.isArray(base.trailer.rows)
        ? (base.trailer.rows as Loaded['rows'])
        : undefined;
    const merged = mergedStates({ ...base.trailer, rows }, update, baseIri);
    return {
      base,
      loaded,
      merged,
      query,
      deletions: deleted.length,
      pieces: (counted) =>
        mergedPieces(
          dataset,
          { states: base.trailer.states, blocks: baseBlocks(base, baseIri) },
          { ...update, blocks: snapshotBlocks(snapshot.pieces(), baseIri) },
          merged,
          counted,
        ),
    };
  } catch (error) {
    loaded.canonical?.snapshot?.discard();
    loaded.dataset.free();
    throw error;
  }
}
