// What the search knows of an institution, read from its published description: the
// names, the identifiers, the places, the coordinates, the ways to reach it and its links. Made the
// same way for every adapter (it reads descriptions through the store port), for every dataset
// version. src/record/fields.ts lists what of it is published as fields.
import type { Quad, Term } from 'n3';
import { parseModified, type Description } from '../rdf/description';
import { LIBTYPES, unknownLibType } from '../rdf/libtype';
import { GND, PREFIXES, RDF_TYPE, WIKIDATA } from '../rdf/namespaces';
import type { Position } from '../store/positions';

const { foaf, v, dbp, geo, schema, dc, dcterms, gbv, owl, rdf, wdrs } = PREFIXES;

/** The kinds of institution the search facets and the pages tell apart. */
export type InstitutionType = 'library' | 'archive' | 'museum' | 'other';

export interface FlatRecord {
  readonly isil: string;
  /** The institution's URI. */
  readonly iri: string;
  readonly name: string;
  /** Short and other names (the Sigel is an identifier, below). */
  readonly otherNames: readonly string[];
  readonly sigel: string | undefined;
  readonly cities: readonly string[];
  readonly postcodes: readonly string[];
  readonly type: InstitutionType | undefined;
  /** The ISIL's prefix: the country code, or a non-country prefix such as `ZDB` or `OCLC`. */
  readonly country: string;
  readonly lat: number | undefined;
  readonly lon: number | undefined;
  /** The street address of the first address that has one. */
  readonly street?: string | undefined;
  readonly homepage?: string | undefined;
  /** The main contact's e-mail address, without `mailto:` (see `mainEmail`). */
  readonly email?: string | undefined;
  /** The e-mail address of the lending interlibrary loan (`Gebende Fernleihe`). */
  readonly illEmail?: string | undefined;
  /** The first voice number (the preferred one first). */
  readonly phone?: string | undefined;
  /** The Wikidata item (`Q…`) and the GND record (its id) the links name. */
  readonly wikidata?: string | undefined;
  readonly gnd?: string | undefined;
  /** When the record last changed: `dcterms:modified` of its description, as the record has it. */
  readonly modified?: string | undefined;
  /** `wikidata` where `lat` and `lon` are Wikidata's (src/store/positions.ts), not the record's. */
  readonly positionFrom?: 'wikidata' | undefined;
}

/** The class IRIs a description may type an institution with, and the kind each one means. */
const TYPES: ReadonlyMap<string, InstitutionType> = new Map([
  [`${schema}Library`, 'library'],
  [`${schema}ArchiveOrganization`, 'archive'],
  [`${schema}Museum`, 'museum'],
]);

/** The Sigel as the agency writes it in `dc:identifier` (`"(Sigel)1a"`, next to `"(ISIL)DE-1a"`). */
const SIGEL = /^\(Sigel\)\s*(.+)$/i;

function objects(quads: readonly Quad[], subject: Term | string, predicate: string): Term[] {
  const s = typeof subject === 'string' ? subject : subject.value;
  return quads
    .filter((q) => q.subject.value === s && q.predicate.value === predicate)
    .map((q) => q.object);
}

const unique = (values: readonly string[]): string[] => [...new Set(values.filter(Boolean))];

/** A coordinate as the data has it (`"52.5"`, sometimes with a comma), when it is one. */
function coordinate(term: Term | undefined, limit: number): number | undefined {
  if (!term) return undefined;
  const value = Number(term.value.trim().replace(',', '.'));
  return Number.isFinite(value) && Math.abs(value) <= limit ? value : undefined;
}

/** The first link of `quads`' subject `r` into `space`, as the id after it. */
function linked(quads: readonly Quad[], r: string, space: string): string | undefined {
  const iri = objects(quads, r, `${owl}sameAs`).find((t) => t.value.startsWith(space));
  return iri?.value.slice(space.length) || undefined;
}

/** The voice numbers of `r`, the preferred one first. */
function voice(quads: readonly Quad[], r: string): string | undefined {
  const voices = objects(quads, r, `${v}tel`).filter((tel) => {
    const types = objects(quads, tel, RDF_TYPE).map((t) => t.value);
    return !types.includes(`${v}Fax`);
  });
  const preferred = voices.find((tel) =>
    objects(quads, tel, RDF_TYPE).some((t) => t.value === `${v}Pref`),
  );
  const tel = preferred ?? voices[0];
  return tel && objects(quads, tel, `${rdf}value`)[0]?.value;
}

const digits = (number: string) => number.replace(/[^+\d]/g, '');

/** The e-mail address of the contact point `point`, without `mailto:`. */
const emailOf = (quads: readonly Quad[], point: Term) =>
  objects(quads, point, `${schema}email`)[0]?.value.replace(/^mailto:/i, '');

/**
 * The main contact's e-mail address: that of the contact point with the main phone number (the
 * record's own choice); else one no contact point names, the general address; else the first. The
 * vCard lists every contact point's address beside it, in no order of importance (DE-1a's first is
 * its interlibrary loan's).
 */
