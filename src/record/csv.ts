// The CSV of search hits (`/search?format=csv`) and of the dumps, one row an institution, its
// columns fields of src/record/fields.ts: made in the search index's thread for a search, since a
// large export copied back and written held the serving thread (docs/benchmark.md, "the CSV in the
// index's thread").
import { createHash } from 'node:crypto';
import type { FlatRecord } from './flatRecord';
import { CSV_FIELDS, fieldValue, type FieldContext, type FieldName } from './fields';

/** A CSV field (RFC 4180), a leading formula character made inert for spreadsheets. */
export function csvField(value: string | number | readonly string[] | undefined): string {
  if (value === undefined) return '';
  let text = typeof value === 'object' ? value.join(' | ') : String(value);
  if (typeof value !== 'number' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV answer of a search, made in the index's thread, with a strong ETag of its bytes. */
export interface MadeCsv {
  readonly body: Uint8Array;
  readonly etag: string;
}

/** The dumps' header: the default columns. */
export const CSV_HEAD: readonly string[] = CSV_FIELDS;

/** One institution's row of the columns `fields`, without its line end. */
export function csvLine(
  e: FlatRecord,
  fields: readonly FieldName[],
  context: FieldContext,
): string {
  return fields.map((name) => csvField(fieldValue(e, name, context))).join(',');
}

/** One institution's row of the default columns, without its line end; `uri` is its resource URI. */
export function csvRow(e: FlatRecord, uri: string): string {
  const before = CSV_FIELDS.filter((name) => name !== 'uri');
  return `${csvLine(e, before, { baseIri: '', pagePattern: '' })},${csvField(uri)}`;
}

/**
 * The CSV of `entries` (the header first) in UTF-8, columns `fields`, with a strong ETag of its
 * bytes: bytes, so that the thread that sends them neither measures nor encodes the text.
 */
export function searchCsv(
  entries: Iterable<FlatRecord>,
  context: FieldContext,
  fields: readonly FieldName[] = CSV_FIELDS,
): MadeCsv {
  const lines = [fields.join(',')];
  for (const e of entries) lines.push(csvLine(e, fields, context));
  const body = Buffer.from(`${lines.join('\r\n')}\r\n`);
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}
