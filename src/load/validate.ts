// Checks institutions' descriptions against the SHACL shapes of the published model
// (queries/shapes.ttl) with a real SHACL engine, and names each defect by its class in the load
// report.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DataFactory, Parser, Writer, type BlankNode, type Quad, type Term } from 'n3';
import { QUERY_DIR } from '../util/paths';
import { moduleIn, requireIn } from '../threads/workerRequire';

/** The classes the load report counts defects in, in the order it lists them. */
export const DEFECT_CLASSES = [
  'no-name',
  'malformed-isil',
  'description-incomplete',
  'coordinates-missing',
  'coordinates-outside-country',
  'malformed-postcode',
  'email-not-mailto',
  'url-unparseable',
  'not-rdfxml',
] as const;

export type DefectClass = (typeof DEFECT_CLASSES)[number];

export interface Defect {
  readonly defect: DefectClass;
  /** The node the defect is about: the institution's IRI (every shape targets institutions). */
  readonly focus: string;
  /** What the shape says is wrong, and the offending value when the engine names one. */
  readonly message: string;
}

/**
 * The results of the check the workers make beside the shapes: what the RDF/XML document cannot
 * carry (its defect class is `not-rdfxml`). Not a shape's key: those start with a term type.
 */
const RDF_XML_SHAPE = 'rdfxml';

/** The shapes the service publishes; the same file is served at /shapes.ttl. */
export const SHAPES_FILE = path.join(QUERY_DIR, 'shapes.ttl');

/** The shapes cannot be used: they do not parse, or a shape that reports names no defect class. */
export class ShapesError extends Error {
  override name = 'ShapesError';
}

const SH = 'http://www.w3.org/ns/shacl#';
const TARGETS = ['targetClass', 'targetNode', 'targetSubjectsOf', 'targetObjectsOf'].map(
  (local) => SH + local,
);
const SH_PROPERTY = `${SH}property`;
const OWL_IMPORTS = 'http://www.w3.org/2002/07/owl#imports';
/** Predicates of a shape that are no constraint: a shape with only these reports nothing itself. */
const NOT_CONSTRAINTS = new Set(
  [
    ...['targetClass', 'targetNode', 'targetSubjectsOf', 'targetObjectsOf', 'property', 'path'],
    ...['message', 'severity', 'deactivated', 'name', 'description', 'order', 'group'],
  ].map((local) => SH + local),
);

/** A term as a map key: blank nodes and IRIs never collide. */
const key = (term: Term) => `${term.termType}:${term.value}`;

/**
 * Each shape that can produce a result at the top of a report, with the defect class it names in
 * the shapes' `:defect` annotation. Those are the shapes with a target and, transitively, their
 * `sh:property` shapes (which inherit the class of their parent unless they name their own).
 * Results of shapes reached through `sh:or`, `sh:not` or `sh:node` are reported under the shape
 * that refers to them, so they need no class.
 */
function defectClasses(quads: readonly Quad[], annotation: string): Map<string, DefectClass> {
  const known = new Set<string>(DEFECT_CLASSES);
  const named = new Map<string, string>();
  const constrained = new Set<string>();
  const properties = new Map<string, Term[]>();
  const reporting = new Map<string, Term>();
  for (const { subject, predicate, object } of quads) {
    if (predicate.value === annotation) named.set(key(subject), object.value);
    if (predicate.value === SH_PROPERTY) {
      const list = properties.get(key(subject)) ?? [];
      list.push(object);
      properties.set(key(subject), list);
    }
    if (TARGETS.includes(predicate.value)) reporting.set(key(subject), subject);
    if (predicate.value.startsWith(SH) && !NOT_CONSTRAINTS.has(predicate.value))
      constrained.add(key(subject));
  }

  const classes = new Map<string, DefectClass>();
  const visited = new Set<string>();
  const visit = (shape: Term, inherited: string | undefined): void => {
    if (visited.has(key(shape))) return;
    visited.add(key(shape));
    const own = named.get(key(shape)) ?? inherited;
    if (own !== undefined && !known.has(own))
      throw new ShapesError(
        `shape ${shape.value} names the defect class "${own}", which is none of ${DEFECT_CLASSES.join(', ')}`,
      );
    if (own === undefined && constrained.has(key(shape)))
      throw new ShapesError(`shape ${shape.value} can report a result but names no :defect class`);
    if (own !== undefined) classes.set(key(shape), own as DefectClass);
    for (const property of properties.get(key(shape)) ?? []) visit(property, own);
  };
  for (const shape of reporting.values()) visit(shape, undefined);
  return classes;
}

