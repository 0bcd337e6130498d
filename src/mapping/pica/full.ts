// The `full` profile's triples of one PICA+ record: what the agency's record holds beyond the
// `zdb` model (docs/data-model.md, "The full profile"), written into the description with its
// other triples. Each uses a term the `zdb` model does not, or sits on a blank node that carries
// or is reached through one, so that queries/describe.rq can leave them out again.
import { isilDefect } from '../../rdf/isil';
import { PREFIXES, RDF_TYPE } from '../../rdf/namespaces';
import { conceptIri, TERMS, type CodeScheme } from '../../rdf/profiles';
import { iri, text, Triples } from '../recordTriples';
import { fields, successorOf, value, values } from './convert';
import { parseOpeningHours } from './openingHours';
import type { PicaField, PicaRecord } from './read';

const { xsd, dcterms, schema } = PREFIXES;

/**
 * 008H: the identifiers the record holds beside the ISIL and the Sigel, by the scheme they are in;
 * as `schema:identifier`, since the `zdb` model's `dc:identifier` holds those two only.
 */
const IDENTIFIERS: readonly (readonly [string, string])[] = [
  ['a', 'ISIL-Agentur'],
  ['b', 'DBS'],
  ['c', 'DBIS'],
  ['f', 'EZB'],
  ['g', 'OCLC-Registry'],
  ['i', 'OCLC'],
];

/** 009Q $x: the kinds of service endpoint a web link names, and the term each is published with. */
const ENDPOINTS: Record<string, string> = {
  sru: 'sruEndpoint',
  openurl: 'openUrlResolver',
  paia: 'paiaEndpoint',
  daia: 'daiaEndpoint',
};

/** 035I: what each subfield names the institution a member of. */
const NETWORKS: Record<string, string> = {
  a: 'interlibrary-loan-region',
  b: 'interlibrary-loan-system',
  c: 'library-network',
  d: 'other-network',
};

export interface FullOptions {
  readonly baseIri: string;
  readonly blankNodePrefix: string;
}

/** The record's `full` triples alone, as N-Triples (for the mapping's tests). */
export function fullTriples(record: PicaRecord, isil: string, options: FullOptions): string {
  const out = new Triples(options.blankNodePrefix);
  writeFull(record, isil, `<${options.baseIri}/resource/organisations/${isil}>`, out, options);
  return out.toString();
}

/** Adds the record's `full` triples about the institution `R` to `out`. */
export function writeFull(
  record: PicaRecord,
  isil: string,
  R: string,
  out: Triples,
  options: Pick<FullOptions, 'baseIri'>,
): void {
  const institution = (other: string) =>
    isilDefect(other) === undefined
      ? `<${options.baseIri}/resource/organisations/${other}>`
      : undefined;
  identifiers(record, R, out);
  for (const name of fields(record, '029@').filter((f) => value(f, '4') !== 'c'))
    out.literal(R, `${schema}alternateName`, value(name, 'a'));
  parent(record, R, out, institution);
  lineage(record, isil, R, out, institution);
  endpoints(record, R, out);
  place(record, R, out);
  agencyCodes(record, R, out, options.baseIri);
  networks(record, R, out);
  interlibraryLoan(record, R, out, institution);
  for (const subject of fields(record, '035G').flatMap((f) => values(f, 'a')))
    out.literal(R, `${TERMS}collectionSubject`, subject);
  for (const collection of fields(record, '035H').flatMap((f) => values(f, 'a')))
    out.literal(R, `${TERMS}specialCollection`, collection);
}

function identifiers(record: PicaRecord, R: string, out: Triples): void {
  const field = fields(record, '008H')[0];
  if (!field) return;
  for (const [code, scheme] of IDENTIFIERS) {
    const id = text(value(field, code));
    if (id) out.literal(R, `${schema}identifier`, `(${scheme})${id}`);
  }
}

/** 029R: the parent institution, by its ISIL where the field names one, else by its name. */
function parent(
  record: PicaRecord,
  R: string,
  out: Triples,
  institution: (isil: string) => string | undefined,
): void {
  for (const field of fields(record, '029R')) {
    const named = [value(field, '9'), value(field, 'e'), value(field, 'x')]
      .map((v) => text(v))
      .find((v) => v !== undefined && institution(v) !== undefined);
    if (named) {
      out.add(R, `${schema}parentOrganization`, institution(named));
      continue;
    }
    const name = text(value(field, 'a'));
    if (!name) continue;
    namedOrganization(out, R, `${schema}parentOrganization`, name);
  }
}

/** An organisation known by its name alone: a blank schema:Organization that `predicate` links. */
function namedOrganization(out: Triples, R: string, predicate: string, name: string): string {
  const node = out.blank();
  out.add(R, predicate, node);
  out.add(node, RDF_TYPE, `<${schema}Organization>`);
  out.literal(node, `${schema}name`, name);
  return node;
}

/** 035D: earlier Sigel and codes, and the ISILs of predecessors; 047A: the successor a note names. */
function lineage(
  record: PicaRecord,
  isil: string,
  R: string,
  out: Triples,
  institution: (isil: string) => string | undefined,
): void {
  for (const field of fields(record, '035D')) {
    const sigel = text(value(field, 'a'));
    if (sigel) out.literal(R, `${TERMS}formerSigel`, sigel);
    const other = text(value(field, 'b'));
    if (other && institution(other)) out.add(R, `${dcterms}replaces`, institution(other));
    else out.literal(R, `${TERMS}formerIdentifier`, other);
  }
  const successor = successorOf(record, isil);
  if (successor) out.add(R, `${dcterms}isReplacedBy`, institution(successor));
}

