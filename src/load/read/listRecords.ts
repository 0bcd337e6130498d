// Readers of the two tab-separated lists the loader takes besides RDF and PICA+: lobid's name list
// (`id isil sigel name`) becomes name-only records, the redirect list (`current<TAB>retired`, no
// header) withdrawn records with their successor. Also the line reading of every line-based reader.
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

/** The first line of `file`, without a byte-order mark: what tells a line-based format. */
export function firstLine(file: string): string {
  const head = fileHead(file, 64 * 1024).replace(/^\uFEFF/, '');
  const end = head.indexOf('\n');
  return head.slice(0, end === -1 ? head.length : end).replace(/\r$/, '');
}

/**
 * The file's lines that are not empty, decoded as UTF-8, each with its origin (`file:line`) and
 * number; after `header`, which the file must start with, if given. Text that is not UTF-8 is
 * refused with the line and byte column of its first bad byte: a list read with replacement
 * characters would publish wrong names.
 */
export function* numberedLines(
  file: string,
  header?: { readonly line: string; readonly of: string },
): Generator<[text: string, origin: string, line: number]> {
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
  const lines = bytes
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .split('\n');
  if (header && lines[0]!.replace(/\r$/, '') !== header.line)
    throw new LoadError(
      file,
      1,
      1,
      `not ${header.of}: expected the header ${JSON.stringify(header.line)}`,
    );
  for (let index = header ? 1 : 0; index < lines.length; index++) {
    const text = lines[index]!.replace(/\r$/, '');
    if (text !== '') yield [text, `${file}:${index + 1}`, index + 1];
  }
}

/** A record a reader leaves out, broken: where, its ISIL or id if it has one, and why. */
export function malformed(origin: string, id: string | undefined, reason: string): SkippedRecord {
  return { origin, id, reason, kind: 'malformed' };
}

const isilProblem = (isil: string): string | undefined => {
  const defect = isilDefect(isil);
  return defect && `"${isil}" is not a well-formed ISIL (${defect})`;
};

/**
 * Which list the file is, from its first line: the name list's header, or two well-formed ISILs
 * separated by one tab (the redirect list has no header). Anything else is neither.
 */
export function sniffList(file: string): ListKind | undefined {
  const first = firstLine(file);
  if (first === NAME_LIST_HEADER) return 'names';
  const cells = first.split('\t');
  const isils = cells.length === 2 && cells.every((cell) => isilDefect(cell) === undefined);
  return isils ? 'redirects' : undefined;
}

/** The name list's rows as name-only records; rows with a malformed ISIL as skipped ones. */
export function* readNameList(
  file: string,
  { baseIri }: { readonly baseIri: string },
): Generator<SourceRecord | SkippedRecord> {
  const rows: NameRow[] = [];
  for (const [line, origin] of numberedLines(file, { line: NAME_LIST_HEADER, of: 'a name list' })) {
    const cells = line.split('\t');
    const isil = cells[1]?.trim();
    const name = cells.length === 4 ? nameOf(cells[3]!) : '';
    const defect =
      cells.length !== 4
        ? `expected 4 tab-separated columns, found ${cells.length}`
        : (isilProblem(isil!) ?? (name === '' ? 'no name' : undefined));
    if (defect !== undefined) yield malformed(origin, isil || undefined, defect);
    else rows.push({ origin, isil: isil!, sigel: cells[2]!.trim(), name });
  }
  const kept = keepOneOfEachIsil(rows);
  for (const row of rows) {
    const winner = kept.get(isilKey(row.isil))!;
    if (winner === row) yield nameOnlyRecord(row, baseIri);
    else {
      const reason = `differs only in case from ${winner.isil} (${winner.origin}), which has a Sigel`;
      yield malformed(row.origin, row.isil, reason);
    }
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
 * The N-Triples of the institution of `isil` as this loader makes it of a list's row: its type,
 * the predicates and objects of `about`, and its description with the description's licence.
 */
function ownTriples(baseIri: string, isil: string, about: readonly (string | false)[]): string {
  const iri = `<${institutionIri(baseIri, isil as Isil)}>`;
  const document = `<${descriptionIri(baseIri, isil as Isil)}>`;
  const { foaf, wdrs, dcterms } = PREFIXES;
  return (
    [`<${RDF_TYPE}> <${foaf}Organization>`, ...about, `<${wdrs}describedby> ${document}`]
      .filter((statement) => statement !== false)
      .map((statement) => `${iri} ${statement} .\n`)
      .join('') + `${document} <${dcterms}license> <${CC0}> .\n`
  );
}

/**
 * A name-only record: the name, the ISIL (and the Sigel, where the list gives one that is not the
 * ISIL) and the links every record carries. It has no
 * `dcterms:modified`: the list gives no date of the record, and the date of the export is not one.
 */
function nameOnlyRecord({ isil, sigel, name, origin }: NameRow, baseIri: string): SourceRecord {
  const { foaf, dc, owl } = PREFIXES;
  const ntriples = ownTriples(baseIri, isil, [
    `<${foaf}name> ${literal(name)}`,
    `<${dc}identifier> ${literal(`(ISIL)${isil}`)}`,
    // The Sigel, the agency's older identifier, written as the ISIL is.
    !!sigel && sigel !== isil && `<${dc}identifier> ${literal(`(Sigel)${sigel}`)}`,
    `<${owl}sameAs> <http://lobid.org/organisation/${isil}>`,
  ]);
  return { isil, status: 'name-only', modified: undefined, ntriples, origin };
}

/** The redirect list's pairs as withdrawn records of the retired ISIL; broken rows as skipped ones. */
export function* readRedirectList(
  file: string,
  { baseIri }: { readonly baseIri: string },
): Generator<SourceRecord | SkippedRecord> {
  for (const [line, origin] of numberedLines(file)) {
    const cells = line.split('\t').map((cell) => cell.trim());
    const [current, retired] = cells;
    const defect =
      cells.length !== 2
        ? `expected 2 tab-separated columns (current ISIL, retired ISIL), found ${cells.length}`
        : (isilProblem(current!) ??
          isilProblem(retired!) ??
          (isilKey(current!) === isilKey(retired!) ? 'an ISIL cannot replace itself' : undefined));
    if (defect !== undefined) yield malformed(origin, retired || undefined, defect);
    else yield withdrawnRecord(retired!, current!, origin, baseIri);
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
  const { dc, owl, xsd, dcterms } = PREFIXES;
  const ntriples = ownTriples(baseIri, isil, [
    `<${dc}identifier> ${literal(`(ISIL)${isil}`)}`,
    `<${owl}deprecated> "true"^^<${xsd}boolean>`,
    `<${dcterms}isReplacedBy> <${institutionIri(baseIri, successor as Isil)}>`,
  ]);
  return { isil, status: 'withdrawn', modified: undefined, successor, ntriples, origin };
}

/**
 * A name as the agency gives it, as the converter writes text (docs/data-model.md, Quirks): NFC,
 * white-space runs as one space. lobid's TSV export writes each quotation mark in a name twice, as
 * CSV escapes it, though it never encloses a field: `Städtisches Museum ""Junkerhaus""` in the list
 * is the `Städtisches Museum "Junkerhaus"` of the ISIL directory.
 */
function nameOf(cell: string): string {
  return cell.replaceAll('""', '"').normalize('NFC').replace(/\s+/g, ' ').trim();
}

/** An N-Triples string literal (RDF 1.1 N-Triples, ECHAR: `"`, `\`, line breaks escaped). */
function literal(text: string): string {
  return `"${text.replace(/[\\"\n\r]/g, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\${c}`))}"`;
}
