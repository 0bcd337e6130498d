// What a version's positions graph holds (queries/positions.rq): Wikidata's point for each
// institution its links name an item of (src/load/place/wikidataSets.ts writes them). Read once per
// version; the map, geo search and the GeoJSON export use them where a record has no coordinates.
import { Algebra } from 'sparqlalgebrajs';
import { isilOfInstitutionIri } from '../rdf/iris';
import type { SelectBinding } from './bindings';
import { loadTemplate, type CheckedIri, type QueryTemplate } from './queries';

/** Where the positions of a version are: `{BASE_IRI}/data/positions`. */
export const POSITIONS_PATH = '/data/positions';

export const positionsGraphIri = (baseIri: string): string => `${baseIri}${POSITIONS_PATH}`;

/** Wikidata's position of an institution, with where it is from. */
export interface Position {
  readonly lat: number;
  readonly lon: number;
  /** The Wikidata item whose coordinates these are (`Q…`). */
  readonly item: string;
  /** The day the query that gave them was answered (ISO 8601 date). */
  readonly created: string;
}

let template: QueryTemplate | undefined;

/** queries/positions.rq over the positions graph `graph`. */
export function positionsQuery(graph: CheckedIri): string {
  template ??= loadTemplate('positions.rq', Algebra.types.PROJECT);
  return template.bind({ positions: graph });
}

/** The answer of `positionsQuery` by ISIL: an institution with several items keeps the first. */
export function positionsHeld(
  baseIri: string,
  rows: readonly SelectBinding[],
): ReadonlyMap<string, Position> {
  const positions = new Map<string, Position>();
  for (const row of rows) {
    const isil = isilOfInstitutionIri(baseIri, row.institution?.value ?? '');
    const lat = Number(row.lat?.value);
    const lon = Number(row.long?.value);
    const item = row.item?.value.split('/').at(-1);
    if (!isil || positions.has(isil) || !item || !Number.isFinite(lat) || !Number.isFinite(lon))
      continue;
    positions.set(isil, { lat, lon, item, created: (row.created?.value ?? '').slice(0, 10) });
  }
  return positions;
}
