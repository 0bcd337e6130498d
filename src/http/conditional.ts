// Conditional GET (RFC 9110 §13): whether a request's validators say the client's copy is current.
import type { IncomingHttpHeaders } from 'node:http';

/** Entity tags of an If-None-Match list, without `W/` (RFC 9110 §13.1.2 uses weak comparison). */
function entityTags(header: string): string[] | '*' {
  if (header.trim() === '*') return '*';
  const tags: string[] = [];
  for (const match of header.matchAll(/(?:W\/)?("[\x21\x23-\x7e\x80-\xff]*")/g))
    tags.push(match[1]!);
  return tags;
}

/**
 * True when the answer is 304: If-None-Match names `etag`, the tag of the representation that would
 * be sent (RFC 9110 §13.1.2: its content coding's, not another coding's of the same document), or,
 * when the request has no If-None-Match, If-Modified-Since is at or after `lastModified` (HTTP
 * dates have whole seconds).
 */
export function notModified(
  headers: IncomingHttpHeaders,
  etag: string,
  lastModified: Date,
): boolean {
  const inm = headers['if-none-match'];
  if (inm !== undefined) {
    // The common case, a client sending back the one tag it was given, needs no parsing.
    if (inm === etag) return true;
    const tags = entityTags(inm);
    return tags === '*' || tags.includes(etag);
  }
  const ims = headers['if-modified-since'];
  if (ims === undefined) return false;
  const since = Date.parse(ims);
  if (Number.isNaN(since)) return false;
  return Math.floor(lastModified.getTime() / 1000) * 1000 <= since;
}

/** `date` in whole seconds, as an HTTP date carries it. */
const seconds = (date: Date) => Math.floor(date.getTime() / 1000) * 1000;

/** The strong tags of an If-Match list: a weak tag (`W/"…"`) is never one of them. */
function strongTags(header: string): string[] {
  const tags: string[] = [];
  for (const match of header.matchAll(/(W\/)?("[\x21\x23-\x7e\x80-\xff]*")/g))
    if (!match[1]) tags.push(match[2]!);
  return tags;
}

/**
 * True when the answer is 412 (RFC 9110 §13.2.2): If-Match names no strong tag equal to `etag`
 * (strong comparison, §13.1.1: a weak tag never matches), or, without If-Match, the resource was
 * modified after If-Unmodified-Since (a date that is no HTTP date is ignored).
 */
export function preconditionFailed(
  headers: IncomingHttpHeaders,
  etag: string,
  lastModified: Date,
): boolean {
  const im = headers['if-match'];
  if (im !== undefined) return im.trim() !== '*' && !strongTags(im).includes(etag);
  const ius = headers['if-unmodified-since'];
  if (ius === undefined) return false;
  const since = Date.parse(ius);
  return !Number.isNaN(since) && seconds(lastModified) > since;
}

/**
 * Whether a Range is served (RFC 9110 §13.1.5): without If-Range, or when If-Range is the strong
 * `etag` itself or exactly `lastModified`; a weak tag, another tag or another date asks for the
 * whole representation (200).
 */
export function rangeApplies(
  headers: IncomingHttpHeaders,
  etag: string,
  lastModified: Date,
): boolean {
  const raw = headers['if-range'];
  if (raw === undefined) return true;
  if (typeof raw !== 'string') return false;
  const ir = raw.trim();
  if (ir.startsWith('"') || ir.startsWith('W/')) return ir === etag;
  const date = Date.parse(ir);
  return !Number.isNaN(date) && date === seconds(lastModified);
}
