// The stores in threads of their own, one thread for each loaded dataset. Oxigraph's calls are
// synchronous: a describe query takes a fraction of a millisecond, a load seconds in slices,
// freeing a large store most of a second in one piece (docs/benchmark.md, "a store freed"). In
// the thread that answers HTTP they would hold every request,
// cached ones included, and the query and the rest of an uncached request could not use two
// cores. Here the HTTP thread keeps the index of the dataset and the rendered documents; a store's
// thread (storeWorker.ts) loads with the loader's code, keeps that one store and answers describe
// queries. A reload loads in a fresh thread, and the previous one is terminated once it has
// answered its last query: terminating releases its WebAssembly memory at once, and no query of
// the new store waits behind the old one's free.
import type { LoadOptions, LoadReport, LoadRequest } from '../../load/loadSources';
import { readCompactStates } from '../../history/canonical';
import { Dataset, type DescriptionSource } from '../dataset';
import type { LinksHeld } from '../linksHeld';
import { StoreClosed, type Opened, type Store, type StoreHealth } from '../store';

const EMBEDDED: StoreHealth = Object.freeze({ kind: 'embedded', state: 'available' });
import { TimeSlicer } from '../../util/timeSlice';
import { WorkerClient } from '../../threads/client';
import { moduleIn } from '../../threads/workerRequire';
import type { SelectBinding } from './datasetStore';
import type { CheckedIri } from '../queries';
import { reviveLoadError, type LoadedReply, type Reply, type Request } from './storeProtocol';

/** The worker's module beside this one (src/threads/workerRequire.ts says how it is loaded). */
const WORKER = moduleIn(__dirname, 'storeWorker');

const freedError = () => new Error('the store was freed');

/** A dataset's store in its thread, as the HTTP thread's `Dataset` reads it. */
export class StoreInThread implements DescriptionSource {
  private freed = false;

  constructor(
    private readonly thread: StoreThread,
    /** The store's number: each load has its own, in the order the loads were sent. */
    readonly storeNumber: number,
    readonly size: number,
    /** The id of the worker thread that holds the store. */
    readonly threadId: number,
  ) {}

  /**
   * Queues the query now, ahead of any later free of this store (its thread ends only once it
   * has answered every query sent before the free); resolves later. Throws at once, like a store
   * in this thread, when this store was freed.
   */
  describe(iri: CheckedIri): Promise<string> {
    if (this.freed) throw freedError();
    return this.thread.describe(this.storeNumber, iri);
  }

  free(): void {
    if (this.freed) return;
    this.freed = true;
    this.thread.free(this.storeNumber);
  }
}

/**
 * One worker thread and the store it holds: at most one, the one it loaded; once that store is
 * freed (`retire`), the thread is terminated as soon as it owes nothing.
 */
class StoreHolder {
  readonly client: WorkerClient<Request, Reply>;
  /** Whether its load succeeded: it holds a store the server may be serving. */
  holding = false;
  private asked = false;

  /** `onEnd` hears of the thread's end unless this side ended it (`retire`, `terminate`). */
  constructor(onEnd: (holder: StoreHolder, error: Error) => void) {
    this.client = new WorkerClient<Request, Reply>(WORKER, {
      name: "the store's thread",
      revive: reviveLoadError,
      onEnd: (error) => onEnd(this, error),
    });
  }

  get ended(): Promise<void> {
    return this.client.ended;
  }

  /** Whether it was asked nothing yet: a thread started ahead that no load took yet. */
  get idle(): boolean {
    return !this.asked && this.client.alive;
  }

  async load(sources: readonly string[], options: LoadOptions): Promise<LoadedReply> {
    const reply = await this.ask({ op: 'load', sources, options });
    if (typeof reply === 'string') throw new Error('the store thread answered a load with text');
    this.holding = true;
    return reply;
  }

  async describe(iri: CheckedIri): Promise<string> {
    const reply = await this.ask({ op: 'describe', iri });
    if (typeof reply !== 'string')
      throw new Error('the store thread answered a describe without text');
    return reply;
  }

  /** Its store is no longer needed: the thread ends once it has answered what it owes. */
  retire(): void {
    this.client.retire(freedError());
  }

  terminate(why: Error): Promise<number> {
    return this.client.terminate(why);
  }

  private ask(request: Request): Promise<Reply> {
    this.asked = true;
    return this.client.ask(request);
  }
}

export class StoreThread implements Store<LoadRequest> {
  /** Every thread running: one for each store loaded or loading, and the one started ahead. */
  private readonly holders = new Set<StoreHolder>();
  /** The thread of each store not freed, by its number (from the moment its load is sent). */
  private readonly stores = new Map<number, StoreHolder>();
  /** The thread the constructor started, until a load takes it. */
  private spare: StoreHolder | undefined;
  /** A load sent by `preload`, until an `open` takes it: the request it loads, as a key. */
  private ahead: { readonly key: string; readonly loading: Loading } | undefined;
  private storesOpened = 0;
  /** Why no more can be loaded or asked: closed, or the thread of a store in use ended; set once. */
  private broken: Error | undefined;

