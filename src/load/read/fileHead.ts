// The first bytes of a file as text, for telling its format before it is read.
import fs from 'node:fs';

/**
 * Up to `bytes` bytes from the start of `file`, decoded as UTF-8 (a sequence cut at the end
 * becomes U+FFFD, which no format test looks at).
 */
export function fileHead(file: string, bytes: number): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    return buffer.toString('utf8', 0, fs.readSync(fd, buffer, 0, bytes, 0));
  } finally {
    fs.closeSync(fd);
  }
}