/** How long a worker may take to start, or to check one batch, before it counts as stuck. */
const WORKER_TIMEOUT_MS = 60_000;

/** One institution to check: its IRI, and its triples and its blank nodes' as N-Triples. */
export interface Institution {
  readonly iri: string;
  readonly ntriples: string;
}

export interface ValidatorOptions {
  /** The shapes; by default those the service publishes. */
  readonly shapesFile?: string;
  /** Worker threads running the engine; by default one a core (`os.availableParallelism()`). */
  readonly workers?: number;
}

/** A result as a worker sends it: the key of the shape that produced it, and term values. */
interface WireResult {
  readonly shape: string;
  readonly focus: string;
  readonly value: string | undefined;
  readonly message: readonly string[];
}
/**
 * A worker's answer to batch `id` (0: it has started): the results of each institution in order,
 * or the error of the institution at `index`.
 */
type Reply = { readonly id: number } & (
  | { readonly results: readonly (readonly WireResult[])[] }
  | { readonly error: string; readonly index: number }
);

/**
 * The worker that runs shacl-engine: it parses the shapes once, then checks the batches it is
 * sent, each institution as a graph of its own, and answers each batch once. The engine's API is
 * asynchronous (it allows SPARQL-based constraints, which these shapes do not use). Plain
 * JavaScript evaluated as a CommonJS script; the one module of the project it loads, the RDF/XML
 * writer's, it loads as src/workerRequire.ts says.
 */
const WORKER_SOURCE = `'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { engineUrl, n3Path, shapes } = workerData;
const { DataFactory, Parser, Store } = require(n3Path);
const key = (term) => term.termType + ':' + term.value;
// The RDF/XML writer's own tests of what it cannot carry.
const { literalDefect, predicateDefect } = ${requireIn(moduleIn(path.join(__dirname, '..', 'rdf'), 'rdfxml'))};
/**
 * What the RDF/XML document could not carry: results of the shape RDF_XML_SHAPE, whose focus is
 * the institution's, told by the loader.
 */
function rdfXmlResults(quads) {
  const results = [];
  for (const quad of quads) {
    const predicate = quad.predicate.value;
    const unwritable = predicateDefect(predicate);
    if (unwritable)
      results.push({ shape: '${RDF_XML_SHAPE}', focus: '', value: undefined,
        message: ['the RDF/XML document cannot be written: ' + unwritable] });
    const literal = quad.object.termType === 'Literal' && literalDefect(quad.object.value);
    if (literal)
      results.push({ shape: '${RDF_XML_SHAPE}', focus: '', value: predicate,
        message: ['the RDF/XML document cannot be written: ' + literal + ', of the predicate'] });
  }
  return results;
}
/**
 * An institution's few dozen triples as the engine reads them: looked up by subject (indexed on
 * the first such match), else scanned. Building an N3 Store's indexes for each institution cost
 * more than the lookups save: the checks took 45 % longer. The engine only matches, counts and
 * iterates a data graph.
 */
class Graph {
  constructor(quads) {
    this.quads = quads;
    this.subjects = undefined;
  }
  get size() {
    return this.quads.length;
  }
  match(subject, predicate, object, graph) {
    let from = this.quads;
    if (subject) {
      if (!this.subjects) {
        this.subjects = new Map();
        for (const quad of this.quads) {
          const list = this.subjects.get(key(quad.subject));
          if (list) list.push(quad);
          else this.subjects.set(key(quad.subject), [quad]);
        }
      }
      from = this.subjects.get(key(subject)) || [];
    }
    return new Graph(from.filter((q) =>
      (!predicate || predicate.equals(q.predicate)) &&
      (!object || object.equals(q.object)) &&
      (!graph || graph.equals(q.graph))));
  }
  [Symbol.iterator]() {
    return this.quads[Symbol.iterator]();
  }
}
const failed = (id, index, error) =>
  parentPort.postMessage({ id, index, error: String((error && error.stack) || error) });
import(engineUrl).then(({ Validator }) => {
  const factory = { ...DataFactory, dataset: (quads) => new Store(quads ? [...quads] : undefined) };
  const parsed = new Parser({ format: 'N-Triples', blankNodePrefix: '' }).parse(shapes);
  const validator = new Validator(new Store(parsed), { factory });
  parentPort.on('message', async ({ id, institutions }) => {
    const results = [];
    for (let index = 0; index < institutions.length; index++) {
      let quads;
      try {
        quads = new Parser({ format: 'N-Triples' }).parse(institutions[index]);
      } catch (error) {
        failed(id, index, 'not N-Triples: ' + error.message);
        return;
      }
      try {
        const report = await validator.validate({ dataset: new Graph(quads) });
        results.push(report.results.map((r) => ({
          shape: key(r.shape.ptr.term),
          focus: r.focusNode.term.value,
          value: r.value && r.value.term ? r.value.term.value : undefined,
          message: r.message.map((m) => m.value),
        })).concat(rdfXmlResults(quads)));
      } catch (error) {
        failed(id, index, error);
        return;
      }
    }
    parentPort.postMessage({ id, results });
  });
  parentPort.postMessage({ id: 0, results: [] });
}, (error) => failed(0, 0, error));
`;

