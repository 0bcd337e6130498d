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
 * True when the answer is 304: If-None-Match matches any of `etags` (every content coding of the
 * same document counts), or, when the request has no If-None-Match, If-Modified-Since is at or
 * after `lastModified` (HTTP dates have whole seconds).
 */
export function notModified(
  headers: IncomingHttpHeaders,
  etags: readonly string[],
  lastModified: Date,
): boolean {
  const inm = headers['if-none-match'];
  if (inm !== undefined) {
    // The common case, a client sending back the one tag it was given, needs no parsing.
    if (etags.includes(inm)) return true;
    const tags = entityTags(inm);
    return tags === '*' || tags.some((t) => etags.includes(t));
  }
  const ims = headers['if-modified-since'];
  if (ims === undefined) return false;
  const since = Date.parse(ims);
  if (Number.isNaN(since)) return false;
  return Math.floor(lastModified.getTime() / 1000) * 1000 <= since;
}
