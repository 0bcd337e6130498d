// The reader of a positions source: the answer of a Wikidata Query Service query as GeoJSON (a
// FeatureCollection of Points whose property `item` is the Wikidata item's IRI; the museums of
// Germany of October 2020, docs/data.md). A position is Wikidata's statement about an item, not a
// record of the agency's: it competes with none, is joined to ISILs through the links graph (the
// ISIL lookup names the items), kept in a graph of its own (src/load/place/positionSet.ts) and never
// served in a description. Wikidata is CC0.
import fs from 'node:fs';
import { WIKIDATA } from '../../rdf/namespaces';
import { linksDate } from './links';
import { LoadError } from '../loadError';
import type { SkippedRecord } from '../../mapping/sourceRecord';

const WIKIDATA_ITEM = /^https?:\/\/www\.wikidata\.org\/entity\/(Q[1-9][0-9]{0,11})$/;

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

export function isPositionRecord(record: object): record is PositionRecord {
  return (record as Partial<PositionRecord>).kind === 'positions';
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
  let n = 0;
  for (const feature of collection.features as Feature[]) {
    const origin = `${file}#${++n}`;
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
      yield { origin, id: item, reason: `the feature ${why}`, kind: 'malformed' };
      continue;
    }
    if (seen.has(item)) continue;
    seen.add(item);
    yield { kind: 'positions', item: `${WIKIDATA}${item}`, lat, lon, modified, origin };
  }
}
