// What the compiled shapes (compiledShapes.ts) read: one institution's triples indexed by subject
// and by object, the paths followed through them, and the terms as shacl-engine compares and writes
// them (keys, N-Triples, the lexical forms of the XSD datatypes it checks).
import type { Quad, Term } from 'n3';

const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const XSD = 'http://www.w3.org/2001/XMLSchema#';

/**
 * A term as a map key: n3's id, which tells the kinds of term apart (`_:` a blank node, `"` a
 * literal with its language or datatype) and is kept on the term, not computed.
 */
export const key = (t: Term): string => t.id;

/** The key the validator maps a shape to its defect class by (src/load/describe/shapes.ts). */
export const shapeKey = (t: Term): string => `${t.termType}:${t.value}`;

/** Appends `item` to the list of `map` at `at`. */
export function push<T>(map: Map<string, T[]>, at: string, item: T): void {
  const list = map.get(at);
  if (list) list.push(item);
  else map.set(at, [item]);
}

/** The terms without repeats, each at its first place. */
export function distinct(terms: readonly Term[]): Term[] {
  if (terms.length < 2) return terms as Term[];
  const seen = new Set<string>();
  const kept: Term[] = [];
  for (const t of terms)
    if (!seen.has(t.id)) {
      seen.add(t.id);
      kept.push(t);
    }
  return kept;
}

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
};

/** A term in N-Triples, as the engine writes the arguments of its default messages. */
export function nt(t: Term): string {
  if (t.termType === 'NamedNode') return `<${t.value}>`;
  if (t.termType === 'BlankNode') return `_:${t.value}`;
  const text = `"${t.value.replace(/["\\\n\r]/g, (c) => ESCAPES[c]!)}"`;
  if (t.termType !== 'Literal') return text;
  if (t.language) return `${text}@${t.language}`;
  return t.datatype.value === `${XSD}string` ? text : `${text}^^<${t.datatype.value}>`;
}

/** The lexical forms the engine checks for sh:datatype (rdf-validation's XSD patterns). */
export const LEXICAL: Readonly<Record<string, (value: string) => boolean>> = {
  [`${XSD}dateTime`]: (v) =>
    /^(-?([1-9][0-9]{3,}|0[0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T(([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?|(24:00:00(\.0+)?))(Z|(\+|-)((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?)$/.test(
      v,
    ),
  [`${XSD}date`]: (v) =>
    /^(-?([1-9][0-9]{3,}|0[0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(Z|(\+|-)((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?)$/.test(
      v,
    ),
  [`${XSD}string`]: (v) => /^([^\ud8ff-\udfff\ufffe-\uffff]*)$/.test(v),
  [`${XSD}boolean`]: (v) => ['1', 'true', '0', 'false'].includes(v),
  [`${XSD}decimal`]: (v) => /^((\+|-)?([0-9]+(\.[0-9]*)?|\.[0-9]+))$/.test(v),
};

/** A path step: predicates followed forwards (several for sh:alternativePath), or backwards. */
export interface Step {
  readonly predicates: readonly string[];
  readonly inverse: boolean;
}

/** One institution's triples, looked up by subject, and by object when a path asks. */
export class Data {
  private readonly out = new Map<string, Quad[]>();
  private incoming: Map<string, Quad[]> | undefined;
  private readonly types = new Map<string, Term[]>();

  constructor(readonly quads: readonly Quad[]) {
    for (const q of quads) {
      push(this.out, q.subject.id, q);
      if (q.predicate.id === RDF_TYPE) push(this.types, q.object.id, q.subject);
    }
  }

  objects(subject: Term, predicate: string): Term[] {
    const found: Term[] = [];
    const quads = this.out.get(subject.id);
    if (quads) for (const q of quads) if (q.predicate.id === predicate) found.push(q.object);
    return found;
  }

  subjects(object: Term, predicate: string): Term[] {
    if (!this.incoming) {
      this.incoming = new Map();
      for (const q of this.quads) push(this.incoming, key(q.object), q);
    }
    const found: Term[] = [];
    for (const q of this.incoming.get(key(object)) ?? [])
      if (q.predicate.value === predicate) found.push(q.subject);
    return found;
  }

  /** The nodes typed with the class of key `classKey`, in the triples' order. */
  typed(classKey: string): readonly Term[] {
    return this.types.get(classKey) ?? [];
  }

  typesOf(node: Term): Term[] {
    return this.objects(node, RDF_TYPE);
  }
}

/** The nodes `path` reaches from `focus`, in the order the engine finds them, repeats included. */
export function followPath(data: Data, focus: Term, path: readonly Step[]): Term[] {
  let nodes: Term[] = [focus];
  for (const step of path) {
    const next: Term[] = [];
    for (const n of nodes)
      for (const p of step.predicates)
        next.push(...(step.inverse ? data.subjects(n, p) : data.objects(n, p)));
    nodes = next;
  }
  return nodes;
}
