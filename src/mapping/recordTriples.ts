// N-Triples of one record as the record converters write it (PICA+, lobid's JSON-LD lines): the
// published model's literals (NFC, white space collapsed, typed xsd:string), IRIs made safe from
// the sources' free text, and blank-node labels under the record's own prefix.
import { PREFIXES, RDF_TYPE, XSD_STRING } from '../rdf/namespaces';

/** An ISIL that can stand in an IRI path as it is (its syntax is the loader's to check). */
export const IRI_SAFE_ISIL = /^[^\s<>"{}|\\^`?#%\x00-\x1f\x7f]+$/u;

/** Printable ASCII words single-spaced: already NFC and collapsed, the common case, kept as is. */
const PLAIN_TEXT = /^[!-~]+(?: [!-~]+)*$/;

/** Literal text as published: NFC, white-space runs collapsed to one space (docs/data-model.md, quirks). */
export function text(raw: string | undefined): string | undefined {
  if (raw === undefined || PLAIN_TEXT.test(raw)) return raw || undefined;
  const cleaned = raw.normalize('NFC').replace(/\s+/gu, ' ').trim();
  return cleaned || undefined;
}

/**
 * What an IRI may hold as it is (RFC 3987 §2.2): unreserved and reserved ASCII, `%` before two
 * hex digits, and the `ucschar` of the Basic Multilingual Plane. Everything else is percent-encoded
 * as UTF-8, which is always allowed; `[` and `]` too, since they may stand only around an IPv6 host.
 */
const NOT_IRI =
  /%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~:/?#@!$&'()*+,;=%\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF]/gu;

/**
 * An absolute IRI as N-Triples writes it, or undefined. The source's URLs are free text: a URL
 * without a scheme that starts `www.` gets `http://` (as lobid-organisations does), what an IRI may
 * not hold is percent-encoded (a `#` after the first too: a fragment holds none), and what still
 * does not parse as a URL is left out rather than break the load. IRIs are NFC (RFC 3987
 * §5.3.2.2), since the source is NFD.
 */
export function iri(raw: string | undefined): string | undefined {
  let candidate = raw?.normalize('NFC').trim();
  if (!candidate) return undefined;
  if (/^www\./i.test(candidate)) candidate = `http://${candidate}`;
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(candidate)) return undefined;
  const encode = (c: string) =>
    [...Buffer.from(c, 'utf8')]
      .map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`)
      .join('');
  candidate = candidate.replace(NOT_IRI, encode);
  const hash = candidate.indexOf('#');
  if (hash !== -1)
    candidate = candidate.slice(0, hash + 1) + candidate.slice(hash + 1).replaceAll('#', '%23');
  return URL.canParse(candidate) ? `<${candidate}>` : undefined;
}

/** N-Triples of one record: subjects and objects already written as terms. */
export class Triples {
  private readonly lines: string[] = [];
  private blanks = 0;

  constructor(private readonly prefix: string) {}

  blank(): string {
    return `_:${this.prefix}${this.blanks++}`;
  }

  add(subject: string, predicate: string, object: string | undefined): void {
    if (object !== undefined) this.lines.push(`${subject} <${predicate}> ${object} .\n`);
  }

  /** A literal typed xsd:string, as the original types all of its literals; none when empty. */
  literal(subject: string, predicate: string, raw: string | undefined): void {
    const cleaned = text(raw);
    if (cleaned !== undefined)
      this.add(subject, predicate, `"${escape(cleaned)}"^^<${XSD_STRING}>`);
  }

  /** The institution's position, a wgs84 SpatialThing, when both coordinates are given. */
  position(institution: string, lat: string | undefined, long: string | undefined): void {
    const [la, lo] = [text(lat), text(long)];
    if (!la || !lo) return;
    const { geo, wgs84 } = PREFIXES;
    const place = this.blank();
    this.add(institution, `${geo}location`, place);
    this.add(place, RDF_TYPE, `<${wgs84}SpatialThing>`);
    this.literal(place, `${geo}lat`, la);
    this.literal(place, `${geo}long`, lo);
  }

  /** The opening hours as the agency writes them (free text) and the note on them, if either. */
  openingHours(institution: string, hours: string | undefined, note: string | undefined): void {
    const [h, n] = [text(hours), text(note)];
    if (!h && !n) return;
    const { rdfs, schema } = PREFIXES;
    const spec = this.blank();
    this.add(institution, `${schema}openingHoursSpecification`, spec);
    this.add(spec, RDF_TYPE, `<${schema}OpeningHoursSpecification>`);
    this.literal(spec, `${rdfs}comment`, h);
    this.literal(spec, `${schema}description`, n);
  }

  toString(): string {
    return this.lines.join('');
  }
}

/**
 * The agency's time of a change, `dd-mm-yy` and `hh:mm:ss[.sss]`, as the original writes it:
 * `YYYY-MM-DDTHH:MM:SS.sss` without a time zone. Two-digit years 69–99 are 19xx, 00–68 20xx (the
 * POSIX `strptime` %y rule). The instant is taken as UTC, the same for every record, so that
 * records compare by it; a day or time that does not exist (31-02-21, 25:00) is none.
 */
export function agencyTime(
  day: string,
  time = '00:00:00',
): { lexical: string; date: Date } | undefined {
  const d = /^(\d{2})-(\d{2})-(\d{2})$/.exec(day);
  const t = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/.exec(time);
  if (!d || !t) return undefined;
  const century = Number(d[3]) >= 69 ? 19 : 20;
  const lexical = `${century}${d[3]}-${d[2]}-${d[1]}T${t[1]}:${t[2]}:${t[3]}.${(t[4] ?? '0').padEnd(3, '0')}`;
  const date = new Date(`${lexical}Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString() === `${lexical}Z`
    ? { lexical, date }
    : undefined;
}

/** N-Triples string escapes (RDF 1.1 N-Triples §2.4): quote, backslash, and controls as UCHAR. */
function escape(value: string): string {
  return value.replace(/["\\\x00-\x1f\x7f]/g, (c) =>
    c === '"' || c === '\\'
      ? `\\${c}`
      : `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
  );
}
