// Reading source files in pieces, and the figures messages about them give.
import crypto from 'node:crypto';
import fs from 'node:fs';

/** Input is handed to the store in batches of about this size, with a turn of the event loop between. */
export const CHUNK_BYTES = 1 << 20;

/** What bytes are fed to as they are read: the sources' hash, and a snapshot's own. */
export interface Hasher {
  update(bytes: Buffer): void;
}

/** The file's bytes from `start` up to `end` in chunks, fed to the hash, if any, as they are read. */
export function* chunks(fd: number, hash?: Hasher, end?: number, start = 0): Generator<Buffer> {
  const size = end ?? fs.fstatSync(fd).size;
  for (let offset = start; offset < size; offset += CHUNK_BYTES) {
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

/** The sha256 of every byte a load reads, and how many it read. */
export class VersionHash implements Hasher {
  private readonly hash = crypto.createHash('sha256');
  bytes = 0;

  update(bytes: Buffer): void {
    this.bytes += bytes.length;
    this.hash.update(bytes);
  }

  copy(): crypto.Hash {
    return this.hash.copy();
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

/** The whole file's bytes, fed to the hash. */
export function readHashed(fd: number, hash: Hasher): Buffer {
  return Buffer.concat([...chunks(fd, hash)]);
}

export function countLines(bytes: Buffer): number {
  let n = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) n++;
  return n;
}

/** The file's bytes into the hash, in chunks (the record readers read the file themselves). */
export function hashFile(file: string, hash: Hasher): void {
  const fd = fs.openSync(file, 'r');
  try {
    for (const chunk of chunks(fd)) hash.update(chunk);
  } finally {
    fs.closeSync(fd);
  }
}