/** 009Q with $z W and a $x naming a protocol: the endpoint by its kind. */
function endpoints(record: PicaRecord, R: string, out: Triples): void {
  for (const link of fields(record, '009Q')) {
    const kind = ENDPOINTS[(text(value(link, 'x')) ?? '').toLowerCase()];
    const url = iri(value(link, 'u'));
    if (kind && url && value(link, 'z') === 'W') out.add(R, `${TERMS}${kind}`, url);
  }
}

/** 032P of the main address: country, region, municipality key, and the hours read. */
function place(record: PicaRecord, R: string, out: Triples): void {
  const main = fields(record, '032P').find((f) => value(f, '2') === 'S' && value(f, 'p') !== 'n');
  if (!main) return;
  const country = text(value(main, 'd'));
  const region = text(value(main, 'f'));
  const municipality = text(value(main, 'n'));
  if (country || region || municipality) {
    const address = out.blank();
    out.add(R, `${schema}address`, address);
    out.add(address, RDF_TYPE, `<${schema}PostalAddress>`);
    out.literal(address, `${schema}streetAddress`, value(main, 'a'));
    out.literal(address, `${schema}postalCode`, value(main, 'e'));
    out.literal(address, `${schema}addressLocality`, value(main, 'b'));
    out.literal(address, `${schema}addressRegion`, region);
    out.literal(address, `${schema}addressCountry`, country);
    out.literal(address, `${TERMS}municipalityKey`, municipality);
  }
  hours(main, R, out);
}

/** 032P $i: the text kept, and read into one specification a rule, or marked as unread. */
function hours(main: PicaField, R: string, out: Triples): void {
  const written = text(value(main, 'i'));
  if (!written) return;
  out.literal(R, `${TERMS}openingHoursText`, written);
  const rules = parseOpeningHours(written);
  if (!rules) {
    out.add(R, `${TERMS}openingHoursUnparsed`, `"true"^^<${xsd}boolean>`);
    return;
  }
  for (const rule of rules) {
    const spec = out.blank();
    out.add(R, `${schema}openingHoursSpecification`, spec);
    out.add(spec, RDF_TYPE, `<${schema}OpeningHoursSpecification>`);
    for (const day of rule.days) out.add(spec, `${schema}dayOfWeek`, `<${schema}${day}>`);
    out.add(spec, `${schema}opens`, `"${rule.opens}"^^<${xsd}time>`);
    out.add(spec, `${schema}closes`, `"${rule.closes}"^^<${xsd}time>`);
  }
}

/** 035E: status, type, funder and stock size as the code lists' concepts; the other codes as text. */
function agencyCodes(record: PicaRecord, R: string, out: Triples, baseIri: string): void {
  const field = fields(record, '035E')[0];
  if (!field) return;
  const codes: readonly (readonly [string, string, CodeScheme])[] = [
    ['a', 'status', 'status'],
    ['f', 'institutionType', 'institution-types'],
    ['g', 'funder', 'funders'],
    ['h', 'stockSize', 'stock-sizes'],
  ];
  for (const [code, term, scheme] of codes) {
    const found = text(value(field, code));
    if (found && /^[A-Za-z0-9]{1,3}$/.test(found))
      out.add(R, `${TERMS}${term}`, `<${conceptIri(baseIri, scheme, found)}>`);
  }
  out.literal(R, `${TERMS}sector`, value(field, 'b'));
  out.literal(R, `${TERMS}libraryNumber`, value(field, 'c'));
  for (const network of [...values(field, 'd'), ...values(field, 'e')])
    out.literal(R, `${TERMS}cataloguingNetwork`, network);
  out.literal(R, `${TERMS}holdingsLicence`, value(field, 'l'));
}

/** 035I: the networks and interlibrary-loan systems the institution takes part in. */
function networks(record: PicaRecord, R: string, out: Triples): void {
  for (const field of fields(record, '035I'))
    for (const { code, value: name } of field.subfields) {
      const kind = NETWORKS[code];
      if (!kind || !text(name)) continue;
      const node = namedOrganization(out, R, `${schema}memberOf`, name);
      out.literal(node, `${TERMS}networkKind`, kind);
    }
}

/** 035O: the interlibrary-loan centre; 035L: the interlibrary loan's e-mail addresses by kind. */
function interlibraryLoan(
  record: PicaRecord,
  R: string,
  out: Triples,
  institution: (isil: string) => string | undefined,
): void {
  for (const field of fields(record, '035O')) {
    const centre = text(value(field, 'a'));
    const isil = centre && /(?:^|\s)([A-Z]{2}-[A-Za-z0-9/:-]+)$/.exec(centre)?.[1];
    out.literal(R, `${TERMS}interlibraryLoanCentreName`, centre);
    if (isil && institution(isil)) out.add(R, `${TERMS}interlibraryLoanCentre`, institution(isil));
    out.literal(R, `${TERMS}interlibraryLoanSystem`, value(field, 'b'));
  }
  // A contact point as the `zdb` model's 035B ones, told apart from them by its kind, a term of
  // this service: the `zdb` projection leaves out a blank node carrying one.
  for (const field of fields(record, '035L')) {
    const email = text(value(field, 'd'));
    if (!email) continue;
    const point = out.blank();
    out.add(R, `${schema}contactPoint`, point);
    out.add(point, RDF_TYPE, `<${schema}ContactPoint>`);
    out.literal(point, `${schema}contactType`, 'interlibrary loan');
    out.literal(point, `${TERMS}interlibraryLoanKind`, text(value(field, 'a')) ?? '?');
    out.literal(point, `${schema}email`, email);
  }
}
