// The readers of Wikidata's answers to two Wikidata Query Service queries, which are not
// descriptions: they never compete with a record, are kept in graphs of their own and placed once
// the institutions are known (src/load/place/wikidataSets.ts). Wikidata is CC0.
// - A links source, the ISIL lookup exported as TSV (header `?item ?itemLabel ?isil ?gndId ?dbsId`,
//   one row per item and ISIL, lobid-organisations' `wikidataLookup.tsv`): each row says that the
//   institution of an ISIL is a Wikidata item and, where the item names one, a GND entity. They are
//   served beside the institution's description as `owl:sameAs` (queries/describe.rq).
// - A positions source, GeoJSON (a FeatureCollection of Points whose property `item` is the
//   Wikidata item's IRI; the museums of Germany of October 2020, docs/data.md): Wikidata's
//   statement of where an item is, joined to ISILs through the links graph, never served in a
//   description.
import fs from 'node:fs';
import path from 'node:path';
import { isilDefect } from '../../rdf/isil';
import { GND, WIKIDATA } from '../../rdf/namespaces';
import { LoadError } from '../loadError';
import { firstLine, malformed, numberedLines } from './listRecords';
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

/** What a positions source says of one Wikidata item: where it is. */
export interface PositionRecord {
  readonly kind: 'positions';
  /** The item's IRI (`http://www.wikidata.org/entity/Q…`). */
  readonly item: string;
  readonly lat: number;
  readonly lon: number;
  /** When the query was answered: the date in the file's name (`…_2020-10.geojson`). */
  readonly modified: Date;
  readonly origin: string;
}

/** Whether `file` is a links source, by its first line. */
export function sniffLinks(file: string): boolean {
  return firstLine(file) === LINK_LIST_HEADER;
}

/**
 * When the answer in `file` was made: the date in its name (the lookup's export is named so), else
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
  const header = { line: LINK_LIST_HEADER, of: 'a links source' };
  const byIsil = new Map<string, { isil: string; origin: string; targets: Set<string> }>();
  for (const [line, origin] of numberedLines(file, header)) {
    const [item = '', , isil = '', gnd = ''] = line.split('\t').map((cell) => cell.trim());
    if (isil === '') continue;
    const wikidata = WIKIDATA_ITEM.exec(item);
    const defect = isilDefect(isil);
    if (defect !== undefined || wikidata === null) {
      yield malformed(
        origin,
        isil,
        defect !== undefined
          ? `"${isil}" is not a well-formed ISIL (${defect})`
          : `"${item}" is not a Wikidata item's IRI`,
      );
      continue;
    }
    // An ISIL is one whatever its case: its rows are one record, spelled as first seen.
    const key = isil.toLowerCase();
    let entry = byIsil.get(key);
    if (!entry) byIsil.set(key, (entry = { isil, origin, targets: new Set() }));
    entry.targets.add(`${WIKIDATA}${wikidata[1]}`);
    if (GND_ID.test(gnd)) entry.targets.add(`${GND}${gnd}`);
  }
  const modified = linksDate(file);
  for (const { isil, origin, targets } of byIsil.values())
    yield { kind: 'links', isil, origin, modified, targets: [...targets] };
}

interface Feature {
  readonly properties?: { readonly item?: unknown } | null;
  readonly geometry?: { readonly type?: unknown; readonly coordinates?: unknown } | null;
}

/**
 * The file's features as position records, one per item (an item the query answered several times,
 * once per value of another property, keeps its first point); a feature without a Wikidata item
 * or a WGS 84 point is a skipped record. A file that is not a FeatureCollection is refused whole.
 */
export function* readPositions(file: string): Generator<PositionRecord | SkippedRecord> {
  let collection: { type?: unknown; features?: unknown };
  try {
    collection = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof collection;
  } catch (error) {
    throw new LoadError(file, 1, 1, `not GeoJSON: ${(error as Error).message}`);
  }
  if (collection?.type !== 'FeatureCollection' || !Array.isArray(collection.features))
    throw new LoadError(file, 1, 1, 'not a positions source: expected a GeoJSON FeatureCollection');
  const modified = linksDate(file);
  const seen = new Set<string>();
  for (const [n, feature] of (collection.features as Feature[]).entries()) {
    const origin = `${file}#${n + 1}`;
    const iri = feature?.properties?.item;
    const item = typeof iri === 'string' ? WIKIDATA_ITEM.exec(iri)?.[1] : undefined;
    const [lon, lat] = Array.isArray(feature?.geometry?.coordinates)
      ? (feature.geometry.coordinates as unknown[])
      : [];
    const point =
      feature?.geometry?.type === 'Point' &&
      typeof lat === 'number' &&
      typeof lon === 'number' &&
      Math.abs(lat) <= 90 &&
      Math.abs(lon) <= 180;
    if (!item || !point) {
      const why = !item ? 'has no Wikidata item' : 'has no WGS 84 point';
      yield malformed(origin, item, `the feature ${why}`);
    } else if (!seen.has(item)) {
      seen.add(item);
      yield { kind: 'positions', item: `${WIKIDATA}${item}`, lat, lon, modified, origin };
    }
  }
}
