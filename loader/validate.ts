// Checks one institution's description against the SHACL shapes of the published model
// (queries/shapes.ttl) with a real SHACL engine, and names each defect by its class in the load
// report.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  MessageChannel,
  receiveMessageOnPort,
  Worker,
  type MessagePort,
} from 'node:worker_threads';
import { DataFactory, Parser, Writer, type BlankNode, type Quad, type Term } from 'n3';
import { QUERY_DIR } from '../src/paths';

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
] as const;

export type DefectClass = (typeof DEFECT_CLASSES)[number];

export interface Defect {
  readonly defect: DefectClass;
  /** The node the defect is about: the institution's IRI (every shape targets institutions). */
  readonly focus: string;
  /** What the shape says is wrong, and the offending value when the engine names one. */
  readonly message: string;
}

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

/** How long the worker may take to start, or to check one institution, before it is stuck. */
const WORKER_TIMEOUT_MS = 60_000;

/** A result as the worker sends it: the key of the shape that produced it, and term values. */
interface WireResult {
  readonly shape: string;
  readonly focus: string;
  readonly value: string | undefined;
  readonly message: readonly string[];
}
/** The worker's answer to the question numbered `id` (0: it has started). */
type Reply = { readonly id: number } & (
  { readonly results: readonly WireResult[] } | { readonly error: string }
);

/**
 * The worker that runs shacl-engine. The engine's API is asynchronous (it allows SPARQL-based
 * constraints, which these shapes do not use), and the loader wants an answer per institution at
 * once: the worker validates while this thread waits on a shared flag (`Atomics.wait`), then takes
 * the reply off the port synchronously. Plain JavaScript evaluated as a CommonJS script, so it runs
 * alike from the sources (tsx) and from the compiled dist/.
 */
