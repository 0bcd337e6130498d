// A snapshot (the loader's output, src/load/snapshot/snapshot/snapshot.ts) of generated institutions, written as it
// is generated: no store is filled, so a million institutions go into a remote store this way and
// a history's last version is written without a load.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  CHUNK_MARK,
  INDEX_LINE,
  SNAPSHOT_CHUNK_BYTES,
  snapshotHeader,
} from '../src/load/snapshot/snapshot';
import { DATA_PATH } from '../src/rdf/iris';

/** What a trailer says beyond the hash and the triples: the counts a load checks, and more. */
export interface TrailerFields {
  readonly institutions: number;
  readonly withdrawn: number;
  readonly [field: string]: unknown;
}

/**
 * The N-Quads of a snapshot of `institutions` (each one's N-Triples), in pieces: each
 * institution's triples in the graph of its description (as the loader places them: every triple
 * of a generated institution is its own, its blank nodes', its document's or its web pages'), a
 * chunk mark after every SNAPSHOT_CHUNK_BYTES or more at an institution's end (no blank node spans
 * two institutions), then the trailer with the sha256 of every byte before it, the triples, and
 * `fields` (`trailer` gives them once every institution is read). The trailer has no index rows:
 * a server that loads it queries its store for them.
 */
export function* generatedSnapshot(
  institutions: Iterable<string>,
  base: string,
  trailer: (read: number) => TrailerFields,
): Generator<string> {
  const hash = crypto.createHash('sha256');
  let triples = 0;
  let read = 0;
  let piece = snapshotHeader(base);
  for (const institution of institutions) {
    read++;
    const graph = `<${base}${DATA_PATH}${/organisations\/([^>]+)>/.exec(institution)![1]}>`;
    for (const line of institution.split('\n')) {
      if (line === '') continue;
      piece += `${line.slice(0, -1)}${graph} .\n`;
      triples++;
    }
    if (piece.length >= SNAPSHOT_CHUNK_BYTES) {
      piece += CHUNK_MARK;
      hash.update(piece);
      yield piece;
      piece = '';
    }
  }
  if (!piece.endsWith(CHUNK_MARK)) piece += CHUNK_MARK;
  hash.update(piece);
  yield piece;
  const fields = { sha256: hash.digest('hex'), triples, ...trailer(read) };
  yield `${INDEX_LINE}${JSON.stringify(fields)}\n`;
}

/**
 * Writes `generatedSnapshot`'s pieces to `target` as the loader writes a snapshot: to a temporary
 * file beside it, flushed, renamed over it. Returns the bytes written.
 */
export function writeGeneratedSnapshot(
  institutions: Iterable<string>,
  target: string,
  base: string,
  trailer: (read: number) => TrailerFields,
): number {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const temporary = `${target}.tmp-${process.pid}`;
  let bytes = 0;
  try {
    const fd = fs.openSync(temporary, 'w');
    try {
      for (const piece of generatedSnapshot(institutions, base, trailer))
        bytes += fs.writeSync(fd, piece);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, target);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  return bytes;
}
