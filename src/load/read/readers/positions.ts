// Wikidata's positions, a GeoJSON query answer (`.geojson`): points of Wikidata items, joined to
// institutions through the links graph, never records (../wikidataPositions.ts).
import { readPositions } from '../wikidataPositions';
import type { RecordReader } from './reader';

export const POSITIONS: RecordReader<'positions'> = {
  format: 'positions',
  extensions: ['.geojson'],
  describes: "a positions source (GeoJSON of Wikidata items' points)",
  records: (file) => readPositions(file),
};
