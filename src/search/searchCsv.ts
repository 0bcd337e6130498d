// The CSV of search hits (`/search?format=csv`) and of the dumps, one row an institution: made in
// the search index's thread for a search, since an export of 10,000 rows took the serving thread
// some 55 ms to copy back and write.
import { createHash } from 'node:crypto';
import { RESOURCE_PATH } from '../rdf/iris';
import type { SearchEntry } from './entry';

/** A CSV field (RFC 4180), a leading formula character made inert for spreadsheets. */
export function csvField(value: string | number | undefined): string {
  if (value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV answer of a search, made in the index's thread, with a strong ETag of its bytes. */
export interface MadeCsv {
  readonly body: Uint8Array;
  readonly etag: string;
}

export const CSV_HEAD = ['isil', 'name', 'sigel', 'postcode', 'city', 'type', 'lat', 'lon', 'uri'];

/** One institution's row, without its line end; `uri` is its resource URI. */
export function csvRow(e: SearchEntry, uri: string): string {
  return [e.isil, e.name, e.sigel, e.postcodes[0], e.cities[0], e.type, e.lat, e.lon, uri]
    .map(csvField)
    .join(',');
}

/**
 * The CSV of `entries` (the header first) in UTF-8, with a strong ETag of its bytes: bytes, so that
 * the thread that sends them neither measures nor encodes the text.
 */
export function searchCsv(entries: Iterable<SearchEntry>, baseIri: string): MadeCsv {
  const lines = [CSV_HEAD.join(',')];
  for (const e of entries) lines.push(csvRow(e, `${baseIri}${RESOURCE_PATH}${e.isil}`));
  const body = Buffer.from(`${lines.join('\r\n')}\r\n`);
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}
