// Turtle with readable prefixes and nested blank nodes, and N-Triples, both written straight from
// the term text of a description (they run on every uncached request).
import { isBlank, layout, type Description } from './description';
import type { Triple } from './ntriples';
import { PREFIXES, RDF_TYPE, XSD_STRING } from './namespaces';

/** Every model namespace ends in `#` or `/`: the prefix of an IRI is found by one lookup. */
const PREFIX_OF = new Map<string, string>(
  Object.entries(PREFIXES).map(([prefix, ns]) => [ns, prefix]),
);
/** A conservative PN_LOCAL (Turtle §6.5): names that need no escaping and cannot end in a dot. */
const LOCAL = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const TYPE = `<${RDF_TYPE}>`;
const STRING_DATATYPE = `^^<${XSD_STRING}>`;

interface PrefixedName {
  readonly prefix: string;
  readonly ns: string;
  readonly name: string;
}

/** `prefix:local` for an IRI in a model namespace with a plain local name, else `undefined`. */
function prefixedName(iri: string): PrefixedName | undefined {
  const cut = Math.max(iri.lastIndexOf('#'), iri.lastIndexOf('/')) + 1;
  if (cut === 0) return undefined;
  const ns = iri.slice(0, cut);
  const prefix = PREFIX_OF.get(ns);
  if (prefix === undefined) return undefined;
  const local = iri.slice(cut);
  return LOCAL.test(local) ? { prefix, ns, name: `${prefix}:${local}` } : undefined;
}

/**
 * The prefixed names of IRI terms already seen (`null`: none), so that a term met again, as most
 * predicates and classes are, costs one lookup. Emptied when full, so it stays bounded.
 */
const NAMES = new Map<string, PrefixedName | null>();
const NAMES_LIMIT = 10_000;

function prefixedNameOfTerm(iriTerm: string): PrefixedName | null {
  let found = NAMES.get(iriTerm);
  if (found === undefined) {
    found = iriTerm.includes('\\') ? null : (prefixedName(iriTerm.slice(1, -1)) ?? null);
    if (NAMES.size >= NAMES_LIMIT) NAMES.clear();
    NAMES.set(iriTerm, found);
  }
  return found;
}

/**
 * Turtle (RDF 1.1 Turtle). N-Triples term text is Turtle as it is (IRIREF, the string escapes and
 * language tags are the same productions, Turtle §6.4), so terms are copied; only IRIs in a model
 * namespace become prefixed names, `xsd:string` is left implicit, and blank nodes referenced once
 * are nested.
 */
export function toTurtle(description: Description): string {
  const { bySubject, inline } = layout(description);
  // Prefixes are collected while the body is written and declared in front of it.
  const used = new Map<string, string>();
  const name = (iriTerm: string): string => {
    const found = prefixedNameOfTerm(iriTerm);
    if (!found) return iriTerm;
    used.set(found.prefix, found.ns);
    return found.name;
  };

  const object = (term: string, indent: string): string => {
    const c = term.charCodeAt(0);
    if (c === 60) return name(term);
    if (c === 34) {
      const close = term.lastIndexOf('"');
      if (term.charCodeAt(close + 1) !== 94 /* ^ */) return term;
      const datatype = term.slice(close + 3);
      return term.endsWith(STRING_DATATYPE)
        ? term.slice(0, close + 1)
        : `${term.slice(0, close + 1)}^^${name(datatype)}`;
    }
    if (inline.has(term))
      return `[\n${predicates(bySubject.get(term) ?? [], `${indent}    `)}\n${indent}]`;
    return term;
  };

  /** Predicate-object lists; the triples of a subject arrive with equal predicates side by side. */
  const predicates = (list: readonly Triple[], indent: string): string => {
    let out = '';
    let i = 0;
    while (i < list.length) {
      const predicate = list[i]!.p;
      let objects = object(list[i++]!.o, indent);
      while (i < list.length && list[i]!.p === predicate)
        objects += `, ${object(list[i++]!.o, indent)}`;
      out += `${out === '' ? '' : ' ;\n'}${indent}${predicate === TYPE ? 'a' : name(predicate)} ${objects}`;
    }
    return out;
  };

  let body = '';
  for (const [subject, list] of bySubject) {
    if (isBlank(subject) && inline.has(subject)) continue;
    body += `\n${isBlank(subject) ? subject : name(subject)}\n${predicates(list, '    ')} .\n`;
  }
  let head = '';
  for (const [prefix, ns] of used) head += `@prefix ${prefix}: <${ns}> .\n`;
  return head + body;
}

/** N-Triples (RDF 1.1 N-Triples), one triple a line. */
export function toNTriples(description: Description): string {
  let out = '';
  for (const t of description.triples) out += `${t.s} ${t.p} ${t.o} .\n`;
  return out;
}
