// Turtle with readable prefixes and nested blank nodes, written directly (it runs on every
// uncached request), and N-Triples through N3.js's Writer.
import { Writer, type Quad, type Term } from 'n3';
import { layout, type Description } from './description';
import { PREFIXES, RDF_TYPE, XSD_STRING } from './namespaces';

/** Every model namespace ends in `#` or `/`: the prefix of an IRI is found by one lookup. */
const PREFIX_OF = new Map<string, string>(
  Object.entries(PREFIXES).map(([prefix, ns]) => [ns, prefix]),
);
/** A conservative PN_LOCAL (Turtle §6.5): names that need no escaping and cannot end in a dot. */
const LOCAL = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `prefix:local` for an IRI in a model namespace with a plain local name, else `undefined`. */
export function prefixedName(
  iri: string,
): { prefix: string; ns: string; name: string } | undefined {
  const cut = Math.max(iri.lastIndexOf('#'), iri.lastIndexOf('/')) + 1;
  if (cut === 0) return undefined;
  const ns = iri.slice(0, cut);
  const prefix = PREFIX_OF.get(ns);
  if (prefix === undefined) return undefined;
  const local = iri.slice(cut);
  return LOCAL.test(local) ? { prefix, ns, name: `${prefix}:${local}` } : undefined;
}

/** IRIREF (Turtle §6.4): characters an IRI may not hold as they are become UCHAR escapes. */
function iriRef(iri: string): string {
  return `<${iri.replace(/[\u0000-\u0020<>"{}|^`\\]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}>`;
}

/** STRING_LITERAL_QUOTE (Turtle §6.4) with ECHAR escapes. */
function quoted(text: string): string {
  return `"${text.replace(/[\\"\n\r\t\b\f]/g, (c) => ({ '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' })[c]!)}"`;
}

export function toTurtle(description: Description): string {
  const { bySubject, inline } = layout(description.quads);
  // Prefixes are collected while the body is written and declared in front of it.
  const used = new Map<string, string>();
  const name = (iri: string): string => {
    const found = prefixedName(iri);
    if (!found) return iriRef(iri);
    used.set(found.prefix, found.ns);
    return found.name;
  };

  const term = (t: Term, indent: string): string => {
    if (t.termType === 'NamedNode') return name(t.value);
    if (t.termType === 'Literal') {
      if (t.language) return `${quoted(t.value)}@${t.language}`;
      return t.datatype.value === XSD_STRING
        ? quoted(t.value)
        : `${quoted(t.value)}^^${name(t.datatype.value)}`;
    }
    if (inline.has(t.value))
      return `[\n${predicates(bySubject.get(`BlankNode:${t.value}`) ?? [], `${indent}    `)}\n${indent}]`;
    return `_:${t.value}`;
  };

  /** Predicate-object lists; the quads of a subject arrive with equal predicates side by side. */
  const predicates = (list: readonly Quad[], indent: string): string => {
    const parts: string[] = [];
    let i = 0;
    while (i < list.length) {
      const predicate = list[i]!.predicate.value;
      const objects: string[] = [];
      while (i < list.length && list[i]!.predicate.value === predicate)
        objects.push(term(list[i++]!.object, indent));
      parts.push(
        `${indent}${predicate === RDF_TYPE ? 'a' : name(predicate)} ${objects.join(', ')}`,
      );
    }
    return parts.join(' ;\n');
  };

  let body = '';
  for (const list of bySubject.values()) {
    const subject = list[0]!.subject;
    if (subject.termType === 'BlankNode' && inline.has(subject.value)) continue;
    body += `\n${term(subject, '')}\n${predicates(list, '    ')} .\n`;
  }
  let head = '';
  for (const [prefix, ns] of used) head += `@prefix ${prefix}: ${iriRef(ns)} .\n`;
  return head + body;
}

export function toNTriples(description: Description): string {
  const writer = new Writer({ format: 'N-Triples' });
  writer.addQuads(description.quads as Quad[]);
  let out = '';
  writer.end((error, result) => {
    if (error) throw error;
    out = result;
  });
  return out;
}
