// Turtle with readable prefixes and nested blank nodes, and N-Triples, both through N3.js's Writer.
import { DataFactory, Writer, type Quad, type Quad_Object, type Term } from 'n3';
import { layout, type Description } from './description';
import { PREFIXES } from './namespaces';

/** The model's prefixes that the description uses, so the document does not list the unused. */
export function usedPrefixes(quads: readonly Quad[]): Record<string, string> {
  const used: Record<string, string> = {};
  const note = (t: Term) => {
    const value = t.termType === 'Literal' ? t.datatype.value : t.termType === 'NamedNode' ? t.value : '';
    for (const [prefix, ns] of Object.entries(PREFIXES)) if (value.startsWith(ns)) used[prefix] = ns;
  };
  for (const q of quads) {
    note(q.subject);
    note(q.predicate);
    note(q.object);
  }
  return used;
}

function end(writer: Writer): string {
  let out: string | undefined;
  let failure: Error | null = null;
  writer.end((error, result) => {
    failure = error;
    out = result;
  });
  if (failure) throw failure;
  if (out === undefined) throw new Error('the N3 writer did not finish synchronously');
  return out;
}

export function toNTriples(description: Description): string {
  const writer = new Writer({ format: 'N-Triples' });
  writer.addQuads(description.quads as Quad[]);
  return end(writer);
}

export function toTurtle(description: Description): string {
  const { bySubject, inline } = layout(description.quads);
  const writer = new Writer({ format: 'Turtle', prefixes: usedPrefixes(description.quads) });
  const objectOf = (object: Quad_Object): Quad_Object => {
    if (object.termType !== 'BlankNode' || !inline.has(object.value)) return object;
    const inner = bySubject.get(`BlankNode:${object.value}`) ?? [];
    return writer.blank(inner.map((q) => ({ predicate: q.predicate, object: objectOf(q.object) }))) as unknown as Quad_Object;
  };
  for (const list of bySubject.values()) {
    const subject = list[0]!.subject;
    if (subject.termType === 'BlankNode' && inline.has(subject.value)) continue;
    for (const q of list) writer.addQuad(DataFactory.quad(q.subject, q.predicate, objectOf(q.object)));
  }
  return end(writer);
}
