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
/**
 * The longest NCName an IRI ends with: the first place from which the rest is one. `…/ns/123start`
 * splits into `…/ns/123` and `start` (an XML name cannot start with a digit).
 */
const LOCAL_NAME = new RegExp(`[${NAME_START}][${NAME}]*$`, 'u');

/**
 * The two tests `predicateDefect` and `literalDefect` make, as regular-expression sources (flag
 * `u`), for code that cannot import this module: the loader's validation workers.
 */
export const RDF_XML_TESTS = { localName: LOCAL_NAME.source, xmlText: XML_CHAR.source } as const;

/**
 * Why a predicate IRI cannot be written in RDF/XML, where a property element's name is a prefix
 * and an NCName that together spell the IRI (RDF 1.1 XML Syntax §2.2), or `undefined`: an IRI that
 * ends with no name character (`…/ns/`, `…#`, `…/123`) cannot be.
 */
export function predicateDefect(iri: string): string | undefined {
  return LOCAL_NAME.test(iri) ? undefined : `the predicate <${iri}> has no XML local name`;
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
    for (const [prefix, ns] of Object.entries(PREFIXES)) {
      if (iri.startsWith(ns) && NCNAME.test(iri.slice(ns.length))) {
        this.declared.set(prefix, ns);
        return `${prefix}:${iri.slice(ns.length)}`;
      }
    }
    const match = LOCAL_NAME.exec(iri);
    if (!match) throw new SerializationError(predicateDefect(iri)!);
    const ns = iri.slice(0, match.index);
    const local = match[0];
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
