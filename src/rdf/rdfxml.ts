// RDF/XML (RDF 1.1 XML Syntax) with the model's prefixes: one rdf:Description per subject, blank
// nodes referenced once nested in place, as the original service wrote them.
import type { Quad, Term } from 'n3';
import { layout, subjectKey, type Description } from './description';
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
  const { bySubject, inline } = layout(description.quads);
  const ns = new Namespaces();

  const node = (subject: Term, indent: string, nestedHere: boolean): string => {
    const about =
      subject.termType === 'NamedNode'
        ? ` rdf:about="${escape(subject.value, true)}"`
        : nestedHere
          ? ''
          : ` rdf:nodeID="${subject.value}"`;
    const list = bySubject.get(subjectKey(subject)) ?? [];
    const lines = list.map((q) => property(q, `${indent}  `));
    return `${indent}<rdf:Description${about}>\n${lines.join('')}${indent}</rdf:Description>\n`;
  };

  const property = (q: Quad, indent: string): string => {
    const name = ns.qname(q.predicate.value);
    const o = q.object;
    if (o.termType === 'NamedNode')
      return `${indent}<${name} rdf:resource="${escape(o.value, true)}"/>\n`;
    if (o.termType === 'Literal') {
      const attr = o.language
        ? ` xml:lang="${escape(o.language, true)}"`
        : o.datatype.value === XSD_STRING
          ? ''
          : ` rdf:datatype="${escape(o.datatype.value, true)}"`;
      return `${indent}<${name}${attr}>${escape(o.value, false)}</${name}>\n`;
    }
    if (o.termType === 'BlankNode' && inline.has(o.value)) {
      return `${indent}<${name}>\n${node(o, `${indent}  `, true)}${indent}</${name}>\n`;
    }
    return `${indent}<${name} rdf:nodeID="${o.value}"/>\n`;
  };

  const body: string[] = [];
  for (const list of bySubject.values()) {
    const subject = list[0]!.subject;
    if (subject.termType === 'BlankNode' && inline.has(subject.value)) continue;
    body.push(node(subject, '  ', false));
  }
  // The namespaces are known only once the body is written.
  return `<?xml version="1.0" encoding="UTF-8"?>\n<rdf:RDF${ns.attributes()}>\n${body.join('')}</rdf:RDF>\n`;
}
