// RDF/XML (RDF 1.1 XML Syntax) with the model's prefixes: one rdf:Description per subject, blank
// nodes referenced once nested in place, as the original service wrote them.
import type { Literal } from 'n3';
import { isBlank, layout, type Description } from './description';
import { decodeTerm, type Triple } from './ntriples';
import { PREFIXES, XSD_STRING } from './namespaces';

export class SerializationError extends Error {
  override name = 'SerializationError';
}

/** XML 1.0 §2.2: characters a document may contain. */
const XML_CHAR = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;
/** XML 1.0 (fifth edition) §2.3 NameStartChar, without the colon (XML Namespaces §3, NCName). */
const NAME_START =
  'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C\\u200D' +
  '\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
/** NameChar: NameStartChar and the characters a name may hold after its first. */
const NAME = `${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F\\u2040`;
const NCNAME = new RegExp(`^[${NAME_START}][${NAME}]*$`, 'u');
const NAME_START_CHAR = new RegExp(`^[${NAME_START}]$`, 'u');
const NAME_CHAR = new RegExp(`^[${NAME}]$`, 'u');

/**
 * RDF names that RDF/XML does not take as a property element (RDF 1.1 XML Syntax §7.2.5: the core
 * syntax terms, rdf:Description and the old terms), and rdf:li, which a parser reads back as
 * rdf:_1, rdf:_2… (§7.4): a triple with one of these predicates cannot be written.
 */
const NOT_PROPERTY_ELEMENTS: ReadonlySet<string> = new Set(
  [
    ...['RDF', 'ID', 'about', 'parseType', 'resource', 'nodeID', 'datatype', 'Description'],
    ...['li', 'aboutEach', 'aboutEachPrefix', 'bagID'],
  ].map((name) => `${PREFIXES.rdf}${name}`),
);

/**
 * Where the longest NCName `iri` ends with starts: at the first name-start character of the run of
 * name characters at its end (`…/ns/123start` splits before `start`: a name cannot start with a
 * digit), or -1. One pass from the end, a code point at a time: a regular expression anchored at
 * the end would try every start in a long run of name characters, in quadratic time.
 */
export function localNameStart(iri: string): number {
  let start = -1;
  for (let end = iri.length; end > 0;) {
    const low = iri.charCodeAt(end - 1);
    const pair =
      end > 1 && (low & 0xfc00) === 0xdc00 && (iri.charCodeAt(end - 2) & 0xfc00) === 0xd800;
    const from = pair ? end - 2 : end - 1;
    const char = iri.slice(from, end);
    if (!NAME_CHAR.test(char)) break;
    if (NAME_START_CHAR.test(char)) start = from;
    end = from;
  }
  return start;
}

/** `predicateDefect`'s answers ('' for none): a dataset has few predicates, and every triple asks. */
const predicateDefects = new Map<string, string>();
/** A bound on those, against data with a predicate per triple. */
const MAX_PREDICATES_KNOWN = 4096;

/**
 * Why a predicate IRI cannot be written in RDF/XML, where a property element's name is a prefix
 * and an NCName that together spell the IRI (RDF 1.1 XML Syntax §2.2), or `undefined`: an IRI that
 * ends with no name character (`…/ns/`, `…#`, `…/123`) cannot be, nor an RDF syntax name.
 */
export function predicateDefect(iri: string): string | undefined {
  let defect = predicateDefects.get(iri);
  if (defect === undefined) {
    defect = NOT_PROPERTY_ELEMENTS.has(iri)
      ? `the predicate <${iri}> is an RDF/XML syntax name, not a property element`
      : localNameStart(iri) < 0
        ? `the predicate <${iri}> has no XML local name`
        : '';
    if (predicateDefects.size >= MAX_PREDICATES_KNOWN) predicateDefects.clear();
    predicateDefects.set(iri, defect);
  }
  return defect === '' ? undefined : defect;
}

/** Why a literal cannot be written in XML 1.0 (§2.2: no character reference reaches U+0001), or `undefined`. */
export function literalDefect(value: string): string | undefined {
  return XML_CHAR.test(value) ? undefined : 'a literal holds a character XML 1.0 cannot carry';
}

function escape(text: string, attribute: boolean): string {
  const defect = literalDefect(text);
  if (defect !== undefined) throw new SerializationError(defect);
  let out = text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r/g, '&#13;');
  if (attribute) out = out.replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
  return out;
}

/** Splits predicate IRIs into a declared prefix and a local name. */
class Namespaces {
  private readonly declared = new Map<string, string>([['rdf', PREFIXES.rdf]]);
  private extra = 0;

  qname(iri: string): string {
    const defect = predicateDefect(iri);
    if (defect !== undefined) throw new SerializationError(defect);
    for (const [prefix, ns] of Object.entries(PREFIXES)) {
      if (iri.startsWith(ns) && NCNAME.test(iri.slice(ns.length))) {
        this.declared.set(prefix, ns);
        return `${prefix}:${iri.slice(ns.length)}`;
      }
    }
    const at = localNameStart(iri);
    const ns = iri.slice(0, at);
    const local = iri.slice(at);
    let prefix = [...this.declared].find(([, value]) => value === ns)?.[0];
    if (!prefix) {
      prefix = `ns${++this.extra}`;
      this.declared.set(prefix, ns);
    }
    return `${prefix}:${local}`;
  }

  attributes(): string {
    return [...this.declared]
      .map(([prefix, ns]) => ` xmlns:${prefix}="${escape(ns, true)}"`)
      .join('');
  }
}

export function toRdfXml(description: Description): string {
  const { bySubject, inline } = layout(description);
  const ns = new Namespaces();
  const iri = (term: string): string => decodeTerm(term).value;

  const node = (subject: string, indent: string, nestedHere: boolean): string => {
    const about = !isBlank(subject)
      ? ` rdf:about="${escape(iri(subject), true)}"`
      : nestedHere
        ? ''
        : ` rdf:nodeID="${subject.slice(2)}"`;
    const list = bySubject.get(subject) ?? [];
    const lines = list.map((t) => property(t, `${indent}  `));
    return `${indent}<rdf:Description${about}>\n${lines.join('')}${indent}</rdf:Description>\n`;
  };

  const property = (t: Triple, indent: string): string => {
    const name = ns.qname(iri(t.p));
    const o = t.o;
    if (o.charCodeAt(0) === 60)
      return `${indent}<${name} rdf:resource="${escape(iri(o), true)}"/>\n`;
    if (o.charCodeAt(0) === 34) {
      const literal = decodeTerm(o) as Literal;
      const attr = literal.language
        ? ` xml:lang="${escape(literal.language, true)}"`
        : literal.datatype.value === XSD_STRING
          ? ''
          : ` rdf:datatype="${escape(literal.datatype.value, true)}"`;
      return `${indent}<${name}${attr}>${escape(literal.value, false)}</${name}>\n`;
    }
    if (inline.has(o)) {
      return `${indent}<${name}>\n${node(o, `${indent}  `, true)}${indent}</${name}>\n`;
    }
    return `${indent}<${name} rdf:nodeID="${o.slice(2)}"/>\n`;
  };

  const body: string[] = [];
  for (const subject of bySubject.keys()) {
    if (isBlank(subject) && inline.has(subject)) continue;
    body.push(node(subject, '  ', false));
  }
  // The namespaces are known only once the body is written.
  return `<?xml version="1.0" encoding="UTF-8"?>\n<rdf:RDF${ns.attributes()}>\n${body.join('')}</rdf:RDF>\n`;
}
