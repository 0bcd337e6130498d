// The describe stage's threads: descriptions sent in batches to a pool of worker threads
// (describeWorker.ts) that make each canonical, hash it and validate it (describeBatch.ts), or
// described in this thread by the very same function when the pool has no threads.
import { WorkerClient } from '../../threads/client';
import { TimeSlicer } from '../../util/timeSlice';
import { moduleIn } from '../../threads/workerRequire';
import { reviveLoadError } from '../loadError';
import { compiledShapes, type Shapes } from './compiledShapes';
import {
  describeBatch,
  type DescribeBatch,
  type DescribedResult,
  type DescriptionJob,
} from './describeBatch';
import { SHAPES_FILE } from './shapes';

/** How long a thread may take to start, or to describe one batch, before it counts as stuck. */
const WORKER_TIMEOUT_MS = 60_000;

const WORKER = moduleIn(__dirname, 'describeWorker');
/**
 * Descriptions sent to a thread in one message: enough that messages cost little beside the work,
 * few enough that the last batches end soon.
 */
const BATCH = 200;
/** Below this many descriptions the threads cost more to start than they save: this thread works. */
const THREADS_FROM = 2 * BATCH;

/** What a pool's thread is started with: the shapes it validates with, if the load validates. */
export interface DescribeWorkerData {
  readonly shapesFile: string | undefined;
}

export interface DescribePoolOptions {
  /** Worker threads; 0, the default, describes in this thread. */
  readonly workers?: number | undefined;
  /** Whether descriptions are validated: the shapes are then read and compiled at start. */
  readonly validate?: boolean | undefined;
  /** The shapes; by default those the service publishes. */
  readonly shapesFile?: string | undefined;
}

/**
 * Describes batches of descriptions, in the pool's threads (started when the first batch comes)
 * or in this thread. Close it when done: batches still in hand then fail.
 */
export class DescribePool {
  /** The threads, once started. */
  private threads: WorkerClient<DescribeBatch, DescribedResult[]>[] | undefined;
  private closed: Error | undefined;

  private constructor(
    /** How many threads describe; 0: this one. */
    readonly workers: number,
    private readonly shapesFile: string | undefined,
    private readonly shapes: Shapes | undefined,
  ) {}

  /**
   * A pool of `workers` threads; the shapes read and compiled here first when the load validates,
   * so that shapes that cannot be used are a ShapesError before anything is read.
   */
  static start(options: DescribePoolOptions = {}): DescribePool {
    const workers = Math.max(0, Math.floor(options.workers ?? 0));
    const shapesFile = options.validate ? (options.shapesFile ?? SHAPES_FILE) : undefined;
    const shapes = shapesFile === undefined ? undefined : compiledShapes(shapesFile);
    return new DescribePool(workers, shapesFile, shapes);
  }

  /** Whether the pool validates what it is asked to. */
  get validates(): boolean {
    return this.shapes !== undefined;
  }

  /**
   * Describes `jobs` (`count` of them) in batches and tells `take` each batch's results in the
   * jobs' order, with a bounded number of batches in hand (each thread one queued while it works
   * on one), so that what waits to be described stays small whatever the number of descriptions.
   * The event loop turns every time slice. Rejects with the first batch that fails.
   */
  async describeAll(
    baseIri: string,
    jobs: Iterable<DescriptionJob>,
    count: number,
    take: (jobs: readonly DescriptionJob[], results: readonly DescribedResult[]) => void,
  ): Promise<void> {
    const here = count < THREADS_FROM;
    const inHand = here ? 0 : this.workers * 2;
    const owed: { batch: DescriptionJob[]; results: Promise<DescribedResult[]> }[] = [];
    const send = async (batch: DescriptionJob[], bound: number) => {
      if (batch.length > 0) {
        const results = this.describe({ baseIri, jobs: batch }, here);
        // Awaited in order below; a failure is not unhandled meanwhile.
        results.catch(() => undefined);
        owed.push({ batch, results });
      }
      while (owed.length > bound) {
        const first = owed.shift()!;
        take(first.batch, await first.results);
      }
    };
    const slicer = new TimeSlicer();
    let batch: DescriptionJob[] = [];
    for (const job of jobs) {
      batch.push(job);
      if (batch.length >= BATCH) {
        await send(batch, inHand);
        batch = [];
      }
      await slicer.pause();
    }
    await send(batch, 0);
  }

  /**
   * Each description of `batch`, described; in this thread when the pool has none or `here` says
   * so. Rejects with a LoadError for a description past the work limit, or when a thread fails,
   * stops or takes longer than WORKER_TIMEOUT_MS.
   */
  async describe(batch: DescribeBatch, here = false): Promise<DescribedResult[]> {
    if (this.closed) throw this.closed;
    if (here || this.workers === 0) return describeBatch(batch, this.shapes);
    this.threads ??= Array.from({ length: this.workers }, () => this.startThread());
    const thread = this.threads.reduce((a, b) => (b.owing < a.owing ? b : a));
    return thread.ask(batch);
  }

  private startThread(): WorkerClient<DescribeBatch, DescribedResult[]> {
    return new WorkerClient(WORKER, {
      name: 'the describing thread',
      workerData: { shapesFile: this.shapesFile } satisfies DescribeWorkerData,
      timeoutMs: WORKER_TIMEOUT_MS,
      revive: reviveLoadError,
    });
  }

  /** Stops the threads; batches still in hand fail, and so do later ones. */
  async close(): Promise<void> {
    this.closed ??= new Error('the describing threads were closed');
    const threads = this.threads ?? [];
    this.threads = [];
    await Promise.all(threads.map((t) => t.terminate(this.closed!)));
  }
}
