// Readers of the two tab-separated lists the loader takes besides RDF and PICA+: lobid's name list
// (`id isil sigel name`) becomes name-only records, the redirect list (`current<TAB>retired`, no
// header) withdrawn records with their successor.
import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import { descriptionIri, institutionIri } from '../../rdf/iris';
import { isilDefect, isilKey, type Isil } from '../../rdf/isil';
import { CC0, PREFIXES, RDF_TYPE } from '../../rdf/namespaces';
import type { SkippedRecord, SourceRecord } from '../../mapping/sourceRecord';
import { fileHead, firstInvalidUtf8 } from '../../util/utf8';
import { LoadError } from '../loadError';

export type ListKind = 'names' | 'redirects';

/** The header of lobid-organisations' TSV export, which fixes the column order. */
export const NAME_LIST_HEADER = 'id\tisil\tsigel\tname';

export interface ListOptions {
  readonly baseIri: string;
}

const BOM = '\uFEFF';
/** How much of a file sniffing looks at: the first line of either list is far shorter. */
const SNIFF_BYTES = 4096;

/**
 * Which list the file is, from its first line: the name list's header, or two well-formed ISILs
 * separated by one tab (the redirect list has no header). Anything else is neither.
 */
export function sniffList(file: string): ListKind | undefined {
  const first = firstLine(fileHead(file, SNIFF_BYTES));
  if (first === NAME_LIST_HEADER) return 'names';
  const cells = first.split('\t');
  if (cells.length === 2 && cells.every((cell) => isilDefect(cell) === undefined)) {
    return 'redirects';
  }
  return undefined;
}

function firstLine(text: string): string {
  const start = text.startsWith(BOM) ? 1 : 0;
  const end = text.indexOf('\n');
  return text.slice(start, end === -1 ? text.length : end).replace(/\r$/, '');
}

/** The name list's rows as name-only records; rows with a malformed ISIL as skipped ones. */
export function* readNameList(
  file: string,
  options: ListOptions,
): Generator<SourceRecord | SkippedRecord> {
  const lines = readLines(file);
  if (lines[0] !== NAME_LIST_HEADER) {
    throw new LoadError(
      file,
      1,
      1,
      `not a name list: expected the header ${JSON.stringify(NAME_LIST_HEADER)}`,
    );
  }
  const rows: NameRow[] = [];
  for (let index = 1; index < lines.length; index++) {
    const line = lines[index]!;
    if (line === '') continue;
    const origin = `${file}:${index + 1}`;
    const cells = line.split('\t');
    const isil = cells[1]?.trim();
    const name = cells.length === 4 ? nameOf(cells[3]!) : '';
    const defect =
      cells.length !== 4
        ? `expected 4 tab-separated columns, found ${cells.length}`
        : isilDefect(isil!) !== undefined
          ? `"${isil}" is not a well-formed ISIL (${isilDefect(isil!)})`
          : name === ''
            ? 'no name'
            : undefined;
    if (defect !== undefined) {
      yield { origin, id: isil || undefined, reason: defect, kind: 'malformed' };
      continue;
    }
    rows.push({ origin, isil: isil!, sigel: cells[2]!.trim(), name });
  }
  const kept = keepOneOfEachIsil(rows);
  for (const row of rows) {
    const winner = kept.get(isilKey(row.isil))!;
    if (winner !== row) {
      yield {
        origin: row.origin,
        id: row.isil,
        reason: `differs only in case from ${winner.isil} (${winner.origin}), which has a Sigel`,
        kind: 'malformed',
      };
      continue;
    }
    yield nameOnlyRecord(row, options.baseIri);
  }
}

interface NameRow {
  readonly origin: string;
  readonly isil: string;
  readonly sigel: string;
  readonly name: string;
}

/**
 * ISILs are unique regardless of case, yet the real list has case twins (`DE-Stg252` and
 * `DE-STG252`, `DE-4115` and `De-4115`). Each time the twin without a Sigel is the row that came
 * from library statistics rather than from the ISIL agency (SOURCES.md), so the row with a Sigel is
 * kept; between rows alike in that, the first.
 */
function keepOneOfEachIsil(rows: readonly NameRow[]): Map<string, NameRow> {
  const kept = new Map<string, NameRow>();
  for (const row of rows) {
    const key = isilKey(row.isil);
    const other = kept.get(key);
    if (other === undefined || (other.sigel === '' && row.sigel !== '')) kept.set(key, row);
  }
  return kept;
}

/**
 * A name-only record: the name, the ISIL (and the Sigel, where the list gives one that is not the
 * ISIL) and the links every record carries. It has no
 * `dcterms:modified`: the list gives no date of the record, and the date of the export is not one.
 */