function mainEmail(
  quads: readonly Quad[],
  r: string,
  phone: string | undefined,
): string | undefined {
  const points = objects(quads, r, `${schema}contactPoint`);
  const main =
    phone &&
    points.find((p) =>
      objects(quads, p, `${schema}telephone`).some((t) => digits(t.value) === digits(phone)),
    );
  const own = main && emailOf(quads, main);
  if (own) return own;
  const named = new Set(points.map((p) => emailOf(quads, p)?.toLowerCase()));
  const emails = objects(quads, r, `${v}email`).map((t) => t.value.replace(/^mailto:/i, ''));
  return emails.find((e) => !named.has(e.toLowerCase())) ?? emails[0];
}

/** The address of the lending interlibrary loan, the contact point `Gebende Fernleihe`. */
function illEmail(quads: readonly Quad[], r: string): string | undefined {
  const point = objects(quads, r, `${schema}contactPoint`).find((p) =>
    objects(quads, p, `${schema}contactType`).some((t) => /^gebende fernleihe$/i.test(t.value)),
  );
  return point && emailOf(quads, point);
}

/** `dcterms:modified` of the description document as written, when it is a valid one. */
function modifiedOf(quads: readonly Quad[], r: string): string | undefined {
  const document = objects(quads, r, `${wdrs}describedby`)[0];
  const text = document && objects(quads, document, `${dcterms}modified`)[0]?.value;
  return parseModified(text) ? text : undefined;
}

/** How to reach the institution and where it is linked: the entry's fields beyond the search's. */
function reach(description: Description, adrs: readonly Term[]) {
  const quads = description.quads;
  const r = description.subject;
  const street = adrs
    .flatMap((a) => objects(quads, a, `${v}street-address`))
    .map((t) => t.value.normalize('NFC'))[0];
  const phone = voice(quads, r);
  return {
    street,
    homepage: objects(quads, r, `${foaf}homepage`)[0]?.value,
    email: mainEmail(quads, r, phone),
    illEmail: illEmail(quads, r),
    phone,
    wikidata: linked(quads, r, WIKIDATA),
    gnd: linked(quads, r, GND),
    modified: modifiedOf(quads, r),
  };
}

/** Only the keys whose value is defined: an entry without them is smaller to hold and to send. */
function defined<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(values).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}

/** The flat record of the institution `isil`, from its description. */
export function flatRecord(isil: string, description: Description): FlatRecord {
  const quads = description.quads;
  const r = description.subject;
  const names = objects(quads, r, `${foaf}name`).map((t) => t.value.normalize('NFC'));
  const identifiers = objects(quads, r, `${dc}identifier`).map((t) => t.value);
  const sigel = identifiers.map((i) => SIGEL.exec(i)?.[1]).find((s) => s !== undefined);
  const adrs = objects(quads, r, `${v}adr`);
  const location = objects(quads, r, `${geo}location`)[0];
  const lat = coordinate(location && objects(quads, location, `${geo}lat`)[0], 90);
  const lon = coordinate(location && objects(quads, location, `${geo}long`)[0], 180);
  const types = objects(quads, r, RDF_TYPE).map((t) => TYPES.get(t.value));
  const agency = objects(quads, r, `${PREFIXES.dcterms}type`).map((t) => t.value);
  // A type the code list does not know is no kind, and no guess below stands in for it.
  const unknown = agency.some(unknownLibType);
  const type =
    types.find((t) => t !== undefined) ??
    agency.map((t) => LIBTYPES.get(t)?.kind).find((t) => t !== undefined) ??
    (unknown ? 'other' : undefined) ??
    (objects(quads, r, `${gbv}opac`).length > 0 ? 'library' : undefined) ??
    // The agency gives museums ISILs of their own prefix (through the Institut für
    // Museumsforschung): a name-only record of one is a museum, though it says no more.
    (/^DE-MUS-/i.test(isil) ? 'museum' : undefined);
  return {
    isil,
    iri: r,
    name: names[0] ?? isil,
    otherNames: unique([
      ...names.slice(1),
      ...objects(quads, r, `${dbp}shortName`).map((t) => t.value.normalize('NFC')),
      ...objects(quads, r, `${foaf}nick`).map((t) => t.value.normalize('NFC')),
    ]),
    sigel,
    cities: unique(
      adrs.flatMap((a) => objects(quads, a, `${v}locality`).map((t) => t.value.normalize('NFC'))),
    ),
    postcodes: unique(
      adrs.flatMap((a) => objects(quads, a, `${v}postal-code`).map((t) => t.value)),
    ),
    type,
    country: isil.split('-')[0]!.toUpperCase(),
    lat: lat !== undefined && lon !== undefined ? lat : undefined,
    lon: lat !== undefined && lon !== undefined ? lon : undefined,
    ...defined(reach(description, adrs)),
  };
}

/**
 * The entry with Wikidata's position where its record has no coordinates: the record's own always
 * win, and a position taken from Wikidata says so.
 */
export function withPosition(entry: FlatRecord, position: Position | undefined): FlatRecord {
  if (!position || entry.lat !== undefined) return entry;
  return { ...entry, lat: position.lat, lon: position.lon, positionFrom: 'wikidata' };
}
