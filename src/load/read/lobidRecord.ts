// Reads lobid-organisations' bulk JSON-LD lines (one institution's JSON-LD document a line; the
// Elasticsearch bulk form puts an `{"index": …}` line before each) and maps each document's fields
// to the published FOAF/vCard model (docs/data-model.md), as the PICA+ converter writes them. Its
// context is lobid's, on lobid's host: the fields are read by their names, not expanded as JSON-LD.
import { LIBTYPE } from '../../rdf/libtype';
import { CC0, PREFIXES, RDF_TYPE } from '../../rdf/namespaces';
import { firstLine, malformed, numberedLines } from './listRecords';
import { LoadError } from '../loadError';
import { agencyTime, IRI_SAFE_ISIL, iri, text, Triples } from '../../mapping/recordTriples';
import type { SkippedRecord, SourceRecord } from '../../mapping/sourceRecord';

const { xsd, owl, foaf, v, dc, dcterms, gbv, wdrs, cdtype, rdf } = PREFIXES;

/** The fields of a lobid document the mapping reads; the rest are left out (docs/data.md). */
interface LobidDocument {
  readonly isil?: unknown;
  readonly name?: unknown;
  readonly sigel?: unknown;
  readonly classification?: { readonly id?: unknown };
  readonly url?: unknown;
  readonly provides?: unknown;
  readonly email?: unknown;
  readonly telephone?: unknown;
  readonly note?: unknown;
  readonly address?: LobidAddress;
  readonly location?: readonly {
    readonly address?: LobidAddress;
    readonly geo?: { readonly lat?: unknown; readonly lon?: unknown };
    readonly openingHoursSpecification?: {
      readonly description?: unknown;
      readonly comment?: unknown;
    };
  }[];
  readonly mainEntityOfPage?: { readonly dateModified?: unknown };
}

