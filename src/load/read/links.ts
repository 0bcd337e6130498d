// The reader of a links source: Wikidata's ISIL lookup, the answer of a Wikidata Query Service
// query exported as TSV (header `?item ?itemLabel ?isil ?gndId ?dbsId`, one row per item and ISIL,
// lobid-organisations' `wikidataLookup.tsv`). Each row says that the institution of an ISIL is a
// Wikidata item and, where the item names one, a GND entity. These are not descriptions: they
// never compete with a record, are kept in a graph of their own (LINKS_PATH) and are served beside
// the institution's description as `owl:sameAs` (queries/describe.rq). Wikidata is CC0.
import fs from 'node:fs';
import path from 'node:path';
import { isilDefect } from '../../rdf/isil';
import { GND, WIKIDATA } from '../../rdf/namespaces';
import { fileHead } from '../../util/utf8';
import { LoadError } from '../loadError';
import { readLines } from './listRecords';
import type { SkippedRecord } from '../../mapping/sourceRecord';

/** The header of the Wikidata Query Service's TSV answer, which fixes the column order. */
export const LINK_LIST_HEADER = '?item\t?itemLabel\t?isil\t?gndId\t?dbsId';

const WIKIDATA_ITEM = /^https?:\/\/www\.wikidata\.org\/entity\/(Q[1-9][0-9]{0,11})$/;
/**
 * A GND identifier (the GND's own syntax: a record number with its check character, an older
 * number with a hyphen): anything else in the column is not made into an IRI.
 */
const GND_ID = /^(?:1[0-9]{7,9}[0-9X]|[1-9][0-9]{0,7}-[0-9X]|[47][0-9]{6}-[0-9]|3[0-9]{7}[0-9X])$/;
/** A date in the file's name (`…_2023-09.tsv`, `…_2023-09-25.tsv`): when the lookup was made. */
const NAMED_DATE =
  /(?:^|[^0-9])([12][0-9]{3})-(0[1-9]|1[0-2])(?:-(0[1-9]|[12][0-9]|3[01]))?(?![0-9])/;

export { GND, WIKIDATA };

/** What a links source says of one ISIL: the same institution elsewhere. */
export interface LinkRecord {
  readonly kind: 'links';
  readonly isil: string;
  /** The IRIs of the same institution elsewhere (Wikidata items, GND entities). */
  readonly targets: readonly string[];
  /** When the source was made: a new file of links with later links is a later change. */
  readonly modified: Date;
  readonly origin: string;
}

export function isLinkRecord(record: object): record is LinkRecord {
  return (record as Partial<LinkRecord>).kind === 'links';
}

/** Whether `file` is a links source, by its first line. */
export function sniffLinks(file: string): boolean {
  const text = fileHead(file, 256).replace(/^\uFEFF/, '');
  const end = text.indexOf('\n');
  return text.slice(0, end === -1 ? text.length : end).replace(/\r$/, '') === LINK_LIST_HEADER;
}

/**
 * When the links of `file` were made: the date in its name (the lookup's export is named so), else
 * the file's last modification. The name's date is the same on every machine that loads the file;
 * the file's time is not (a checkout sets it), so a file that changes is best named by its date.
 */
export function linksDate(file: string): Date {
  const named = NAMED_DATE.exec(path.basename(file));
  if (named) return new Date(Date.UTC(+named[1]!, +named[2]! - 1, +(named[3] ?? 1)));
  return new Date(Math.floor(fs.statSync(file).mtimeMs / 1000) * 1000);
}

/**
 * The file's rows as link records, one per ISIL (an ISIL that several items name has every item),
 * in the order of their first row; rows without an ISIL are the lookup's own (an item with only a
 * library-statistics number) and are passed over; rows whose ISIL or item is malformed are skipped
 * records, and a GND column that is not a GND identifier is left out of its row.
 */
export function* readLinkList(file: string): Generator<LinkRecord | SkippedRecord> {
  const lines = readLines(file);
  if (lines[0] !== LINK_LIST_HEADER)
    throw new LoadError(
      file,
      1,
      1,
      `not a links source: expected the header ${JSON.stringify(LINK_LIST_HEADER)}`,
    );
  const modified = linksDate(file);
  const byIsil = new Map<string, { isil: string; origin: string; targets: Set<string> }>();
  for (let index = 1; index < lines.length; index++) {
    const line = lines[index]!;
    if (line === '') continue;
    const origin = `${file}:${index + 1}`;
    const [item = '', , isilCell = '', gnd = ''] = line.split('\t').map((cell) => cell.trim());
    if (isilCell === '') continue;
    const wikidata = WIKIDATA_ITEM.exec(item);
    const defect =
      isilDefect(isilCell) !== undefined
        ? `"${isilCell}" is not a well-formed ISIL (${isilDefect(isilCell)})`
        : wikidata === null
          ? `"${item}" is not a Wikidata item's IRI`
          : undefined;
    if (defect !== undefined) {
      yield { origin, id: isilCell, reason: defect, kind: 'malformed' };
      continue;
    }
    // An ISIL is one whatever its case: its rows are one record, spelled as first seen.
    const key = isilCell.toLowerCase();
    let entry = byIsil.get(key);
    if (!entry) byIsil.set(key, (entry = { isil: isilCell, origin, targets: new Set() }));
    entry.targets.add(`${WIKIDATA}${wikidata![1]}`);
    if (GND_ID.test(gnd)) entry.targets.add(`${GND}${gnd}`);
  }
  for (const { isil, origin, targets } of byIsil.values())
    yield { kind: 'links', isil, origin, modified, targets: [...targets] };
}
