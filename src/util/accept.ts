// Proactive negotiation by an `Accept` header (RFC 9110 §12.5.1): the offer a client prefers, by
// the rules of HTTP contract §2. The public documents (src/http/negotiate.ts) and the staff
// endpoint's result formats (chosen in the query's worker) use the same rules.

/** Ranges past this many are ignored: no real client sends more, and parsing stays bounded. */
export const MAX_ACCEPT_RANGES = 64;

interface Range {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * Parses the ranges of an `Accept` header. Parameters other than `q` are dropped (a `profile` or
 * `charset` must not stop `application/ld+json` from matching); a malformed range is skipped.
 */
export function parseAccept(header: string): Range[] {
  const ranges: Range[] = [];
  for (const part of header.split(',').slice(0, MAX_ACCEPT_RANGES)) {
    const [mediaRange = '', ...params] = part.split(';');
    const slash = mediaRange.indexOf('/');
    if (slash < 0) continue;
    const type = mediaRange.slice(0, slash).trim().toLowerCase();
    const subtype = mediaRange
      .slice(slash + 1)
      .trim()
      .toLowerCase();
    if (!TOKEN.test(type) || !TOKEN.test(subtype) || (type === '*' && subtype !== '*')) continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      const eq = param.indexOf('=');
      if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'q') continue;
      const value = param.slice(eq + 1).trim();
      if (!QVALUE.test(value)) valid = false;
      else q = Number(value);
    }
    if (valid) ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The q-value (and its specificity) the most specific matching range gives `mediaType`. */
function quality(ranges: readonly Range[], mediaType: string): { q: number; specificity: number } {
  const [type, subtype] = mediaType.split('/') as [string, string];
  let best = -1;
  let specificity = -1;
  for (const r of ranges) {
    let s: number;
    if (r.type === type && r.subtype === subtype) s = 2;
    else if (r.type === type && r.subtype === '*') s = 1;
    else if (r.type === '*') s = 0;
    else continue;
    // Among ranges of equal specificity the highest q counts (a repeated range is not a veto).
    if (s > specificity || (s === specificity && r.q > best)) {
      specificity = s;
      best = r.q;
    }
  }
  return { q: best, specificity };
}

/**
 * The q-value of a format: an exact range for its own media type decides (so `q=0` on it excludes
 * the format). Otherwise the best of its own type and of aliases the client names exactly: the
 * document is sent as its own type, so `application/*` must not reach HTML through
 * `application/xhtml+xml`, nor `text/*` RDF/XML through `text/xml`.
 */
function formatQuality(ranges: readonly Range[], format: Offer): number {
  const own = quality(ranges, format.mediaType);
  if (own.specificity === 2) return own.q;
  let q = own.q;
  for (const alias of format.aliases) {
    const named = quality(ranges, alias);
    if (named.specificity === 2) q = Math.max(q, named.q);
  }
  return q;
}

/** What can be offered: a media type, and the aliases a client may name it by. */
export interface Offer {
  readonly mediaType: string;
  readonly aliases: readonly string[];
  /** The server's own quality of the offer (1 if unsaid), which the client's q is multiplied by. */
  readonly qs?: number;
}

/**
 * The offer the client prefers, or `undefined` when it accepts none (406). No header, an empty
 * one, or one with no parseable range means "anything": the first offer. Equal q-values are broken
 * by the order of `offers`.
 */
export function negotiateAmong<T extends Offer>(
  accept: string | undefined,
  offers: readonly T[],
): T | undefined {
  const ranges = accept === undefined ? [] : parseAccept(accept);
  if (ranges.length === 0) return offers[0];
  let chosen: T | undefined;
  let chosenQ = 0;
  for (const offer of offers) {
    const q = formatQuality(ranges, offer) * (offer.qs ?? 1);
    if (q > chosenQ) {
      chosen = offer;
      chosenQ = q;
    }
  }
  return chosen;
}
