// Resumption tokens (OAI-PMH 2.0 §3.5): opaque to the harvester, made of the list they continue
// (verb, metadataPrefix, from, until, set), the version whose history the list was cut from, where
// the next page starts and when the token expires; checked by a digest, so that a token edited or
// cut short is refused rather than read as another list.
import { createHash } from 'node:crypto';

/** How long a token is honoured after it was issued. */
export const TOKEN_LIFETIME_SECONDS = 24 * 3600;

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

const digest = (payload: string): string =>
  createHash('sha256').update(`oai-pmh-token\u0000${payload}`).digest('base64url').slice(0, 16);

/** The token's text: `<payload>.<digest>`, both base64url. */
export function encodeToken(token: Token): string {
  const payload = Buffer.from(
    JSON.stringify([
      1,
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
  return `${payload}.${digest(payload)}`;
}

/** Longest token read: ours are a few hundred characters. */
const MAX_TOKEN = 1024;

const optional = (value: unknown): string | undefined | false =>
  value === null ? undefined : typeof value === 'string' ? value : false;

/** The token `text` names, or undefined when it is none of ours (malformed, edited, foreign). */
export function decodeToken(text: string): Token | undefined {
  if (text.length > MAX_TOKEN) return undefined;
  const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{16})$/.exec(text);
  if (!m || digest(m[1]!) !== m[2]) return undefined;
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parts) || parts.length !== 10 || parts[0] !== 1) return undefined;
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