function nameOnlyRecord(row: NameRow, baseIri: string): SourceRecord {
  const iri = institutionIri(baseIri, row.isil as Isil);
  const document = descriptionIri(baseIri, row.isil as Isil);
  return {
    isil: row.isil,
    status: 'name-only',
    modified: undefined,
    ntriples:
      `<${iri}> <${RDF_TYPE}> <${PREFIXES.foaf}Organization> .\n` +
      `<${iri}> <${PREFIXES.foaf}name> ${literal(row.name)} .\n` +
      `<${iri}> <${PREFIXES.dc}identifier> ${literal(`(ISIL)${row.isil}`)} .\n` +
      // The Sigel, the agency's older identifier, written as the ISIL is.
      (row.sigel && row.sigel !== row.isil
        ? `<${iri}> <${PREFIXES.dc}identifier> ${literal(`(Sigel)${row.sigel}`)} .\n`
        : '') +
      `<${iri}> <${PREFIXES.owl}sameAs> <http://lobid.org/organisation/${row.isil}> .\n` +
      `<${iri}> <${PREFIXES.wdrs}describedby> <${document}> .\n` +
      `<${document}> <${PREFIXES.dcterms}license> <${CC0}> .\n`,
    origin: row.origin,
  };
}

/** The redirect list's pairs as withdrawn records of the retired ISIL; broken rows as skipped ones. */
export function* readRedirectList(
  file: string,
  options: ListOptions,
): Generator<SourceRecord | SkippedRecord> {
  const lines = readLines(file);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line === '') continue;
    const origin = `${file}:${index + 1}`;
    const cells = line.split('\t').map((cell) => cell.trim());
    const [current, retired] = cells;
    const defect =
      cells.length !== 2
        ? `expected 2 tab-separated columns (current ISIL, retired ISIL), found ${cells.length}`
        : isilDefect(current!) !== undefined
          ? `"${current}" is not a well-formed ISIL (${isilDefect(current!)})`
          : isilDefect(retired!) !== undefined
            ? `"${retired}" is not a well-formed ISIL (${isilDefect(retired!)})`
            : isilKey(current!) === isilKey(retired!)
              ? 'an ISIL cannot replace itself'
              : undefined;
    if (defect !== undefined) {
      yield { origin, id: retired || undefined, reason: defect, kind: 'malformed' };
      continue;
    }
    yield withdrawnRecord(retired!, current!, origin, options.baseIri);
  }
}

/**
 * The project's representation of a withdrawn ISIL (docs/data-model.md, Lifecycle): the institution
 * marked `owl:deprecated`, its successor as `dcterms:isReplacedBy`, and the description's licence.
 */
export function withdrawnRecord(
  isil: string,
  successor: string,
  origin: string,
  baseIri: string,
): SourceRecord {
  const iri = institutionIri(baseIri, isil as Isil);
  const document = descriptionIri(baseIri, isil as Isil);
  return {
    isil,
    status: 'withdrawn',
    modified: undefined,
    successor,
    ntriples:
      `<${iri}> <${RDF_TYPE}> <${PREFIXES.foaf}Organization> .\n` +
      `<${iri}> <${PREFIXES.dc}identifier> ${literal(`(ISIL)${isil}`)} .\n` +
      `<${iri}> <${PREFIXES.owl}deprecated> "true"^^<${PREFIXES.xsd}boolean> .\n` +
      `<${iri}> <${PREFIXES.dcterms}isReplacedBy> <${institutionIri(baseIri, successor as Isil)}> .\n` +
      `<${iri}> <${PREFIXES.wdrs}describedby> <${document}> .\n` +
      `<${document}> <${PREFIXES.dcterms}license> <${CC0}> .\n`,
    origin,
  };
}

/** Text as the converter writes it (docs/data-model.md, Quirks): NFC, white-space runs as one space. */
/**
 * A name as the agency gives it. lobid's TSV export writes each quotation mark in a name twice, as
 * CSV escapes it, though it never encloses a field: `Städtisches Museum ""Junkerhaus""` in the list
 * (191 rows, not one single mark) is the `Städtisches Museum "Junkerhaus"` of the ISIL directory.
 */
function nameOf(cell: string): string {
  return normalize(cell.replaceAll('""', '"'));
}

function normalize(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim();
}

/** An N-Triples string literal (RDF 1.1 N-Triples, ECHAR: `"`, `\`, line breaks escaped). */
function literal(text: string): string {
  return `"${text.replace(/[\\"\n\r]/g, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\${c}`))}"`;
}

/**
 * The file's lines, decoded as UTF-8. Text that is not UTF-8 is refused with the line and byte
 * column of its first bad byte: a list read with replacement characters would publish wrong names.
 */
export function readLines(file: string): string[] {
  const bytes = fs.readFileSync(file);
  if (!isUtf8(bytes)) {
    const at = firstInvalidUtf8(bytes);
    const before = bytes.subarray(0, at);
    const line = before.filter((b) => b === 0x0a).length + 1;
    const column = at - (before.lastIndexOf(0x0a) + 1) + 1;
    throw new LoadError(
      file,
      line,
      column,
      `not UTF-8: byte 0x${bytes[at]!.toString(16)} at offset ${at}`,
    );
  }
  let text = bytes.toString('utf8');
  if (text.startsWith(BOM)) text = text.slice(1);
  return text.split('\n').map((line) => line.replace(/\r$/, ''));
}
