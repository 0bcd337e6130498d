// A source's text as UTF-8: its first bytes, for telling its format before it is read, and where
// it stops being UTF-8 (the sources are refused with the position of their first bad byte, since
// a text read with replacement characters would publish wrong names).
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

/**
 * Follows the Encoding Standard's UTF-8 decoder (WHATWG §9.1.1: no overlong forms, no surrogates,
 * nothing above U+10FFFF) byte by byte over a text given in pieces.
 */
export class Utf8Scanner {
  /** Newlines before the sequence being read, plus one. */
  line = 1;
  private offset = 0;
  private start = 0;
  private needed = 0;
  private lower = 0x80;
  private upper = 0xbf;

  /** Reads the next bytes; returns the offset of the first sequence that is not UTF-8, if any. */
  scan(bytes: Uint8Array): number | undefined {
    for (let i = 0; i < bytes.length; i++, this.offset++) {
      const byte = bytes[i]!;
      if (this.needed === 0) {
        this.start = this.offset;
        if (byte === 0x0a) this.line++;
        if (byte <= 0x7f) continue;
        if (byte >= 0xc2 && byte <= 0xdf) this.needed = 1;
        else if (byte >= 0xe0 && byte <= 0xef) {
          this.needed = 2;
          if (byte === 0xe0) this.lower = 0xa0;
          if (byte === 0xed) this.upper = 0x9f;
        } else if (byte >= 0xf0 && byte <= 0xf4) {
          this.needed = 3;
          if (byte === 0xf0) this.lower = 0x90;
          if (byte === 0xf4) this.upper = 0x8f;
        } else return this.offset;
        continue;
      }
      if (byte < this.lower || byte > this.upper) return this.start;
      this.lower = 0x80;
      this.upper = 0xbf;
      this.needed--;
    }
    return undefined;
  }

  /** At the end of the text: the offset of a sequence cut off there, if any. */
  end(): number | undefined {
    return this.needed > 0 ? this.start : undefined;
  }
}

/** The offset of the first byte that is not part of a well-formed UTF-8 sequence, or the length. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const scanner = new Utf8Scanner();
  return scanner.scan(bytes) ?? scanner.end() ?? bytes.length;
}
