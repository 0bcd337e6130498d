// A served document: its bytes, its compressed forms, an ETag for each content coding, and the
// headers of its answers, made once when it is rendered and written per request by src/http/respond.ts.
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

export type Encoding = 'br' | 'gzip' | 'identity';

/**
 * How a route answers with a representation: 200, or 410 for what the data holds about a withdrawn
 * ISIL (no validators, no content codings), and the answer's headers in the identity coding, but
 * the request id: made once, from the representation's validators and length.
 */
export interface Answer {
  readonly status: 200 | 410;
  readonly headers: (representation: Representation) => Record<string, string>;
}

/** Holds representations and counts their bytes: told when one gains a compressed form. */
export interface Holder {
  grew(representation: Representation, bytes: number): void;
}

/**
 * The bytes in a buffer of their own, of their exact size. zlib's results are slices of its 16 KiB
 * output chunks, and small `Buffer.from` results are slices of Node's shared 8 KiB pool: a cached
 * slice keeps the whole backing store alive, so a cache counting slices held many times the
 * bytes it counted (docs/benchmark.md, "buffers of their own").
 */
export function ownBuffer(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length) return bytes;
  const own = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(own);
  return own;
}

/** Brotli at quality 5 costs about what gzip -6 does and compresses better (RFC 7932). */
const BROTLI = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } };

// zlib's callback API compresses in libuv's threadpool: a memento or page compressed on first
// request no longer holds the serving thread (the Sync forms stalled every other request).
const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/**
 * What each compressed form costs beside its bytes: its buffer object and allocation, and its ETag
 * header (calibrated with the cache's ENTRY_OVERHEAD, src/documents/documents.ts).
 */
export const ENCODING_OVERHEAD = 512;

/** What a 304 leaves out: the headers that describe a body. */
const BODY_HEADERS = new Set(['Content-Type', 'Content-Disposition', 'Content-Length']);

export class Representation {
  /** Strong validator of the identity coding (quoted; RFC 9110 §8.8.3). */
  readonly etag: string;
  /** 200, or 410: answered as it is, without validators or content codings. */
  readonly status: 200 | 410;
  /**
   * The headers of the answer in the identity coding. Only the request id is written into them per
   * answer (`withRequestId` in src/http/respond.ts), so a cached document allocates nothing.
   */
  readonly headers: Record<string, string>;
  /** The cache that holds this representation, if one does. */
  holder: Holder | undefined;
  /** Compressed forms, made on first request. */
  private readonly encoded: Partial<Record<'br' | 'gzip', Buffer>> = {};
  /** Compressions under way: concurrent requests for one coding share one. */
  private readonly encoding: Partial<Record<'br' | 'gzip', Promise<Buffer>>> = {};
  /** The 304's headers and the list of ETags, made on first use: an uncached document (the cache
   * off, or evicted) is mostly answered once, with a 200. */
  private not: Record<string, string> | undefined;
  /** The compressed forms' ETags, made on first use. */
  private tags: Partial<Record<'br' | 'gzip', string>> = {};

  /**
   * `body` with its strong validator, a hash of its bytes after `kind`, when representations of
   * different kinds could share bytes; `lastModified` is the record's `dcterms:modified`, else the
   * dataset's load time.
   */
  constructor(
    readonly body: Buffer,
    readonly lastModified: Date,
    answer: Answer,
    kind = '',
  ) {
    const hash = crypto.createHash('sha256').update(kind).update(body).digest('base64url');
    this.etag = `"${hash.slice(0, 27)}"`;
    this.status = answer.status;
    this.headers = answer.headers(this);
  }

  /** The headers of a 304: the 200's without those of a body. */
  get notModified(): Record<string, string> {
    if (!this.not) {
      // Copied without the headers of a body rather than `delete`d from a copy: an object that
      // lost properties is kept as a hash table by V8, slower for writeHead to walk on every 304.
      // `X-Request-Id` is copied too, in its place (see `withRequestId`).
      const not: Record<string, string> = {};
      for (const [name, value] of Object.entries(this.headers))
        if (!BODY_HEADERS.has(name)) not[name] = value;
      this.not = not;
    }
    return this.not;
  }

  /**
   * The ETag of a content coding: a different representation needs a different strong validator,
   * and only the coding's own revalidates it (src/http/conditional.ts).
   */
  etagIn(encoding: Encoding): string {
    if (encoding === 'identity') return this.etag;
    return (this.tags[encoding] ??=
      `${this.etag.slice(0, -1)}-${encoding === 'br' ? 'br' : 'gz'}"`);
  }

  /** The bytes in the chosen content coding when they are made already: the hot path. */
  madeIn(encoding: Encoding): Buffer | undefined {
    return encoding === 'identity' ? this.body : this.encoded[encoding];
  }

  /**
   * The bytes in the chosen content coding, compressed off this thread on first use and kept (the
   * holder counts them).
   */
  bodyIn(encoding: Encoding): Promise<Buffer> {
    if (encoding === 'identity') return Promise.resolve(this.body);
    const made = this.encoded[encoding];
    if (made) return Promise.resolve(made);
    return (this.encoding[encoding] ??= (
      encoding === 'br' ? brotli(this.body, BROTLI) : gzip(this.body)
    ).then(
      (compressed) => {
        const body = ownBuffer(compressed);
        this.encoded[encoding] = body;
        delete this.encoding[encoding];
        this.holder?.grew(this, body.length + ENCODING_OVERHEAD);
        return body;
      },
      (error: unknown) => {
        delete this.encoding[encoding];
        throw error;
      },
    ));
  }

  /** What it holds in memory: its body and the compressed forms made so far, with their overhead. */
  get bytes(): number {
    const { br, gzip } = this.encoded;
    return (
      this.body.length +
      (br ? br.length + ENCODING_OVERHEAD : 0) +
      (gzip ? gzip.length + ENCODING_OVERHEAD : 0)
    );
  }
}
