// A description's quads, asked the way the pages read them: the objects of a subject's
// property, its types, the first value.
import type { Quad, Term } from 'n3';
import { PREFIXES } from '../rdf/namespaces';

const { rdf, v } = PREFIXES;

export class Graph {
  constructor(private readonly quads: readonly Quad[]) {}

  get all(): readonly Quad[] {
    return this.quads;
  }

  objects(subject: Term | string, predicate: string): Term[] {
    const s = typeof subject === 'string' ? subject : subject.value;
    return this.quads
      .filter((q) => q.subject.value === s && q.predicate.value === predicate)
      .map((q) => q.object);
  }

  values(subject: Term | string, predicate: string): string[] {
    return this.objects(subject, predicate).map((t) => t.value);
  }

  firstTerm(subject: Term | string, predicate: string): Term | undefined {
    return this.objects(subject, predicate)[0];
  }

  first(subject: Term | string, predicate: string): string | undefined {
    return this.firstTerm(subject, predicate)?.value;
  }

  types(subject: Term): string[] {
    return this.values(subject, `${rdf}type`);
  }
}

/** The preferred (main) entries first, then the rest in the description's order. */
export function mainFirst(g: Graph, terms: Term[]): Term[] {
  const main = (t: Term) => (g.types(t).includes(`${v}Pref`) ? 0 : 1);
  return terms
    .map((t, i) => ({ t, i }))
    .sort((a, b) => main(a.t) - main(b.t) || a.i - b.i)
    .map((e) => e.t);
}
