// The asking side of the canonical reading's own thread (canonicalThread.ts): batches of
// descriptions sent in order, at most two in its hands at once, what it made handed back as each
// batch is done, and the first failure the load fails with.
import type { InstitutionState } from '../history/model';
import type { Triple } from '../rdf/ntriples';
import type { ResourceLimits } from 'node:worker_threads';
import { WorkerClient } from '../threads/client';
import { moduleIn } from '../threads/workerRequire';
import type { Subject } from './canonicalDataset';
import type { TextBlock } from './deflatedTexts';
import { reviveLoadError } from './loadError';

/** One description to make: the `n`-th, its graph's N-Triples as the store wrote them, its links. */
export interface ToDescribe {
  readonly subject: Subject;
  readonly n: number;
  readonly text: string;
  readonly linked?: readonly Triple[];
}

/**
 * What the thread made of a batch: each ISIL's canonical text and state, in the batch's order, and
 * the snapshot's pieces it ended meanwhile, for the asking thread to hold (deflated there: this
 * thread has the longer half of the reading).
 */
export interface DescribedBatch {
  /** Each ISIL's state, in the batch's order. */
  readonly described: readonly (readonly [string, InstitutionState])[];
  /** Their canonical texts, as one deflated block. */
  readonly texts: TextBlock;
  readonly pieces: readonly string[];
}

export type CanonicalRequest =
  | { readonly op: 'describe'; readonly batch: readonly ToDescribe[] }
  /** The rest's lines: the snapshot's last; the answer is the pieces still to hold. */
  | { readonly op: 'end'; readonly tail: readonly string[] };

export type CanonicalReply = DescribedBatch | readonly string[];

const WORKER = moduleIn(__dirname, 'canonicalThread');
/** Batches in the thread's hands at most: it has the next while it works on one. */
const IN_HAND = 2;
/**
 * The thread's young generation, for batches of CANONICAL_BATCH descriptions: what a batch holds
 * while it is made (its text, lines and pieces) then mostly dies young instead of being promoted
 * and collected again in the old generation. 8 MB with batches of 50 spent less of the thread's
 * time collecting than 4 MB with batches of 200, at the same peak RSS; 16 MB collected less still
 * but raised that peak (docs/benchmark.md, "the canonical thread's young generation").
 */
const YOUNG_GENERATION: ResourceLimits = { maxYoungGenerationSizeMb: 8 };

export class CanonicalThread {
  private readonly client: WorkerClient<CanonicalRequest, CanonicalReply>;
  private readonly owed = new Set<Promise<void>>();
  private failure: unknown;

  constructor(baseIri: string) {
    this.client = new WorkerClient(WORKER, {
      name: 'the canonical reading thread',
      workerData: { baseIri },
      revive: reviveLoadError,
      resourceLimits: YOUNG_GENERATION,
    });
  }

  /** Sends a batch; `made` is told what the thread made of it. Waits while IN_HAND are owed. */
  async describe(
    batch: readonly ToDescribe[],
    made: (done: DescribedBatch) => void,
  ): Promise<void> {
    this.fail();
    // Never rejects: what fails (the thread, or `made` here) is kept, and thrown by the next call.
    const done = this.client.ask({ op: 'describe', batch }).then(
      (reply) => {
        try {
          made(reply as DescribedBatch);
        } catch (error) {
          this.failure ??= error;
        }
      },
      (error: unknown) => {
        this.failure ??= error;
      },
    );
    this.owed.add(done);
    void done.then(() => this.owed.delete(done));
    while (this.owed.size >= IN_HAND) await Promise.race(this.owed);
    this.fail();
  }

  /** Every batch answered, then the rest's lines: the snapshot's last pieces. */
  async end(tail: readonly string[]): Promise<readonly string[]> {
    await Promise.all(this.owed);
    this.fail();
    return (await this.client.ask({ op: 'end', tail })) as readonly string[];
  }

  async close(): Promise<void> {
    await this.client.terminate(new Error('the canonical reading is over'));
  }

  /** Throws the first failure of a batch. */
  private fail(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}