interface LobidAddress {
  readonly streetAddress?: unknown;
  readonly addressLocality?: unknown;
  readonly postalCode?: unknown;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const strings = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((s): s is string => typeof s === 'string');

/** The bulk form's action line, or a document in lobid's context: told from its first line. */
const LOBID_FIRST_LINE =
  /^\s*\{\s*"index"\s*:|"@context"\s*:\s*"https?:\/\/lobid\.org\/organisations\/context\.jsonld"/;

/**
 * Whether `file` is lobid-organisations' JSON lines, by its first line: other JSON Lines (the
 * change log this service writes, say) name no lobid context.
 */
export function sniffLobid(file: string): boolean {
  return LOBID_FIRST_LINE.test(firstLine(file));
}

/** Every document of the lobid bulk file `file`, mapped; a line that is no JSON refuses the file. */
export function* readLobid(
  file: string,
  { baseIri, blankNodePrefix }: { baseIri: string; blankNodePrefix: () => string },
): Generator<SourceRecord | SkippedRecord> {
  for (const [text, origin, n] of numberedLines(file)) {
    const line = text.trim();
    if (line === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      throw new LoadError(file, n, 1, `not a JSON line: ${(error as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      yield malformed(origin, undefined, 'not a JSON-LD document (an object)');
    // The bulk form's action line names the document that follows: nothing to map.
    else if (!('index' in parsed && Object.keys(parsed).length === 1))
      yield lobidRecord(parsed as LobidDocument, baseIri, origin, blankNodePrefix());
  }
}

/** One lobid document as a published institution, or why it is left out. */
function lobidRecord(
  doc: LobidDocument,
  baseIri: string,
  origin: string,
  blankNodePrefix: string,
): SourceRecord | SkippedRecord {
  const isil = text(str(doc.isil));
  if (!isil) return malformed(origin, undefined, 'no ISIL (its "isil" field)');
  if (!IRI_SAFE_ISIL.test(isil))
    return malformed(origin, isil, `the ISIL "${isil}" cannot stand in an IRI`);
  const R = `<${baseIri}/resource/organisations/${isil}>`;
  const D = `<${baseIri}/data/organisations/${isil}>`;
  const out = new Triples(blankNodePrefix);
  out.add(R, RDF_TYPE, `<${foaf}Organization>`);
  out.literal(R, `${foaf}name`, str(doc.name));
  out.literal(R, `${dc}identifier`, `(ISIL)${isil}`);
  const sigel = text(str(doc.sigel));
  if (sigel && sigel !== isil) out.literal(R, `${dc}identifier`, `(Sigel)${sigel}`);
  const type = str(doc.classification?.id);
  if (type?.startsWith(`${LIBTYPE}n`)) out.add(R, `${dcterms}type`, iri(type));
  out.add(R, `${owl}sameAs`, `<http://lobid.org/organisation/${isil}>`);
  out.add(R, `${foaf}homepage`, iri(str(doc.url)));
  const opac = iri(str(doc.provides));
  if (opac) {
    const catalogue = out.blank();
    out.add(R, `${gbv}opac`, catalogue);
    out.add(catalogue, RDF_TYPE, `<${cdtype}CatalogueOrIndex>`);
    out.add(catalogue, `${foaf}homepage`, opac);
  }
  places(doc, R, out);
  const phone = text(str(doc.telephone));
  if (phone) {
    const tel = out.blank();
    out.add(R, `${v}tel`, tel);
    out.add(tel, RDF_TYPE, `<${v}Voice>`);
    out.add(tel, RDF_TYPE, `<${v}Pref>`);
    // lobid writes the country code as dialled (`0049 30 …`), the model as `+49 30 …`.
    out.literal(tel, `${rdf}value`, phone.replace(/^00(?=\d)/, '+'));
  }
  const email = str(doc.email)?.trim();
  if (email) out.add(R, `${v}email`, iri(email.startsWith('mailto:') ? email : `mailto:${email}`));
  for (const note of strings(doc.note)) out.literal(R, `${dc}description`, note);
  out.add(R, `${wdrs}describedby`, D);
  out.add(D, `${dcterms}license`, `<${CC0}>`);
  const modified = modifiedOf(doc);
  if (modified) out.add(D, `${dcterms}modified`, `"${modified.lexical}"^^<${xsd}dateTime>`);
  return {
    isil,
    status: 'published',
    modified: modified?.date,
    ntriples: out.toString(),
    origin,
  };
}

/** The main place (its address, coordinates and opening hours), and the postal address. */
function places(doc: LobidDocument, R: string, out: Triples): void {
  const main = Array.isArray(doc.location) ? doc.location[0] : undefined;
  if (main?.address) {
    const adr = out.blank();
    out.add(R, `${v}adr`, adr);
    out.add(adr, RDF_TYPE, `<${v}Address>`);
    out.add(adr, RDF_TYPE, `<${v}Pref>`);
    out.literal(adr, `${v}street-address`, str(main.address.streetAddress));
    out.literal(adr, `${v}locality`, str(main.address.addressLocality));
    out.literal(adr, `${v}postal-code`, str(main.address.postalCode));
  }
  out.position(R, str(main?.geo?.lat), str(main?.geo?.lon));
  // lobid's `description` is the agency's opening hours, its `comment` the note on them.
  out.openingHours(
    R,
    str(main?.openingHoursSpecification?.description),
    str(main?.openingHoursSpecification?.comment),
  );
  if (doc.address) {
    const adr = out.blank();
    out.add(R, `${v}adr`, adr);
    for (const kind of ['Address', 'Postal', 'Parcel']) out.add(adr, RDF_TYPE, `<${v}${kind}>`);
    out.literal(adr, `${v}locality`, str(doc.address.addressLocality));
    out.literal(adr, `${v}postal-code`, str(doc.address.postalCode));
  }
}

/**
 * The record's last change: lobid's `dateModified`, the agency's `dd-mm-yy` (two-digit years
 * 69–99 are 19xx, as for PICA+), at midnight UTC, since lobid keeps no time of day.
 */
function modifiedOf(doc: LobidDocument): { lexical: string; date: Date } | undefined {
  return agencyTime(str(doc.mainEntityOfPage?.dateModified) ?? '');
}
