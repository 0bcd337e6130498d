// A SHACL engine's own thread (see validator.ts): it parses the shapes once, then checks the
// batches it is sent, each institution as a graph of its own, with the shapes compiled into direct
// checks (compiledShapes.ts) or with shacl-engine, the reference they are held equal to. The
// engine's API is asynchronous (it allows SPARQL-based constraints, which these shapes do not use).
import { workerData } from 'node:worker_threads';
import { DataFactory, Parser, Store, type Quad, type Term } from 'n3';
import { quadsOfTriples, splitWrittenNTriples } from '../../rdf/ntriples';
import type { Validator as Engine } from 'shacl-engine';
import { literalDefect, predicateDefect } from '../../rdf/rdfxml';
import { serve } from '../../threads/serve';
import { RDF_XML_SHAPE, ShapesError } from './shapes';
import { compileShapes, type WireResult } from './compiledShapes';

export type { WireResult } from './compiledShapes';

/** What checks an institution: the compiled shapes, or shacl-engine (the reference). */
export type ShaclEngine = 'compiled' | 'shacl-engine';

/** `start` answers once the shapes are parsed; `check`, the results of each institution. */
export type ShaclRequest =
  { readonly op: 'start' } | { readonly op: 'check'; readonly institutions: readonly string[] };
export type ShaclReply = readonly (readonly WireResult[])[];

/** What the engine's thread is started with: the shapes as N-Triples (see readShapes), and the engine. */
export interface ShaclWorkerData {
  readonly shapes: string;
  readonly engine: ShaclEngine;
}

/** An institution's results, by either engine. */
type Checker = (quads: Quad[]) => Promise<readonly WireResult[]> | readonly WireResult[];

/** The error of the institution at `index` of a batch: the asking side names it by its IRI. */
class InstitutionError extends Error {
  constructor(
    readonly index: number,
    message: string,
  ) {
    super(message);
  }
}

const key = (term: Term) => `${term.termType}:${term.value}`;

/** What the RDF/XML document could not carry: results of RDF_XML_SHAPE, about the institution. */
function rdfXmlResults(quads: readonly Quad[]): WireResult[] {
  const results: WireResult[] = [];
  const result = (value: string | undefined, message: string) =>
    results.push({ shape: RDF_XML_SHAPE, focus: '', value, message: [message] });
  for (const quad of quads) {
    const predicate = quad.predicate.value;
    const unwritable = predicateDefect(predicate);
    if (unwritable) result(undefined, `the RDF/XML document cannot be written: ${unwritable}`);
    const literal = quad.object.termType === 'Literal' && literalDefect(quad.object.value);
    if (literal)
      result(predicate, `the RDF/XML document cannot be written: ${literal}, of the predicate`);
  }
  return results;
}

/**
 * An institution's few dozen triples as the engine reads them: looked up by subject (indexed on
 * the first such match), else scanned. Building an N3 Store's indexes for each institution cost
 * more than the lookups save (docs/benchmark.md, "validation's data graph"). The engine only
 * matches, counts and iterates a data graph.
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

async function startEngine({ shapes, engine }: ShaclWorkerData): Promise<Checker> {
  const parsed = new Parser({ format: 'N-Triples', blankNodePrefix: '' }).parse(shapes);
  // Shapes using what is not compiled are run by shacl-engine: slower, the same results.
  if (engine === 'compiled')
    try {
      return compileShapes(parsed);
    } catch (error) {
      if (!(error instanceof ShapesError)) throw error;
    }
  const { Validator } = await import('shacl-engine');
  const factory = {
    ...DataFactory,
    dataset: (quads?: Iterable<Quad>) => new Store(quads ? [...quads] : undefined),
  };
  const validator: Engine = new Validator(new Store(parsed), { factory });
  return async (quads) => {
    const report = await validator.validate({ dataset: new Graph(quads) });
    return report.results.map((r) => ({
      shape: key(r.shape.ptr.term),
      focus: r.focusNode.term.value,
      value: r.value?.term ? r.value.term.value : undefined,
      message: r.message.map((m) => m.value),
    }));
  };
}

async function check(checker: Checker, ntriples: string, index: number): Promise<WireResult[]> {
  let quads: Quad[];
  try {
    // Read by position as Oxigraph and the converter write it (a fifth of the check's time with
    // N3's parser); text in any other shape is read by the grammar, which refuses what breaks it.
    quads = quadsOfTriples(splitWrittenNTriples(ntriples));
  } catch (error) {
    throw new InstitutionError(index, `not N-Triples: ${(error as Error).message}`);
  }
  try {
    return (await checker(quads)).concat(rdfXmlResults(quads));
  } catch (error) {
    throw new InstitutionError(index, (error as Error).stack ?? String(error));
  }
}

const engine = startEngine(workerData as ShaclWorkerData);
// A refusal of the shapes is the `start` request's answer, not an unhandled rejection.
engine.catch(() => undefined);

serve<ShaclRequest, ShaclReply>(async (request) => {
  const started = await engine;
  if (request.op === 'start') return [];
  const results: WireResult[][] = [];
  for (const [index, ntriples] of request.institutions.entries())
    results.push(await check(started, ntriples, index));
  return results;
});