  /**
   * `failed` hears of the end of a thread that holds a store not freed (the served one, or one
   * about to be): its data is gone. The end of a thread whose load failed only fails that load;
   * one terminated because its store was freed, or by `close`, is no failure. A thread is started
   * at once, so that it boots (Oxigraph, the loader: docs/benchmark.md, "a thread's start") while
   * the caller goes on.
   */
  constructor(private readonly failed: (error: Error) => void = () => undefined) {
    this.spare = this.start();
  }

  /**
   * Loads `sources` in a fresh thread with `loadSources` (a failure rejects with its LoadError and
   * ends that thread), then indexes the dataset here from the rows read there, in slices.
   */
  open = async ({ sources, options }: LoadRequest): Promise<Opened<StoreInThread>> => {
    if (this.broken) throw this.broken;
    const ahead = this.ahead;
    this.ahead = undefined;
    const loading =
      ahead?.key === requestKey({ sources, options }) ? ahead.loading : this.send(sources, options);
    // A load sent ahead for another request is not served: its thread ends once it has loaded.
    if (ahead && ahead.loading !== loading) this.free(ahead.loading.storeNumber);
    const { holder, storeNumber } = loading;
    let reply: LoadedReply;
    try {
      reply = await loading.reply;
    } catch (error) {
      this.free(storeNumber);
      throw error;
    }
    const { report, rows: pieces } = reply;
    const store = new StoreInThread(
      this,
      storeNumber,
      report.triples,
      holder.client.worker.threadId,
    );
    try {
      const slicer = new TimeSlicer();
      const rows: SelectBinding[] = [];
      for (const piece of pieces) {
        rows.push(...(JSON.parse(piece) as SelectBinding[]));
        await slicer.pause();
      }
      const dataset = await Dataset.fromRows(
        store,
        options.baseIri,
        report.version,
        rows,
        linksOf(report),
      );
      dataset.states = readCompactStates(JSON.parse(reply.states));
      dataset.logVersion = reply.logVersion;
      if (reply.positions) dataset.positions = new Map(reply.positions);
      return { dataset };
    } catch (error) {
      store.free();
      throw error;
    }
  };

  /**
   * Sends the load of `request` now, to the thread started ahead: the first load then runs while
   * the rest of the process boots (its HTTP side's modules take about a second), and the `open`
   * of the same request takes it. Its failure is that `open`'s to report.
   */
  preload(request: LoadRequest): void {
    if (this.broken || this.ahead) return;
    const loading = this.send(request.sources, request.options);
    loading.reply.catch(() => undefined);
    this.ahead = { key: requestKey(request), loading };
  }

  /** The N-Triples of `describe.rq` for `iri` from the store `storeNumber`. */
  async describe(storeNumber: number, iri: CheckedIri): Promise<string> {
    if (this.broken) throw this.broken;
    const holder = this.stores.get(storeNumber);
    if (!holder) throw freedError();
    return holder.describe(iri);
  }

  /** Frees the store `storeNumber`: its thread ends once it has answered the queries sent before. */
  free(storeNumber: number): void {
    const holder = this.stores.get(storeNumber);
    if (!holder) return;
    this.stores.delete(storeNumber);
    holder.retire();
  }

  /** Stops every thread; what they still owe fails with StoreClosed. */
  /** A store in this process answers while the process does. */
  health(): StoreHealth {
    return EMBEDDED;
  }

  async close(): Promise<void> {
    this.broken ??= new StoreClosed("the store's thread was closed");
    const closed = this.broken;
    this.stores.clear();
    this.spare = undefined;
    await Promise.all([...this.holders].map((holder) => holder.terminate(closed)));
  }

  /**
   * Sends a load to the thread started ahead, when no load took it yet, else to a new one (never
   * to a thread that holds a store: one store, one thread). Not when broken: callers check.
   */
  private send(sources: readonly string[], options: LoadOptions): Loading {
    const spare = this.spare;
    this.spare = undefined;
    const holder = spare?.idle ? spare : this.start();
    if (spare && holder !== spare) void spare.terminate(freedError());
    const storeNumber = ++this.storesOpened;
    this.stores.set(storeNumber, holder);
    return { holder, storeNumber, reply: holder.load(sources, options) };
  }

  private start(): StoreHolder {
    const holder = new StoreHolder((ended, error) => this.ended(ended, error));
    this.holders.add(holder);
    void holder.ended.then(() => this.holders.delete(holder));
    return holder;
  }

  /** A thread ended that this side did not end: fatal when it held a store not freed. */
  private ended(holder: StoreHolder, error: Error): void {
    if (!holder.holding) return;
    this.broken ??= error;
    this.failed(error);
  }
}

/** A request as a key: the same sources with the same options (functions aside). */
const requestKey = ({ sources, options }: LoadRequest): string =>
  JSON.stringify({ sources, options });

/** A load sent to a thread: the store's number, and the answer to come. */
interface Loading {
  readonly holder: StoreHolder;
  readonly storeNumber: number;
  readonly reply: Promise<LoadedReply>;
}

/**
 * The links the load found in its store, as the dataset in this thread holds them: the report's
 * figures of what the load left out (withdrawn, unknown) are the report's alone.
 */
function linksOf({ links }: LoadReport): LinksHeld | undefined {
  if (!links) return undefined;
  const { modified, links: count, institutions, wikidata, gnd } = links;
  return { modified: new Date(modified), links: count, institutions, wikidata, gnd };
}
