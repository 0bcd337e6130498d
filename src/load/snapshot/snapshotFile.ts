// Writing a snapshot's file (snapshot.ts says what it holds): its first line, its pieces and its
// trailer, hashed as they are written, flushed to disk.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { LoadError } from '../loadError';
import { mib } from '../reading';
import { CHUNK_MARK } from './snapshotPieces';

/**
 * The largest snapshot a load reads or writes: 512 MiB, above what sources of MAX_INPUT_BYTES come
 * to (docs/loading.md, Limits). It is written and read in pieces, with no string of the whole.
 */
export const MAX_SNAPSHOT_BYTES = 512 * 1024 * 1024;

/**
 * The start of a snapshot's last line, its trailer (see `writeSnapshot`): JSON with the sha256 of
 * every byte before the line, the store's triples, the live and the withdrawn institutions, and,
 * when every institution is an IRI, the index of its institutions as `Dataset.indexRows` reads them
 * with the hash of the index query they were read with. A snapshot is loaded only whole: a trailer
 * that is missing (the file was cut off), not last (lines were appended), malformed, or that does
 * not match what was read is refused. Its rows are taken instead of querying the store (a query
 * over every institution that a start then does not pay) unless the index query changed since or a
 * row is not a row of it: then the store is queried, as from any source.
 */
export const INDEX_LINE = '# index ';

/** A snapshot to write. */
export interface SnapshotParts {
  /** Its first line (`snapshotHeader`). */
  readonly header: string;
  /** Its quads, in pieces ended by chunk marks (the last may not be). */
  readonly pieces: Iterable<Buffer>;
  /**
   * Its trailer's JSON object but the hash of the bytes before it, which is written first; or what
   * makes it once the pieces are written (an update counts its quads as it writes them).
   */
  readonly trailer: string | (() => string);
}

/** The temporary file a snapshot is written to beside `target`, before it is renamed over it. */
export function temporaryOf(target: string): string {
  return `${target}.tmp-${process.pid}`;
}

/**
 * Writes `parts` to `file`, made anew, and flushes it to disk; returns how many bytes it holds.
 * A snapshot past MAX_SNAPSHOT_BYTES is a LoadError naming `target`, and is not written further.
 */
export function writeSnapshotFile(file: string, target: string, parts: SnapshotParts): number {
  const trailerOf = (text: string) => {
    if (!text.startsWith('{') || text === '{}')
      throw new Error(`not the fields of a trailer: ${text.slice(0, 40)}`);
    return text;
  };
  if (typeof parts.trailer === 'string') trailerOf(parts.trailer);
  let bytes = 0;
  const hash = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'w');
  try {
    const write = (text: string | Buffer) => {
      const buffer = typeof text === 'string' ? Buffer.from(text) : text;
      hash.update(buffer);
      bytes += fs.writeSync(fd, buffer);
      if (bytes > MAX_SNAPSHOT_BYTES)
        throw new LoadError(
          target,
          undefined,
          undefined,
          `the snapshot comes to more than ${mib(MAX_SNAPSHOT_BYTES)}, the most a load reads (MAX_SNAPSHOT_BYTES; docs/loading.md): no server could load it`,
        );
    };
    write(parts.header);
    const mark = Buffer.from(CHUNK_MARK);
    let ended = false;
    for (const piece of parts.pieces) {
      write(piece);
      ended = piece.subarray(-mark.length).equals(mark);
    }
    // The trailer is a piece of its own, so that a load finds it whole at the end.
    if (!ended) write(CHUNK_MARK);
    const sha256 = hash.copy().digest('hex');
    const trailer = trailerOf(typeof parts.trailer === 'string' ? parts.trailer : parts.trailer());
    write(`${INDEX_LINE}{"sha256":"${sha256}",${trailer.slice(1)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return bytes;
}
