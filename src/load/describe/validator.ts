// Checks institutions' descriptions against the SHACL shapes of the published model
// (queries/shapes.ttl), compiled into direct checks (compiledShapes.ts) or run by shacl-engine, in a
// pool of worker threads (shaclWorker.ts), and names each defect by its class in the load report.
import os from 'node:os';
import { WorkerClient } from '../../threads/client';
import { moduleIn } from '../../threads/workerRequire';
import type {
  ShaclEngine,
  ShaclReply,
  ShaclRequest,
  ShaclWorkerData,
  WireResult,
} from './shaclWorker';
import {
  RDF_XML_SHAPE,
  readShapes,
  ShapesError,
  SHAPES_FILE,
  type Defect,
  type DefectClass,
} from './shapes';

export { DEFECT_CLASSES, ShapesError, SHAPES_FILE, type Defect, type DefectClass } from './shapes';

/** How long a worker may take to start, or to check one batch, before it counts as stuck. */
const WORKER_TIMEOUT_MS = 60_000;

/** The engine's module beside this one (src/threads/workerRequire.ts says how it is loaded). */
const WORKER = moduleIn(__dirname, 'shaclWorker');

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
  /**
   * The shapes compiled into direct checks (the default: the same results, several times faster),
   * or shacl-engine, which also runs shapes that the compiler refuses.
   */
  readonly engine?: ShaclEngine;
}

/** One engine's thread; it keeps the process alive only while it owes an answer. */
function startEngine(shapes: string, engine: ShaclEngine): WorkerClient<ShaclRequest, ShaclReply> {
  return new WorkerClient(WORKER, {
    name: 'the SHACL engine',
    workerData: { shapes, engine } satisfies ShaclWorkerData,
    timeoutMs: WORKER_TIMEOUT_MS,
  });
}

/**
 * Validates institutions with the shapes' engine in a pool of worker threads (shaclWorker.ts), so
 * that the loader goes on converting while the engine checks, on every core. Each worker parses
 * the shapes once; each institution's few dozen triples are validated as a graph of their own, so
 * a check never looks at another institution. Every shape targets `foaf:Organization`: triples
 * that type nothing as one have no defects. Start it with `Validator.start`, close it when done.
 */
export class Validator {
  private constructor(
    private readonly classes: ReadonlyMap<string, DefectClass>,
    private readonly engines: readonly WorkerClient<ShaclRequest, ShaclReply>[],
  ) {}

  /**
   * Reads the shapes, checks that every shape that can report names a defect class, and starts
   * the workers. Throws a ShapesError when the shapes cannot be used.
   */
  static async start(options: ValidatorOptions = {}): Promise<Validator> {
    const shapesFile = options.shapesFile ?? SHAPES_FILE;
    const workers = Math.max(1, Math.floor(options.workers ?? os.availableParallelism()));
    const { classes, ntriples } = readShapes(shapesFile);
    const engine = options.engine ?? 'compiled';
    const engines = Array.from({ length: workers }, () => startEngine(ntriples, engine));
    const validator = new Validator(classes, engines);
    const started = await Promise.allSettled(engines.map((e) => e.ask({ op: 'start' })));
    const refused = started.find((s) => s.status === 'rejected');
    if (refused) {
      await validator.close();
      throw new ShapesError(
        `${shapesFile}: the SHACL engine (${engine}) refused the shapes: ${(refused.reason as Error).message}`,
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
    const engine = this.engines.reduce((a, b) => (b.owing < a.owing ? b : a));
    const institutions = batch.map((i) => i.ntriples);
    const results = await engine.ask({ op: 'check', institutions }).catch((error: unknown) => {
      throw named(error, batch);
    });
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
    await Promise.all(
      this.engines.map((e) => e.terminate(new Error('the SHACL engine was closed'))),
    );
  }
}

/** An engine's error about the institution at its `index`, named by the institution's IRI. */
function named(error: unknown, batch: readonly Institution[]): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  const { index } = error as { index?: unknown };
  const iri = typeof index === 'number' ? batch[index]?.iri : undefined;
  return iri === undefined ? error : new Error(`${iri}: ${error.message}`);
}