/** The quads, blank nodes labelled in order of appearance: the same text gives the same labels. */
function relabelled(quads: readonly Quad[]): Quad[] {
  const labels = new Map<string, BlankNode>();
  const label = <T extends Term>(term: T): T | BlankNode => {
    if (term.termType !== 'BlankNode') return term;
    let blank = labels.get(term.value);
    if (!blank) labels.set(term.value, (blank = DataFactory.blankNode(`s${labels.size}`)));
    return blank;
  };
  return quads.map((q) =>
    DataFactory.quad(label(q.subject), q.predicate, label(q.object), q.graph),
  );
}

/** A batch sent to a worker, waiting for its answer. */
interface Asked {
  readonly iris: readonly string[];
  readonly resolve: (results: readonly (readonly WireResult[])[]) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * One worker thread running shacl-engine over one set of shapes. It keeps the process alive only
 * while it owes an answer, so a pool that was not closed never holds a finished process open.
 */
class Engine {
  private readonly worker: Worker;
  private readonly asked = new Map<number, Asked>();
  private next = 0;
  /** Why it can no longer answer (it failed, stopped or was closed); set once. */
  private broken: Error | undefined;

  constructor(shapes: string) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        engineUrl: pathToFileURL(require.resolve('shacl-engine')).href,
        n3Path: require.resolve('n3'),
        shapes,
      },
    });
    this.worker.on('message', (reply: Reply) => this.answer(reply));
    this.worker.on('error', (error) =>
      this.fail(new Error(`the SHACL engine failed: ${error.stack ?? String(error)}`)),
    );
    this.worker.on('exit', (code) =>
      this.fail(new Error(`the SHACL engine stopped (exit code ${code})`)),
    );
  }

  /** Batches sent and not answered yet. */
  get load(): number {
    return this.asked.size;
  }

  /** Resolves once the engine has parsed the shapes; rejects with the engine's word if it cannot. */
  started(): Promise<readonly (readonly WireResult[])[]> {
    return this.ask(0, [], 'the SHACL engine did not start');
  }

  /** The results of each institution of `batch`, in order. */
  check(batch: readonly Institution[]): Promise<readonly (readonly WireResult[])[]> {
    const id = ++this.next;
    const asked = this.ask(
      id,
      batch.map((i) => i.iri),
      `the SHACL engine did not check ${batch.length} institutions`,
    );
    this.worker.postMessage({ id, institutions: batch.map((i) => i.ntriples) });
    return asked;
  }

  private ask(
    id: number,
    iris: readonly string[],
    stuck: string,
  ): Promise<readonly (readonly WireResult[])[]> {
    if (this.broken) return Promise.reject(this.broken);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => this.fail(new Error(`${stuck} within ${WORKER_TIMEOUT_MS} ms`)),
        WORKER_TIMEOUT_MS,
      );
      this.asked.set(id, { iris, resolve, reject, timer });
      this.worker.ref();
    });
  }

  private answer(reply: Reply): void {
    const asked = this.asked.get(reply.id);
    if (!asked) return;
    this.settled(reply.id, asked);
    if ('error' in reply) {
      const iri = asked.iris[reply.index];
      asked.reject(new Error(iri === undefined ? reply.error : `${iri}: ${reply.error}`));
    } else asked.resolve(reply.results);
  }

  private settled(id: number, asked: Asked): void {
    clearTimeout(asked.timer);
    this.asked.delete(id);
    if (this.asked.size === 0) this.worker.unref();
  }

  /** Every batch still owed fails with `error`, and so does every later one; the worker stops. */
  private fail(error: Error): void {
    this.broken ??= error;
    for (const [id, asked] of this.asked) {
      this.settled(id, asked);
      asked.reject(error);
    }
    void this.worker.terminate();
  }

  /** Stops the worker; batches still owed fail. */
  async close(): Promise<void> {
    this.fail(new Error('the SHACL engine was closed'));
    await this.worker.terminate();
  }
}

