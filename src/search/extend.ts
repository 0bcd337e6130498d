// Reconciliation's data extension (W3C Reconciliation API 0.2, "Data extension"): the properties
// a client may add to a reconciled column, each read from the institution's fields
// (src/record/fields.ts), typed as the spec has it: strings as `str`, the coordinates as one
// "lat,lon" string, Wikidata, the GND and a withdrawn ISIL's successor as entities (`id`, `name`)
// with `meta` naming their service and type.
import type { FlatRecord } from '../record/flatRecord';
import { fieldValue, type FieldContext, type FieldName } from '../record/fields';

export type ExtendValue = { readonly str: string } | { readonly id: string; readonly name: string };

/** A withdrawn ISIL's successor, as the dataset follows it. */
export interface Successor {
  readonly isil: string;
  readonly name: string;
}

/** The meta of an entity-valued property: the service its ids belong to, and their type. */
export interface PropertyMeta {
  readonly service: string;
  readonly type: { readonly id: string; readonly name: string };
}

interface Property {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** The field the value is, for a string. */
  readonly field?: FieldName;
  /** An entity's service and type; `undefined` for the service's own institutions. */
  readonly entity?: 'wikidata' | 'gnd' | 'successor';
}

/** The properties, in the order the proposals list them. */
export const EXTEND_PROPERTIES: readonly Property[] = [
  { id: 'isil', name: 'ISIL', description: 'the ISIL', field: 'isil' },
  { id: 'sigel', name: 'Sigel', description: "the agency's older identifier", field: 'sigel' },
  { id: 'name', name: 'Name', description: 'the name', field: 'name' },
  {
    id: 'otherNames',
    name: 'Other names',
    description: 'short and other names',
    field: 'otherNames',
  },
  { id: 'city', name: 'City', description: 'the city', field: 'city' },
  { id: 'postcode', name: 'Postcode', description: 'the postcode', field: 'postcode' },
  { id: 'street', name: 'Street address', description: 'street and number', field: 'street' },
  { id: 'coordinates', name: 'Coordinates', description: '"lat,lon" (WGS 84)' },
  { id: 'homepage', name: 'Homepage', description: 'the website', field: 'homepage' },
  {
    id: 'email',
    name: 'E-mail',
    description: "the main contact's e-mail address",
    field: 'email',
  },
  { id: 'phone', name: 'Phone', description: 'the main phone number', field: 'phone' },
  { id: 'type', name: 'Type', description: 'library, archive, museum or other', field: 'type' },
  { id: 'wikidata', name: 'Wikidata', description: 'the Wikidata item', entity: 'wikidata' },
  { id: 'gnd', name: 'GND', description: 'the GND record', entity: 'gnd' },
  {
    id: 'successor',
    name: 'Successor',
    description: 'for a withdrawn ISIL, the institution that took it over',
    entity: 'successor',
  },
];

const BY_ID: ReadonlyMap<string, Property> = new Map(EXTEND_PROPERTIES.map((p) => [p.id, p]));

export const isExtendProperty = (id: string): boolean => BY_ID.has(id);

/** The `meta` of each property asked for (data-extension-response.json). */
export function extendMeta(
  ids: readonly string[],
  reconcileService: string,
  organization: { id: string; name: string },
): { id: string; name: string; service?: string; type?: { id: string; name: string } }[] {
  const services: Readonly<Record<NonNullable<Property['entity']>, PropertyMeta>> = {
    wikidata: {
      service: 'https://wikidata.reconci.link/en/api',
      type: { id: 'Q43229', name: 'organization' },
    },
    gnd: {
      service: 'https://lobid.org/gnd/reconcile',
      type: { id: 'CorporateBody', name: 'Corporate body' },
    },
    successor: { service: reconcileService, type: organization },
  };
  return ids.map((id) => {
    const property = BY_ID.get(id)!;
    const meta = property.entity ? services[property.entity] : undefined;
    return { id, name: property.name, ...(meta ?? {}) };
  });
}

const strings = (value: string | number | readonly string[] | undefined): ExtendValue[] =>
  value === undefined
    ? []
    : (typeof value === 'object' ? value : [String(value)]).map((str) => ({ str }));

/**
 * The values of the property `id` of an institution: `entry` when it is live, `successor` when
 * its ISIL was withdrawn and another took it over; none where the data has none.
 */
export function extendValues(
  id: string,
  entry: FlatRecord | undefined,
  successor: Successor | undefined,
  context: FieldContext,
): ExtendValue[] {
  const property = BY_ID.get(id)!;
  if (property.entity === 'successor')
    return successor ? [{ id: successor.isil, name: successor.name }] : [];
  if (!entry) return [];
  if (property.field) return strings(fieldValue(entry, property.field, context));
  if (id === 'coordinates')
    return entry.lat === undefined ? [] : [{ str: `${entry.lat},${entry.lon}` }];
  const linked = property.entity === 'wikidata' ? entry.wikidata : entry.gnd;
  // Wikidata's item and the GND's record are this institution: its name names them.
  return linked ? [{ id: linked, name: entry.name }] : [];
}
