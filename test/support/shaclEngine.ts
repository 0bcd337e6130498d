// shacl-engine, the reference the compiled shapes are held equal to
// (test/integration/load/compiledShapes.test.ts): the same shapes run by a general SHACL engine
// over an institution's triples, its results named by defect class as the describe stage names
// the compiled shapes' (describeBatch.ts).
import { DataFactory, Parser, Store, type Quad, type Term } from 'n3';
import type { Validator as Engine } from 'shacl-engine';
import { defectsFrom, rdfXmlResults } from '../../src/load/describe/describeBatch';
import type { Defect } from '../../src/load/describe/shapes';
import { readShapes } from '../../src/load/describe/shapes';
import { quadsOfTriples, type Triple } from '../../src/rdf/ntriples';

const key = (term: Term) => `${term.termType}:${term.value}`;

/**
 * An institution's few dozen triples as the engine reads them: looked up by subject (indexed on
 * the first such match), else scanned. The engine only matches, counts and iterates a data graph.
 */
class Graph {
  private subjects: Map<string, Quad[]> | undefined;

  constructor(private readonly quads: readonly Quad[]) {}

  get size(): number {
    return this.quads.length;
  }

  match(subject?: Term | null, predicate?: Term | null, object?: Term | null, graph?: Term | null) {
    const from = subject ? (this.bySubject().get(key(subject)) ?? []) : this.quads;
    return new Graph(
      from.filter(
        (q) =>
          (!predicate || predicate.equals(q.predicate)) &&
          (!object || object.equals(q.object)) &&
          (!graph || graph.equals(q.graph)),
      ),
    );
  }

  [Symbol.iterator](): Iterator<Quad> {
    return this.quads[Symbol.iterator]();
  }

  private bySubject(): Map<string, Quad[]> {
    if (!this.subjects) {
      this.subjects = new Map();
      for (const quad of this.quads) {
        const list = this.subjects.get(key(quad.subject));
        if (list) list.push(quad);
        else this.subjects.set(key(quad.subject), [quad]);
      }
    }
    return this.subjects;
  }
}

/** The defects shacl-engine finds with the shapes of `shapesFile` in an institution's triples. */
export async function shaclEngine(
  shapesFile: string,
): Promise<(iri: string, triples: readonly Triple[]) => Promise<Defect[]>> {
  const { classes, ntriples } = readShapes(shapesFile);
  const parsed = new Parser({ format: 'N-Triples', blankNodePrefix: '' }).parse(ntriples);
  const { Validator } = await import('shacl-engine');
  const factory = {
    ...DataFactory,
    dataset: (quads?: Iterable<Quad>) => new Store(quads ? [...quads] : undefined),
  };
  const validator: Engine = new Validator(new Store(parsed), { factory });
  return async (iri, triples) => {
    const quads = quadsOfTriples(triples);
    const report = await validator.validate({ dataset: new Graph(quads) });
    const results = report.results.map((r) => ({
      shape: key(r.shape.ptr.term),
      focus: r.focusNode.term.value,
      value: r.value?.term ? r.value.term.value : undefined,
      message: r.message.map((m) => m.value),
    }));
    return defectsFrom(classes, iri, [...results, ...rdfXmlResults(quads)]);
  };
}