const WORKER_SOURCE = `'use strict';
const { workerData } = require('node:worker_threads');
const { port, flag, engineUrl, n3Path, shapes } = workerData;
const { DataFactory, Parser, Store } = require(n3Path);
const send = (reply) => {
  port.postMessage(reply);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
};
const failed = (id, error) => send({ id, error: String((error && error.stack) || error) });
const key = (term) => term.termType + ':' + term.value;
import(engineUrl).then(({ Validator }) => {
  const factory = { ...DataFactory, dataset: (quads) => new Store(quads ? [...quads] : undefined) };
  const parsed = new Parser({ format: 'N-Triples', blankNodePrefix: '' }).parse(shapes);
  const validator = new Validator(new Store(parsed), { factory });
  port.on('message', ({ id, ntriples }) => {
    let quads;
    try {
      quads = new Parser({ format: 'N-Triples' }).parse(ntriples);
    } catch (error) {
      send({ id, error: 'not N-Triples: ' + error.message });
      return;
    }
    validator.validate({ dataset: new Store(quads) }).then((report) => send({
      id,
      results: report.results.map((r) => ({
        shape: key(r.shape.ptr.term),
        focus: r.focusNode.term.value,
        value: r.value && r.value.term ? r.value.term.value : undefined,
        message: r.message.map((m) => m.value),
      })),
    }), (error) => failed(id, error));
  });
  send({ id: 0, results: [] });
}, (error) => failed(0, error));
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

/** A worker running shacl-engine over one set of shapes, called synchronously. */
class Engine {
  private readonly port: MessagePort;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private readonly worker: Worker;
  /** Set when a reply did not come in time: the worker is stopped and asked nothing more. */
  broken = false;
  private asked = 0;

  constructor(shapes: string) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const worker = (this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        port: port2,
        flag: this.flag,
        engineUrl: pathToFileURL(require.resolve('shacl-engine')).href,
        n3Path: require.resolve('n3'),
        shapes,
      },
      transferList: [port2],
    }));
    // Neither keeps the process alive: a loader exits when its work is done.
    worker.unref();
    this.port.unref();
  }

  /**
   * The reply to question `id`; this thread blocks meanwhile, which is the point. The worker posts
   * a reply, then raises the flag and notifies; a raised flag or a wake-up may still belong to the
   * previous answer (a late notification once woke the wait for the next question, 1 in 17,000).
   * So the port is what counts: read it, lower the flag, read it again (a reply posted before the
   * flag went down is there now), and only then sleep until the flag goes up; a reply to another
   * question is dropped.
   */
  reply(id: number, what: string): Reply {
    if (this.broken) throw new Error(`${what}: the SHACL engine stopped answering earlier`);
    const deadline = performance.now() + WORKER_TIMEOUT_MS;
    const next = (): Reply | undefined => {
      for (let r = receiveMessageOnPort(this.port); r; r = receiveMessageOnPort(this.port))
        if ((r.message as Reply).id === id) return r.message as Reply;
      return undefined;
    };
    for (;;) {
      let reply = next();
      if (reply) return reply;
      Atomics.store(this.flag, 0, 0);
      reply = next();
      if (reply) return reply;
      const left = deadline - performance.now();
      if (left <= 0) {
        this.broken = true;
        void this.worker.terminate();
        throw new Error(`${what} within ${WORKER_TIMEOUT_MS} ms`);
      }
      Atomics.wait(this.flag, 0, 0, left);
    }
  }

  validate(ntriples: string, what: string): Reply {
    const id = ++this.asked;
    this.port.postMessage({ id, ntriples });
    return this.reply(id, what);
  }
}

/**
 * One worker per set of shapes, shared by every Validator of them (calls are synchronous, so they
 * never overlap): a process that loads many times starts one.
 */
const engines = new Map<string, Engine>();

/**
 * Validates institutions one at a time with shacl-engine, in a worker thread (see WORKER_SOURCE).
 * The shapes are parsed once; each institution's few dozen triples are validated as a graph of
 * their own, so a check never looks at another institution. Every shape targets
 * `foaf:Organization`: triples that type nothing as one have no defects.
 */
export class Validator {
  private readonly classes: ReadonlyMap<string, DefectClass>;
  private readonly engine: Engine;

  constructor(shapesFile: string = SHAPES_FILE) {
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
    this.classes = defectClasses(quads, `${base}#defect`);

    // As N-Triples whose blank-node labels the worker keeps, so that a result names its shape by
    // the same key as the classes above.
    const shapes = new Writer({ format: 'N-Triples' }).quadsToString(quads);
    let engine = engines.get(shapes);
    if (!engine || engine.broken) {
      engine = new Engine(shapes);
      const ready = engine.reply(0, 'the SHACL engine did not start');
      if ('error' in ready)
        throw new ShapesError(`${shapesFile}: the SHACL engine refused the shapes: ${ready.error}`);
      engines.set(shapes, engine);
    }
    this.engine = engine;
  }

  /**
   * The defects of one institution: `ntriples` holds its triples, its blank nodes' and its
   * description's. Throws when the text is not N-Triples (the loader made it, so that is a bug),
   * or when a result comes from a shape without a defect class. Each defect is listed once, even
   * when several constraints of one shape report the same value.
   */
  validate(institutionIri: string, ntriples: string): Defect[] {
    const reply = this.engine.validate(
      ntriples,
      `${institutionIri}: no answer from the SHACL engine`,
    );
    if ('error' in reply) throw new Error(`${institutionIri}: ${reply.error}`);

    const defects = new Map<string, Defect>();
    for (const { shape, focus, value, message: said } of reply.results) {
      const defect = this.classes.get(shape);
      if (defect === undefined)
        throw new ShapesError(
          `${institutionIri}: a result of shape ${shape} maps to no defect class`,
        );
      const message =
        value !== undefined && value !== focus ? `${said.join('; ')}: ${value}` : said.join('; ');
      defects.set(`${defect}\n${focus}\n${message}`, { defect, focus, message });
    }
    return [...defects.values()];
  }
}
