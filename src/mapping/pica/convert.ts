// Converts one PICA+ record of the ISIL agency to the published FOAF/vCard model (docs/data-model.md),
// as N-Triples, with the quirks of the original service fixed as the model's table decides.
import { LIBTYPE } from '../../rdf/libtype';
import { isilDefect } from '../../rdf/isil';
import { CC0, PREFIXES, RDF_TYPE } from '../../rdf/namespaces';
import { agencyTime, IRI_SAFE_ISIL, iri, text, Triples } from '../recordTriples';
import { codeWarnings } from './codeCheck';
import type { SkippedRecord, SourceRecord } from '../sourceRecord';
import type { PicaField, PicaRecord } from './read';
import { writeFull } from './full';

const { rdf, xsd, owl, foaf, v, dbp, dc, dcterms, schema, gbv, wdrs, cdtype } = PREFIXES;

export interface ConvertOptions {
  /** Base of every minted IRI, without a trailing slash (`https://ld.zdb-services.de`). */
  readonly baseIri: string;
  /** Where the record comes from, for the load report (`file, line 3`). */
  readonly origin: string;
  /** Start of every blank-node label of this record; the caller keeps records apart with it. */
  readonly blankNodePrefix: string;
}

/**
 * The record as a published or withdrawn institution, or why it is left out: status N by rule
 * (docs/data-model.md, "Status codes"), no ISIL or an unknown status as malformed.
 */
