// The store in a thread of its own. Oxigraph's calls are synchronous: a describe query takes about
// 0.3 ms, a load seconds in slices, freeing a large store 0.4 s in one piece. In the thread that
// answers HTTP they would hold every request, cached ones included, and the query and the rest of
// an uncached request could not use two cores. Here the HTTP thread keeps the index of the dataset
// and the rendered documents; the store's thread (storeWorker.ts) loads with the loader's code,
// keeps the stores and answers describe queries.
import { Worker } from 'node:worker_threads';
import type { LoadOptions, LoadReport } from '../../loader/loadSources';
import { Dataset, type DescriptionSource } from '../dataset';
import { TimeSlicer } from '../timeSlice';
import { moduleIn, requireIn } from '../workerRequire';
import type { SelectBinding } from './datasetStore';
import type { CheckedIri } from './queries';
import { fromWire, type Batch, type LoadedReply, type Reply, type Request } from './storeProtocol';

interface Asked {
  readonly resolve: (reply: Reply) => void;
  readonly reject: (error: Error) => void;
}

/** The worker's module beside this one (src/workerRequire.ts says how it is loaded). */
function startWorker(): Worker {
  const entry = moduleIn(__dirname, 'storeWorker');
  return entry.endsWith('.js') ? new Worker(entry) : new Worker(requireIn(entry), { eval: true });
}

/** What a load or query still owed fails with when the process stops the thread (`close`). */
export class StoreThreadClosed extends Error {
  override name = 'StoreThreadClosed';
}

/** A dataset's store in the store's thread, as the HTTP thread's `Dataset` reads it. */
export class RemoteStore implements DescriptionSource {
  private freed = false;

  constructor(
    private readonly thread: StoreThread,
    readonly generation: number,
    readonly size: number,
  ) {}

  /**
   * Queues the query now, ahead of any later free of this store (the free goes through the same
   * queue, so the store still answers it); resolves later. Throws at once, like a store in this
   * thread, when this store was freed.
   */
  describe(iri: CheckedIri): Promise<string> {
    if (this.freed) throw new Error('the store was freed');
    return this.thread.describe(this.generation, iri);
  }

  free(): void {
    if (this.freed) return;
    this.freed = true;
    this.thread.free(this.generation);
  }
}

export class StoreThread {
  private readonly worker: Worker;
  private readonly asked = new Map<number, Asked>();
  private next = 0;
  /** Requests not sent yet: see `send`. */
  private outbox: Request[] = [];
  /** Why the thread can no longer answer (it failed, stopped or was closed); set once. */
  private broken: Error | undefined;
  private closing = false;
  /** The load `begin` sent, until `load` takes it (see `begin`). */
  private early: { key: string; reply: Promise<Reply> } | undefined;

  /** `failed` hears of the thread's end unless `close` ended it: the store is gone then. */
  constructor(private readonly failed: (error: Error) => void = () => undefined) {
    this.worker = startWorker();
    this.worker.unref();
    this.worker.on('message', (replies: Batch<Reply>) => {
      for (const reply of replies) this.answer(reply);
    });
    this.worker.on('error', (error) =>
      this.fail(new Error(`the store's thread failed: ${error.stack ?? String(error)}`)),
    );
    this.worker.on('exit', (code) =>
      this.fail(new Error(`the store's thread stopped (exit code ${code})`)),
    );
  }

  /**
   * Sends the load of `sources` now, before this thread has loaded the server's modules (about
   * 0.2 s, in which the store's thread would wait): the next `load` of the same sources and
   * options takes its answer. One that asks for others frees what this one loaded.
   */
  begin(sources: readonly string[], options: LoadOptions): void {
    const reply = this.ask({ op: 'load', id: ++this.next, sources, options });
    // Its failure is the `load`'s that takes it; nobody may (a configuration refused meanwhile).
    reply.catch(() => undefined);
    this.early = { key: JSON.stringify([sources, options]), reply };
    // Now, not after this turn: the rest of this turn is the modules' loading.
    this.flush();
  }

  /**
   * Loads `sources` in the store's thread with `loadSources` (a failure rejects with its
   * LoadError), then indexes the dataset here from the rows read there, in slices.
   */
  load = async (
    sources: readonly string[],
    options: LoadOptions,
  ): Promise<{ dataset: Dataset<RemoteStore>; report: LoadReport }> => {
    const early = this.early;
    this.early = undefined;
    let asked: Promise<Reply>;
    if (early?.key === JSON.stringify([sources, options])) asked = early.reply;
    else {
      if (early) {
        // Settled first, so that the thread never runs the two loads at once; then freed unused.
        const unused = await early.reply.catch(() => undefined);
        if (unused && 'loaded' in unused) this.free(unused.loaded.generation);
      }
      asked = this.ask({ op: 'load', id: ++this.next, sources, options });
    }
    const reply = await asked;
    if (!('loaded' in reply)) throw new Error('the store thread answered a load without a dataset');
    const { generation, report, rows: pieces }: LoadedReply = reply.loaded;
    const store = new RemoteStore(this, generation, report.triples);
    try {
      const slicer = new TimeSlicer();
      const rows: SelectBinding[] = [];
      for (const piece of pieces) {
        rows.push(...(JSON.parse(piece) as SelectBinding[]));
        await slicer.pause();
      }
      return {
        dataset: await Dataset.fromRows(store, options.baseIri, report.version, rows),
        report,
      };
    } catch (error) {
      store.free();
      throw error;
    }
  };

  /** The N-Triples of `describe.rq` for `iri` from the store `generation`. */
  async describe(generation: number, iri: CheckedIri): Promise<string> {
    const reply = await this.ask({ op: 'describe', id: ++this.next, generation, iri });
    if (!('text' in reply)) throw new Error('the store thread answered a describe without text');
    return reply.text;
  }

  /** Frees the store `generation` after every query sent before. */
  free(generation: number): void {
    if (!this.broken) this.send({ op: 'free', generation });
  }

  /**
   * Queues `request` for the batch sent once this turn of the event loop has read its I/O: the
   * requests of the connections read in one turn cross in one message.
   */
  private send(request: Request): void {
    this.outbox.push(request);
    if (this.outbox.length === 1) setImmediate(this.flush);
  }

  private readonly flush = () => {
    const batch = this.outbox;
    this.outbox = [];
    if (batch.length > 0 && !this.broken) this.worker.postMessage(batch satisfies Batch<Request>);
  };

  /** Stops the thread; what it still owes fails. */
  async close(): Promise<void> {
    this.closing = true;
    this.fail(new StoreThreadClosed("the store's thread was closed"));
    await this.worker.terminate();
  }

  private ask(request: Request & { id: number }): Promise<Reply> {
    if (this.broken) return Promise.reject(this.broken);
    return new Promise((resolve, reject) => {
      this.asked.set(request.id, { resolve, reject });
      // Alive while it owes an answer, so that a thread not closed never holds a finished process.
      if (this.asked.size === 1) this.worker.ref();
      this.send(request);
    });
  }

  private answer(reply: Reply): void {
    const asked = this.asked.get(reply.id);
    if (!asked) return;
    this.asked.delete(reply.id);
    if (this.asked.size === 0) this.worker.unref();
    if ('error' in reply) asked.reject(fromWire(reply.error));
    else asked.resolve(reply);
  }

  private fail(error: Error): void {
    if (this.broken) return;
    this.broken = error;
    for (const asked of this.asked.values()) asked.reject(error);
    this.asked.clear();
    this.worker.unref();
    if (!this.closing) this.failed(error);
  }
}
