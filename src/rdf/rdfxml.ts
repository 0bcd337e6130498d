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
/** XML Namespaces §3: a local name (ASCII subset; other IRIs get a prefix of their own). */
const NCNAME = /^[A-Za-z_][A-Za-z0-9._-]*$/;

function escape(text: string, attribute: boolean): string {
  if (!XML_CHAR.test(text))
    throw new SerializationError('a literal holds a character XML 1.0 cannot carry');
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
    const match = /^(.*[#/])([A-Za-z_][A-Za-z0-9._-]*)$/.exec(iri);
    if (!match) throw new SerializationError(`the predicate <${iri}> has no XML local name`);
    const ns = match[1]!;
    let prefix = [...this.declared].find(([, value]) => value === ns)?.[0];
    if (!prefix) {
      prefix = `ns${++this.extra}`;
      this.declared.set(prefix, ns);
    }
    return `${prefix}:${match[2]}`;
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