export function convertRecord(
  record: PicaRecord,
  options: ConvertOptions,
): SourceRecord | SkippedRecord {
  const skip = (kind: SkippedRecord['kind'], reason: string, id = record.id): SkippedRecord => ({
    origin: options.origin,
    id,
    reason,
    kind,
  });
  const isil = text(value(record, '008H', 'e')) ?? '';
  if (!isil) return skip('malformed', 'no ISIL (008H $e)');
  const R = IRI_SAFE_ISIL.test(isil)
    ? iri(`${options.baseIri}/resource/organisations/${isil}`)
    : undefined;
  const D = R && iri(`${options.baseIri}/data/organisations/${isil}`);
  if (!R || !D) return skip('malformed', `the ISIL "${isil}" cannot stand in an IRI`, isil);
  const status = value(record, '035E', 'a')?.trim();
  if (status === 'N')
    return skip('not-published', 'status N (a location without address) is not published', isil);
  if (status !== 'H' && status !== 'P' && status !== 'I')
    return skip(
      'malformed',
      status ? `unknown record status "${status}" (035E $a)` : 'no record status (035E $a)',
      isil,
    );

  const modified = modifiedOf(record);
  const out = new Triples(options.blankNodePrefix);

  out.add(R, RDF_TYPE, `<${foaf}Organization>`);
  out.literal(R, `${foaf}name`, value(record, '029A', 'a'));
  out.literal(R, `${dc}identifier`, `(ISIL)${isil}`);
  // The Sigel (008H $d), the agency's older identifier, written as the ISIL is; not
  // where it is the ISIL itself (product records, ZDB-…), nor on a withdrawn entry.
  const sigel = text(value(record, '008H', 'd'));
  if (status !== 'I' && sigel && sigel !== isil)
    out.literal(R, `${dc}identifier`, `(Sigel)${sigel}`);
  // The institution's type (035E $f), a code of the agency's list, as the term of lobid's
  // vocabulary of library types that names it: `dcterms:type libtype:n60`.
  const type = text(value(record, '035E', 'f'));
  if (status !== 'I' && type && /^\d{1,3}$/.test(type))
    out.add(R, `${dcterms}type`, iri(`${LIBTYPE}n${type}`));
  let successor: string | undefined;
  if (status === 'I') {
    // A withdrawn ISIL keeps the minimal description a client needs to follow it (decided).
    successor = successorOf(record, isil);
    out.add(R, `${owl}deprecated`, `"true"^^<${xsd}boolean>`);
    if (successor)
      out.add(
        R,
        `${dcterms}isReplacedBy`,
        iri(`${options.baseIri}/resource/organisations/${successor}`),
      );
  } else {
    published(record, isil, R, out);
    // What the `full` profile adds, in the same description: queries/describe.rq leaves it out.
    writeFull(record, isil, R, out, options);
  }
  out.add(R, `${wdrs}describedby`, D);
  out.add(D, `${dcterms}license`, `<${CC0}>`);
  if (modified) out.add(D, `${dcterms}modified`, `"${modified.lexical}"^^<${xsd}dateTime>`);
  const warnings = status === 'I' ? [] : codeWarnings(record, isil);

  return {
    isil,
    status: status === 'I' ? 'withdrawn' : 'published',
    modified: modified?.date,
    ...(successor ? { successor } : {}),
    ntriples: out.toString(),
    origin: options.origin,
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/** Every property of a published institution but its identity and description document. */
function published(record: PicaRecord, isil: string, R: string, out: Triples): void {
  const shortName = fields(record, '029@').find((f) => value(f, '4') === 'c');
  out.literal(R, `${dbp}shortName`, shortName && value(shortName, 'a'));
  out.add(R, `${owl}sameAs`, iri(`http://lobid.org/organisation/${isil}`));

  links(record, R, out);
  addresses(record, R, out);
  contacts(record, R, out);
  for (const description of fields(record, '047A'))
    for (const note of values(description, 'a')) out.literal(R, `${dc}description`, note);
}

/** 009Q: the homepage, the catalogue (OPAC) and other web pages. */
function links(record: PicaRecord, R: string, out: Triples): void {
  let homepage = false;
  for (const link of fields(record, '009Q')) {
    const url = iri(value(link, 'u'));
    if (!url) continue;
    const kind = value(link, 'z');
    if (kind === 'A' && !homepage) {
      homepage = true;
      out.add(R, `${foaf}homepage`, url);
    } else if (kind === 'B') {
      const opac = out.blank();
      out.add(R, `${gbv}opac`, opac);
      out.add(opac, RDF_TYPE, `<${cdtype}CatalogueOrIndex>`);
      out.add(opac, `${foaf}homepage`, url);
    } else if (kind === 'W') {
      out.add(R, `${v}url`, url);
      out.literal(url, `${dc}description`, value(link, 'x'));
    }
  }
}

/** 032P: the main (visiting) address with its coordinates and opening hours, and postal ones. */
function addresses(record: PicaRecord, R: string, out: Triples): void {
  // Addresses whose display flag is `n` are not shown by the agency, so not published (decided).
  const addresses = fields(record, '032P').filter((f) => value(f, 'p') !== 'n');
  const main = addresses.find((f) => value(f, '2') === 'S');
  if (main) {
    const adr = out.blank();
    out.add(R, `${v}adr`, adr);
    out.add(adr, RDF_TYPE, `<${v}Address>`);
    out.add(adr, RDF_TYPE, `<${v}Pref>`);
    out.literal(adr, `${v}street-address`, value(main, 'a'));
    out.literal(adr, `${v}locality`, value(main, 'b'));
    out.literal(adr, `${v}postal-code`, value(main, 'e'));
    out.position(R, value(main, 'l'), value(main, 'k'));
    out.openingHours(R, value(main, 'i'), value(main, 'j'));
  }
  for (const postal of addresses.filter((f) => value(f, '2') === 'P')) {
    const adr = out.blank();
    out.add(R, `${v}adr`, adr);
    for (const type of ['Address', 'Postal', 'Parcel']) out.add(adr, RDF_TYPE, `<${v}${type}>`);
    out.literal(adr, `${v}locality`, value(postal, 'b'));
    out.literal(adr, `${v}postal-code`, value(postal, 'e'));
  }
}

/** 035B: phone and fax numbers, and e-mail addresses. */
function contacts(record: PicaRecord, R: string, out: Triples): void {
  // The main contact first, so that a number it shares with a later contact keeps its v:Pref; each
  // number once (the original repeated earlier contacts' numbers on later nodes: a quirk we fix).
  const contacts = fields(record, '035B').filter((f) => value(f, 'c') !== 'n');
  const ordered = [
    ...contacts.filter((f) => value(f, 'a') === 'S'),
    ...contacts.filter((f) => value(f, 'a') !== 'S'),
  ];
  const numbers = new Set<string>();
  for (const contact of ordered) {
    const isMain = value(contact, 'a') === 'S';
    for (const [kind, codes] of [
      ['Voice', ['d', 'e', 'f']],
      ['Fax', ['g', 'h', 'i']],
    ] as const) {
      const number = phoneNumber(contact, codes);
      if (!number || numbers.has(`${kind} ${number}`)) continue;
      numbers.add(`${kind} ${number}`);
      const tel = out.blank();
      out.add(R, `${v}tel`, tel);
      out.add(tel, RDF_TYPE, `<${v}${kind}>`);
      if (isMain) out.add(tel, RDF_TYPE, `<${v}Pref>`);
      out.literal(tel, `${rdf}value`, number);
    }
    const email = value(contact, 'k')?.trim();
    if (email) out.add(R, `${v}email`, iri(`mailto:${email}`));
    contactPoint(contact, R, out);
  }
}

/**
 * A contact with a function (035B $b, "Gebende Fernleihe", or $l, "Auskunft") is also a
 * schema:ContactPoint: its function as schema:contactType, with its own numbers and e-mail, so a
 * client learns which number is the interlibrary loan's. The vCard triples above stay as they are.
 */
function contactPoint(contact: PicaField, R: string, out: Triples): void {
  const label = text(value(contact, 'b')) ?? text(value(contact, 'l'));
  if (!label) return;
  const point = out.blank();
  out.add(R, `${schema}contactPoint`, point);
  out.add(point, RDF_TYPE, `<${schema}ContactPoint>`);
  out.literal(point, `${schema}contactType`, label);
  const voice = phoneNumber(contact, ['d', 'e', 'f']);
  if (voice) out.literal(point, `${schema}telephone`, voice);
  const fax = phoneNumber(contact, ['g', 'h', 'i']);
  if (fax) out.literal(point, `${schema}faxNumber`, fax);
  const email = value(contact, 'k')?.trim();
  if (email) out.literal(point, `${schema}email`, email);
}

/** `+<country> <area> <number>` from the three subfields of a 035B phone, when it has a number. */
function phoneNumber(
  contact: PicaField,
  [country, area, local]: readonly [string, string, string],
): string | undefined {
  const number = text(value(contact, local));
  if (!number) return undefined;
  const cc = text(value(contact, country));
  return [cc && `+${cc.replace(/^(?:\+|00)/, '')}`, text(value(contact, area)), number]
    .filter(Boolean)
    .join(' ');
}

/**
 * The successor a withdrawn record names. The agency writes it in a note (047A $a), as in
 * "Aufgegangen in DE-11-97" or "Ungültig; aufgegangen in …", which is where lobid-organisations
 * reads it too (its `successor` field, conf/fix-enriched.fix); no structured field holds it.
 */
export function successorOf(record: PicaRecord, isil: string): string | undefined {
  for (const note of fields(record, '047A').flatMap((f) => values(f, 'a'))) {
    const named = /aufgegangen in:?\s+([A-Za-z0-9]{1,4}-[A-Za-z0-9/:-]*[A-Za-z0-9])/iu.exec(
      note.normalize('NFC'),
    )?.[1];
    if (named && named !== isil && isilDefect(named) === undefined) return named;
  }
  return undefined;
}

/** 001B: `$0 <cataloguer>:<dd-mm-yy>` and `$t <hh:mm:ss.sss>`, read by the agency's rule. */
function modifiedOf(record: PicaRecord): { lexical: string; date: Date } | undefined {
  const stamp = value(record, '001B', '0')?.trim() ?? '';
  return agencyTime(stamp.slice(stamp.indexOf(':') + 1), value(record, '001B', 't')?.trim());
}

export function fields(record: PicaRecord, tag: string): PicaField[] {
  return record.fields.filter((f) => f.tag === tag);
}

export function values(field: PicaField, code: string): string[] {
  return field.subfields.filter((s) => s.code === code).map((s) => s.value);
}

/** The first value of `code` in the field, or in the record's first field `tag`. */
export function value(source: PicaField, code: string): string | undefined;
export function value(source: PicaRecord, tag: string, code: string): string | undefined;
export function value(source: PicaField | PicaRecord, a: string, b?: string): string | undefined {
  const field = 'tag' in source ? source : source.fields.find((f) => f.tag === a);
  const code = 'tag' in source ? a : b;
  return field?.subfields.find((s) => s.code === code)?.value;
}