/**
 * Validates institutions with shacl-engine in a pool of worker threads (see WORKER_SOURCE), so
 * that the loader goes on converting while the engine checks, on every core. Each worker parses
 * the shapes once; each institution's few dozen triples are validated as a graph of their own, so
 * a check never looks at another institution. Every shape targets `foaf:Organization`: triples
 * that type nothing as one have no defects. Start it with `Validator.start`, close it when done.
 */
export class Validator {
  private constructor(
    private readonly classes: ReadonlyMap<string, DefectClass>,
    private readonly engines: readonly Engine[],
  ) {}

  /**
   * Reads the shapes, checks that every shape that can report names a defect class, and starts
   * the workers. Throws a ShapesError when the shapes cannot be used.
   */
  static async start(options: ValidatorOptions = {}): Promise<Validator> {
    const shapesFile = options.shapesFile ?? SHAPES_FILE;
    const workers = Math.max(1, Math.floor(options.workers ?? os.availableParallelism()));
    // The shapes' IRIs are relative: they resolve against where the file is read from.
    const base = pathToFileURL(shapesFile).href;
    let quads: Quad[];
    try {
      quads = relabelled(
        new Parser({ format: 'text/turtle', baseIRI: base }).parse(
          fs.readFileSync(shapesFile, 'utf8'),
        ),
      );
    } catch (error) {
      throw new ShapesError(`${shapesFile}: ${(error as Error).message}`);
    }
    if (quads.some((q) => q.predicate.value === OWL_IMPORTS))
      throw new ShapesError(
        `${shapesFile}: owl:imports is not supported; keep the shapes in one file`,
      );
    const classes = defectClasses(quads, `${base}#defect`);

    // As N-Triples whose blank-node labels the workers keep, so that a result names its shape by
    // the same key as the classes above.
    const shapes = new Writer({ format: 'N-Triples' }).quadsToString(quads);
    const engines = Array.from({ length: workers }, () => new Engine(shapes));
    const validator = new Validator(classes, engines);
    const started = await Promise.allSettled(engines.map((e) => e.started()));
    const refused = started.find((s) => s.status === 'rejected');
    if (refused) {
      await validator.close();
      throw new ShapesError(
        `${shapesFile}: the SHACL engine refused the shapes: ${(refused.reason as Error).message}`,
      );
    }
    return validator;
  }

  /** How many worker threads check. */
  get workers(): number {
    return this.engines.length;
  }

  /**
   * The defects of each institution of `batch`, in order, from the worker with the fewest batches
   * in hand. Rejects when a text is not N-Triples (the loader made it, so that is a bug), when a
   * result comes from a shape without a defect class, or when the worker fails, stops or takes
   * longer than WORKER_TIMEOUT_MS. Each defect is listed once, even when several constraints of
   * one shape report the same value.
   */
  async validate(batch: readonly Institution[]): Promise<Defect[][]> {
    const engine = this.engines.reduce((a, b) => (b.load < a.load ? b : a));
    const results = await engine.check(batch);
    return results.map((found, i) => this.defects(batch[i]!.iri, found));
  }

  private defects(institutionIri: string, results: readonly WireResult[]): Defect[] {
    const defects = new Map<string, Defect>();
    for (const { shape, focus, value, message: said } of results) {
      const defect = shape === RDF_XML_SHAPE ? 'not-rdfxml' : this.classes.get(shape);
      if (defect === undefined)
        throw new ShapesError(
          `${institutionIri}: a result of shape ${shape} maps to no defect class`,
        );
      const message =
        value !== undefined && value !== focus ? `${said.join('; ')}: ${value}` : said.join('; ');
      const node = focus === '' ? institutionIri : focus;
      defects.set(`${defect}\n${node}\n${message}`, { defect, focus: node, message });
    }
    return [...defects.values()];
  }

  /** Stops the workers; batches still in hand fail. */
  async close(): Promise<void> {
    await Promise.all(this.engines.map((e) => e.close()));
  }
}
