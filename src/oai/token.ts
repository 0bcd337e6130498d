// Resumption tokens (OAI-PMH 2.0 §3.5): opaque to the harvester, made of the list they continue
// (verb, metadataPrefix, from, until, set), the version whose history the list was cut from, where
// the next page starts and when the token expires; signed with an HMAC under the provider's key
// (OAI_TOKEN_KEY), so that a token edited, cut short or made without the key is refused rather
// than read as another list.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { inspect } from 'node:util';

/** How long a token is honoured after it was issued. */
export const TOKEN_LIFETIME_SECONDS = 24 * 3600;

/** The shortest key taken (bytes): 256 bits, the size of the HMAC's hash. */
export const TOKEN_KEY_MIN_BYTES = 32;

/**
 * The key tokens are signed with. It is held where neither a log line, JSON nor `inspect` reads
 * it: a config or settings object printed whole shows `[secret]`.
 */
export class TokenKey {
  readonly #key: Buffer;
  constructor(key: string | Buffer) {
    this.#key = Buffer.from(key);
  }
  /** A key of its own for this process: its tokens die with it. */
  static random(): TokenKey {
    return new TokenKey(randomBytes(TOKEN_KEY_MIN_BYTES));
  }
  /** The HMAC-SHA-256 of `payload`, bound to this use of the key. */
  tag(payload: string): Buffer {
    return createHmac('sha256', this.#key).update(`oai-pmh-token\u0000${payload}`).digest();
  }
  toJSON(): string {
    return '[secret]';
  }
  toString(): string {
    return '[secret]';
  }
  [inspect.custom](): string {
    return 'TokenKey [secret]';
  }
}

/** What a token says. */
export interface Token {
  readonly verb: 'ListIdentifiers' | 'ListRecords';
  readonly metadataPrefix: string;
  readonly from?: string;
  readonly until?: string;
  readonly set?: string;
  /** The history the list was cut from: the version served then, and its time. */
  readonly version: string;
  readonly versionTime: number;
  /** Where the next page starts in the list. */
  readonly cursor: number;
  /** When the token expires (seconds, UTC). */
  readonly expires: number;
}

/** The token's format: a token of another format is none of ours. */
const FORMAT = 2;

/** The token's text: `<payload>.<tag>`, both base64url. */
export function encodeToken(token: Token, key: TokenKey): string {
  const payload = Buffer.from(
    JSON.stringify([
      FORMAT,
      token.verb,
      token.metadataPrefix,
      token.from ?? null,
      token.until ?? null,
      token.set ?? null,
      token.version,
      token.versionTime,
      token.cursor,
      token.expires,
    ]),
  ).toString('base64url');
  return `${payload}.${key.tag(payload).toString('base64url')}`;
}

/** Longest token read: ours are a few hundred characters. */
const MAX_TOKEN = 1024;

const optional = (value: unknown): string | undefined | false =>
  value === null ? undefined : typeof value === 'string' ? value : false;

/**
 * Whether `tag` is `payload`'s under `key`, compared in constant time. The text is compared, not
 * the bytes it decodes to: base64url has spare bits, and a token edited in them is refused too.
 */
function signed(payload: string, tag: string, key: TokenKey): boolean {
  const expected = Buffer.from(key.tag(payload).toString('base64url'));
  const given = Buffer.from(tag);
  // The length is the hash's, never a secret: only equal lengths are compared.
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The token `text` names, or undefined when it is none of ours (malformed, edited, cut short,
 * signed with another key).
 */
export function decodeToken(text: string, key: TokenKey): Token | undefined {
  if (text.length > MAX_TOKEN) return undefined;
  const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(text);
  if (!m || !signed(m[1]!, m[2]!, key)) return undefined;
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parts) || parts.length !== 10 || parts[0] !== FORMAT) return undefined;
  const [, verb, metadataPrefix, f, u, s, version, versionTime, cursor, expires] =
    parts as unknown[];
  const [from, until, set] = [optional(f), optional(u), optional(s)];
  if (
    (verb !== 'ListIdentifiers' && verb !== 'ListRecords') ||
    typeof metadataPrefix !== 'string' ||
    from === false ||
    until === false ||
    set === false ||
    typeof version !== 'string' ||
    !Number.isSafeInteger(versionTime) ||
    !Number.isSafeInteger(cursor) ||
    (cursor as number) < 0 ||
    !Number.isSafeInteger(expires)
  )
    return undefined;
  return {
    verb,
    metadataPrefix,
    ...(from !== undefined ? { from } : {}),
    ...(until !== undefined ? { until } : {}),
    ...(set !== undefined ? { set } : {}),
    version,
    versionTime: versionTime as number,
    cursor: cursor as number,
    expires: expires as number,
  };
}
