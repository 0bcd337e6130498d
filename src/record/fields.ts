// An institution's fields, read from its flat record (src/record/flatRecord.ts): the one list of what
// a machine can ask for by name. The CSV's columns, the JSON Lines' keys, the GeoJSON's properties,
// reconciliation's `extend` values and the OAI-PMH records read them here, and docs/search.md
// lists them from `FIELDS` (a test compares the two).
import type { Description } from '../rdf/description';
import { RESOURCE_PATH } from '../rdf/iris';
import { flatRecord, type FlatRecord } from './flatRecord';

/** Where an institution's URI and page are: plain data, so that it reaches the index's thread. */
export interface FieldContext {
  /** BASE_IRI: the URI is `{baseIri}/resource/organisations/{isil}`. */
  readonly baseIri: string;
  /** The page's URL with `{isil}` where the ISIL goes (src/pages/pageUrl.ts). */
  readonly pagePattern: string;
}

export type FieldValue = string | number | readonly string[] | undefined;

interface Field {
  readonly name: string;
  /** What it holds, as docs/search.md says it. */
  readonly description: string;
  readonly value: (entry: FlatRecord, context: FieldContext) => FieldValue;
}

const list = (values: readonly string[]): FieldValue => (values.length ? values : undefined);

/** Every field, in the order a record lists them. */
export const FIELDS = [
  { name: 'isil', description: 'the ISIL', value: (e) => e.isil },
  { name: 'name', description: 'the name', value: (e) => e.name },
  {
    name: 'otherNames',
    description: 'short and other names (a list)',
    value: (e) => list(e.otherNames),
  },
  { name: 'sigel', description: "the agency's older identifier", value: (e) => e.sigel },
  {
    name: 'postcode',
    description: 'the postcode of the first address',
    value: (e) => e.postcodes[0],
  },
  { name: 'city', description: 'the city of the first address', value: (e) => e.cities[0] },
  { name: 'street', description: 'the street address', value: (e) => e.street },
  {
    name: 'type',
    description: '`library`, `archive`, `museum` or `other`, where the data says',
    value: (e) => e.type,
  },
  { name: 'country', description: "the ISIL's prefix (`DE`, `ZDB`)", value: (e) => e.country },
  { name: 'lat', description: 'latitude (WGS 84)', value: (e) => e.lat },
  { name: 'lon', description: 'longitude (WGS 84)', value: (e) => e.lon },
  {
    name: 'positionFrom',
    description: "`wikidata` where `lat` and `lon` are Wikidata's, not the agency's record's",
    value: (e) => e.positionFrom,
  },
  {
    name: 'uri',
    description: "the institution's URI",
    value: (e, c) => `${c.baseIri}${RESOURCE_PATH}${e.isil}`,
  },
  {
    name: 'page',
    description: "the institution's page",
    value: (e, c) => c.pagePattern.replace('{isil}', e.isil),
  },
  { name: 'homepage', description: 'its website', value: (e) => e.homepage },
  {
    name: 'email',
    description: "the main contact's e-mail address (that of the main phone number's contact)",
    value: (e) => e.email,
  },
  {
    name: 'illEmail',
    description: 'the e-mail address of the lending interlibrary loan (`Gebende Fernleihe`)',
    value: (e) => e.illEmail,
  },
  { name: 'phone', description: 'the main phone number', value: (e) => e.phone },
  { name: 'wikidata', description: 'the Wikidata item (`Q…`)', value: (e) => e.wikidata },
  { name: 'gnd', description: 'the GND record', value: (e) => e.gnd },
  {
    name: 'modified',
    description:
      'when the record last changed, as the record says it (ISO 8601; no zone where it has none)',
    value: (e) => e.modified,
  },
] as const satisfies readonly Field[];

export type FieldName = (typeof FIELDS)[number]['name'];

export const FIELD_NAMES: readonly FieldName[] = FIELDS.map((f) => f.name);

const BY_NAME: ReadonlyMap<string, Field> = new Map(FIELDS.map((f) => [f.name, f]));

/** The CSV's columns when `fields=` names none: the CSV dump's. */
export const CSV_FIELDS: readonly FieldName[] = [
  'isil',
  'name',
  'sigel',
  'postcode',
  'city',
  'type',
  'lat',
  'lon',
  'uri',
];

/** Whether `name` is a field. */
export const isField = (name: string): name is FieldName => BY_NAME.has(name);

/** The value of the field `name` of `entry`; `undefined` where the data has none. */
export function fieldValue(entry: FlatRecord, name: FieldName, context: FieldContext): FieldValue {
  return BY_NAME.get(name)!.value(entry, context);
}

/** The fields `names` of `entry` that have a value, in that order, as a JSON object. */
export function institutionFields(
  entry: FlatRecord,
  context: FieldContext,
  names: readonly FieldName[] = FIELD_NAMES,
): Record<string, string | number | readonly string[]> {
  const record: Record<string, string | number | readonly string[]> = {};
  for (const name of names) {
    const value = fieldValue(entry, name, context);
    if (value !== undefined) record[name] = value;
  }
  return record;
}

/** The fields of the institution `isil` from its description (the OAI-PMH provider's way in). */
export function fieldsOf(
  isil: string,
  description: Description,
  context: FieldContext,
  names: readonly FieldName[] = FIELD_NAMES,
): Record<string, string | number | readonly string[]> {
  return institutionFields(flatRecord(isil, description), context, names);
}
