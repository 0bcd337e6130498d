// The asking side of every worker thread of the project: requests with ids, answers matched to
// them, errors revived with their class and code, and the thread's end or failure failing what it
// still owes. The answering side is `serve` (serve.ts).
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { Answer, Asking, Batch } from './protocol';
import { fromWire, type Reviver } from './wire';
import { requireIn } from './workerRequire';

export interface ClientOptions {
  /** What the thread is called in errors: "the store's thread", "the SHACL engine". */
  readonly name: string;
  /** Data the worker reads as `workerData`. */
  readonly workerData?: unknown;
  /** Revives the errors the worker sends back into their classes. */
  readonly revive?: Reviver;
  /** How long one request may take before the thread counts as stuck (it is then ended). */
  readonly timeoutMs?: number;
  /** The thread's heap limits (`Worker`'s `resourceLimits`). */
  readonly resourceLimits?: ResourceLimits;
  /** Hears of the thread's end, unless this side ended it (`retire`, `terminate`). */
  readonly onEnd?: (error: Error) => void;
}

interface Owed<A> {
  readonly resolve: (answer: A) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout | undefined;
}

/**
 * One worker thread running `entry` (a module path from `moduleIn`), and what it owes. It keeps the
 * process alive only while it owes an answer, so that a client not closed never holds a finished
 * process open. Requests of one turn of the event loop cross in one message.
 */
export class WorkerClient<Q, A> {
  readonly worker: Worker;
  /** Settles once the thread has exited. */
  readonly ended: Promise<void>;
  private readonly owed = new Map<number, Owed<A>>();
  private next = 0;
  private outbox: Asking<Q>[] = [];
  /** Why the thread can no longer answer (it failed, ended or was ended); set once. */
  private broken: Error | undefined;
  /** Why no more requests will come, once retired or terminated: what later asks fail with. */
  private retired: Error | undefined;

  constructor(
    entry: string,
    private readonly options: ClientOptions,
  ) {
    const { workerData, resourceLimits } = options;
    const settings = { workerData, ...(resourceLimits ? { resourceLimits } : {}) };
    this.worker = entry.endsWith('.js')
      ? new Worker(entry, settings)
      : new Worker(requireIn(entry), { eval: true, ...settings });
    this.worker.unref();
    this.ended = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.on('message', (answers: Batch<Answer<A>>) => answers.forEach(this.answer));
    this.worker.on('error', (error) =>
      this.fail(new Error(`${options.name} failed: ${error.stack ?? String(error)}`), true),
    );
    this.worker.on('exit', (code) =>
      this.fail(new Error(`${options.name} stopped (exit code ${code})`), true),
    );
  }

  /** How many requests wait for their answer. */
  get owing(): number {
    return this.owed.size;
  }

  /** Whether the thread can still answer. */
  get alive(): boolean {
    return this.broken === undefined && this.retired === undefined;
  }

  ask(request: Q): Promise<A> {
    if (this.broken) return Promise.reject(this.broken);
    return new Promise<A>((resolve, reject) => {
      const id = ++this.next;
      const { timeoutMs, name } = this.options;
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(
              () => this.stuck(`${name} did not answer within ${timeoutMs} ms`),
              timeoutMs,
            );
      this.owed.set(id, { resolve, reject, timer });
      if (this.owed.size === 1) this.worker.ref();
      this.outbox.push({ id, request });
      if (this.outbox.length === 1) setImmediate(this.flush);
    });
  }

  /** Sends the requests queued in this turn of the event loop, in one message. */
  private readonly flush = (): void => {
    const batch = this.outbox;
    this.outbox = [];
    if (batch.length > 0 && !this.broken) this.worker.postMessage(batch satisfies Batch<Asking<Q>>);
  };

  /** No more requests will come: the thread ends once it has answered what it owes. */
  retire(why: Error): void {
    this.retired = why;
    if (this.owed.size === 0) void this.terminate(why);
  }

  /** Ends the thread now; what it still owes fails with `why`, and `onEnd` is not told. */
  terminate(why: Error): Promise<number> {
    this.retired ??= why;
    this.fail(why, false);
    return this.worker.terminate();
  }

  private readonly answer = (answer: Answer<A>): void => {
    const owed = this.owed.get(answer.id);
    if (!owed) return;
    this.settle(answer.id, owed);
    if (this.owed.size === 0 && this.retired) void this.terminate(this.retired);
    if ('error' in answer) owed.reject(fromWire(answer.error, this.options.revive));
    else owed.resolve(answer.answer);
  };

  private settle(id: number, owed: Owed<A>): void {
    clearTimeout(owed.timer);
    this.owed.delete(id);
    if (this.owed.size === 0) this.worker.unref();
  }

  private stuck(why: string): void {
    void this.terminate(new Error(why));
  }

  /** Every request owed fails with `error`, and so does every later one. */
  private fail(error: Error, tell: boolean): void {
    if (this.broken) return;
    this.broken = error;
    for (const [id, owed] of this.owed) {
      this.settle(id, owed);
      owed.reject(error);
    }
    this.worker.unref();
    if (tell && this.retired === undefined) this.options.onEnd?.(error);
  }
}
