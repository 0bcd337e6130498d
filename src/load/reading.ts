// Reading source files in pieces, and the figures messages about them give.
import fs from 'node:fs';

/** Input is handed to the store in batches of about this size, with a turn of the event loop between. */
export const CHUNK_BYTES = 1 << 20;

/** What bytes are fed to as they are read: the version's hash, and a snapshot's own. */
export interface Hasher {
  update(bytes: Buffer): void;
}

/** The file's bytes up to `end` in chunks, fed to the hash, if any, as they are read. */
export function* chunks(fd: number, hash?: Hasher, end?: number): Generator<Buffer> {
  const size = end ?? fs.fstatSync(fd).size;
  for (let offset = 0; offset < size; offset += CHUNK_BYTES) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - offset));
    const read = fs.readSync(fd, chunk, 0, chunk.length, offset);
    const bytes = chunk.subarray(0, read);
    hash?.update(bytes);
    yield bytes;
  }
}

/** A figure with thousands separated, as messages give them. */
export function figure(n: number): string {
  return n.toLocaleString('en');
}

/** A size in MiB, as messages give it. */
export function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MiB`;
}
