// The search index that follows the dataset being served. Each version's index is built in the
// background from the version's entries (readRecords.ts, through the store port) and handed in
// batches to the index's worker thread (searchWorker.ts), which indexes them beside the index it
// answers from and switches once built; the serving thread's heap holds none of it. Until the
// first is built, search answers 503 with Retry-After (and the server is not ready). A build for a
// version replaced before it finished is given up; a thread that fails is started again. The
// server builds each version's index as soon as it serves it (`eager`); elsewhere (tests) the
// first search asks for it. Questions reach the thread through a bounded queue, fair between
// clients (searchQueue.ts); a question counts as stuck by the time the thread works on it.
import type { Dataset } from '../store/dataset';
import { WorkerClient } from '../threads/client';
import { moduleIn } from '../threads/workerRequire';
import type { Candidate, ReconcileQuery } from './candidates';
import { takeRecords } from '../record/readRecords';
import type { FlatRecord } from '../record/flatRecord';
import type { SearchAnswer, SearchRequest } from './searchIndex';
import type { MadeCsv } from '../record/csv';
import type { ExportChunk, ExportSpec, ExportStarted } from './exports';
import type { FieldContext, FieldName } from '../record/fields';
import { SearchQueue, type Asker } from './searchQueue';
import type { SearchAsk, SearchReply } from './searchWorker';

/** A CSV's columns: which fields, and where URIs and pages are. */
type Columns = { readonly context: FieldContext; readonly fields: readonly FieldName[] };
const part =
  <T>(key: string) =>
  (reply: SearchReply): T =>
    (reply as unknown as Record<string, T>)[key]!;

/** How long after a failed build the next search may start another. */
const RETRY_MS = 30_000;

/**
 * How long the index's thread may work on one question before it counts as stuck and is ended:
 * far above the worst search of a million institutions (docs/search.md, Figures).
 */
const ASK_TIMEOUT_MS = 10_000;

/** How long one step of a build (a batch of entries, the index made of them) may take. */
const BUILD_TIMEOUT_MS = 60_000;

/** Who asks when the caller names no client: the service's own pages (the home page's example). */
const SERVICE: Asker = { client: 'the service' };

export interface BuildReport {
  readonly version: string;
  readonly institutions: number;
  readonly ms: number;
}

/** No index answers yet (the first is being built), or its thread failed under a question. */
export class SearchUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SearchUnavailable';
  }
}

/** An answer of the index, with the version of the index that gave it. */
export interface Searched<T> {
  readonly version: string;
  readonly value: T;
}

/** When a holder builds a version's index, and whom it tells how each build went. */
export interface SearchOptions {
  /** Whether a version's index is built as soon as it is followed, or at the first `ensure`. */
  readonly eager?: boolean;
  /** Told after each build, with what it took, or why it failed. */
  readonly onBuilt?: (report: BuildReport) => void;
  /** `answering`: the version of the index that still answers, if one does. */
  readonly onFailed?: (version: string, error: Error, answering: string | undefined) => void;
}

/** Ends `thread` as stuck after `ms`, unless the timer returned is cleared first. */
function endAfter(thread: WorkerClient<SearchAsk, SearchReply>, ms: number, what: string) {
  const why = new Error(`the search index's thread worked ${ms} ms ${what}: ended as stuck`);
  return setTimeout(() => void thread.terminate(why), ms).unref();
}

export class SearchHolder {
  private thread: WorkerClient<SearchAsk, SearchReply> | undefined;
  /** The version of the index the thread answers from. */
  private answering: string | undefined;
  private following: Dataset | undefined;
  private started: Dataset | undefined;
  /** The version whose build failed (its store down, say), and when it may be tried again. */
  private failed: { dataset: Dataset; until: number } | undefined;
  private closed = false;
  /** Whether a build is under way. */
  private buildingNow = false;
  /** The questions of all clients, in turn, before they reach the thread. */
  readonly queue = new SearchQueue();
  /** The questions the thread was handed, oldest first (it answers in order), and the watch. */
  private working: {
    thread: WorkerClient<SearchAsk, SearchReply> | undefined;
    jobs: object[];
    timer: NodeJS.Timeout | undefined;
  } = { thread: undefined, jobs: [], timer: undefined };
  /** How long the thread may work on one question before it is ended as stuck. */
  askTimeoutMs = ASK_TIMEOUT_MS;
  /** The build under way, for tests and the process to wait on. */
  building: Promise<BuildReport | undefined> = Promise.resolve(undefined);

  constructor(private readonly options: SearchOptions = {}) {}

  /** Whether the followed version's index is built (`ready`), being built, or not asked for. */
  get state(): 'ready' | 'building' | 'failed' | 'idle' {
    if (this.answering !== undefined && this.answering === this.following?.version) return 'ready';
    if (this.failed && this.failed.dataset === this.following) return 'failed';
    return this.started === this.following && this.following ? 'building' : 'idle';
  }

  /** Whether the process's first index is being built: the service is not ready until then. */
  get firstBuilding(): boolean {
    return this.options.eager === true && !this.answering && this.state === 'building';
  }

  /** The version of the index searched now, or `undefined` until the first is built. */
  get version(): string | undefined {
    return this.answering;
  }

  /** From now on, the index follows `dataset`: built in the background, switched to once built. */
  follow(dataset: Dataset): void {
    this.following = dataset;
    if (this.options.eager) void this.ensure();
  }

  /**
   * Starts building the followed version's index unless it is built or being built; one whose
   * build failed is tried again, by the next search, after `RETRY_MS`.
   */
  ensure(): Promise<BuildReport | undefined> {
    const dataset = this.following;
    if (!dataset || this.started === dataset || this.closed) return this.building;
    if (this.failed?.dataset === dataset && Date.now() < this.failed.until) return this.building;
    this.started = dataset;
    this.failed = undefined;
    const building: Promise<BuildReport | undefined> = this.build(dataset).then(
      (report) => {
        if (report) this.options.onBuilt?.(report);
        return report;
      },
      (error: Error) => {
        // A version replaced (and freed) while its index was built is not a failure.
        // Nor is a store closed under it as the process stops.
        if (
          this.building === building &&
          this.following === dataset &&
          error.name !== 'StoreClosed' &&
          !this.closed
        ) {
          this.options.onFailed?.(
            dataset.version,
            error,
            this.thread?.alive ? this.answering : undefined,
          );
          this.failed = { dataset, until: Date.now() + RETRY_MS };
          this.started = undefined;
        }
        return undefined;
      },
    );
    this.building = building;
    return this.building;
  }

  /** The version of the index answering now; unavailable until the first is built. */
  async built(): Promise<Searched<null>> {
    if (this.version === undefined || !this.thread?.alive)
      throw new SearchUnavailable('The search index is being built; try again in a few seconds.');
    return { version: this.version, value: null };
  }

  search(request: SearchRequest, asker: Asker = SERVICE): Promise<Searched<SearchAnswer>> {
    return this.ask(asker, { kind: 'search', request }, part<SearchAnswer>('answer'));
  }

  /**
   * A search's hits as CSV, made in the index's thread with its ETag: a large answer (10,000
   * rows) is neither copied to the serving thread row by row nor written there.
   */
  csv(request: SearchRequest, columns: Columns, asker = SERVICE): Promise<Searched<MadeCsv>> {
    return this.ask(asker, { kind: 'csv', request, ...columns }, part<MadeCsv>('csv'));
  }

  /** Starts a bulk export (src/search/exports.ts), read a chunk at a time with `exportNext`. */
  exportStart(spec: ExportSpec, asker: Asker = SERVICE): Promise<Searched<ExportStarted>> {
    return this.ask(asker, { kind: 'exportStart', spec }, part<ExportStarted>('started'));
  }

  exportNext(id: number, asker: Asker = SERVICE): Promise<Searched<ExportChunk>> {
    return this.ask(asker, { kind: 'exportNext', id }, part<ExportChunk>('chunk'));
  }

  /** Ends an export before its last chunk; nothing when the thread is gone. */
  async exportEnd(id: number): Promise<void> {
    const thread = this.thread;
    if (thread?.alive) await thread.ask({ kind: 'exportEnd', id }).catch(() => undefined);
  }

  /** Up to `limit` institutions for what is being typed, best first. */
  suggest(q: string, limit = 10, asker: Asker = SERVICE): Promise<Searched<readonly FlatRecord[]>> {
    return this.ask(
      asker,
      { kind: 'suggest', q, limit },
      (r) => (r as { entries: readonly FlatRecord[] }).entries,
    );
  }

  entry(isil: string, asker: Asker = SERVICE): Promise<Searched<FlatRecord | undefined>> {
    return this.ask(
      asker,
      { kind: 'entry', isil },
      (r) => (r as { entry: FlatRecord | null }).entry ?? undefined,
    );
  }

  /** The entries of `isils`, `null` for one the index does not hold (reconciliation's extend). */
  entries(isils: readonly string[], asker = SERVICE): Promise<Searched<(FlatRecord | null)[]>> {
    return this.ask(asker, { kind: 'entries', isils }, part<(FlatRecord | null)[]>('found'));
  }

  /** An institution with a place and coordinates, to show as an example. */
  example(asker: Asker = SERVICE): Promise<Searched<FlatRecord | undefined>> {
    return this.ask(
      asker,
      { kind: 'example' },
      (r) => (r as { entry: FlatRecord | null }).entry ?? undefined,
    );
  }

  /** The candidates for one reconciliation query (src/search/candidates.ts). */
  reconcile(
    query: ReconcileQuery,
    asker: Asker = SERVICE,
  ): Promise<Searched<readonly Candidate[]>> {
    return this.ask(asker, { kind: 'reconcile', query }, part<readonly Candidate[]>('candidates'));
  }

  /** Ends the index's thread; search is unavailable from now on. */
  close(): void {
    this.closed = true;
    this.following = undefined;
    this.answering = undefined;
    void this.thread?.terminate(new SearchUnavailable('the search index is closed'));
    this.thread = undefined;
  }

  /**
   * Asks the thread once it is `asker`'s turn (SearchBusy when the queue is full, ClientGone when
   * the client leaves first); unavailable while no index answers, checked before and after waiting.
   */
  private async ask<T>(
    asker: Asker,
    ask: SearchAsk,
    value: (reply: SearchReply) => T,
  ): Promise<Searched<T>> {
    await this.built();
    const done = await this.queue.turn(asker);
    try {
      const thread = this.thread;
      if (this.answering === undefined || !thread?.alive)
        throw new SearchUnavailable('The search index is being built; try again in a few seconds.');
      let reply: SearchReply;
      try {
        reply = await this.worked(thread, ask);
      } catch (error) {
        if (thread.alive) throw error;
        this.lost(thread, error as Error);
        throw new SearchUnavailable(
          `The search index is being built again: ${(error as Error).message}`,
        );
      }
      return { version: reply!.version, value: value(reply) };
    } finally {
      done();
    }
  }

  /**
   * `ask` answered by `thread`, watched: the thread answers questions in the order it was handed
   * them, so the oldest unanswered one is the one it works on, and only that one's time is
   * counted. Past `askTimeoutMs` the thread is ended as stuck.
   */
  private async worked(
    thread: WorkerClient<SearchAsk, SearchReply>,
    ask: SearchAsk,
  ): Promise<SearchReply> {
    if (this.working.thread !== thread) {
      clearTimeout(this.working.timer);
      this.working = { thread, jobs: [], timer: undefined };
    }
    const working = this.working;
    const job = {};
    working.jobs.push(job);
    if (working.jobs.length === 1) this.watch(working);
    try {
      return await thread.ask(ask);
    } finally {
      const first = working.jobs[0] === job;
      working.jobs.splice(working.jobs.indexOf(job), 1);
      if (first) this.watch(working);
    }
  }

  private watch(working: SearchHolder['working']): void {
    clearTimeout(working.timer);
    working.timer = undefined;
    if (working.jobs.length === 0 || !working.thread) return;
    working.timer = endAfter(working.thread, this.askTimeoutMs, 'on one question');
  }

  /** A step of a build, which has the thread to itself and a deadline of its own. */
  private async step(
    thread: WorkerClient<SearchAsk, SearchReply>,
    ask: SearchAsk,
  ): Promise<SearchReply> {
    const timer = endAfter(thread, BUILD_TIMEOUT_MS, "on a build's step");
    try {
      return await thread.ask(ask);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The index's thread, started when there is none (the first build, or after one failed). */
  private threadNow(): WorkerClient<SearchAsk, SearchReply> {
    if (this.thread?.alive) return this.thread;
    const thread: WorkerClient<SearchAsk, SearchReply> = new WorkerClient(
      moduleIn(__dirname, 'searchWorker'),
      {
        name: "the search index's thread",
        // After its build the thread allocates little (a query's results): a small young
        // generation keeps its heap nearer the index's own size than V8's default
        // (docs/benchmark.md, "the search thread's young generation").
        resourceLimits: { maxYoungGenerationSizeMb: 8 },
        onEnd: (error) => this.lost(thread, error),
      },
    );
    this.thread = thread;
    return thread;
  }

  /**
   * The index's thread failed, or was ended as stuck: its index is gone with it, and search is
   * unavailable until the version served is built again, in a new thread (at once when `eager`,
   * else by the next search).
   */
  private lost(thread: WorkerClient<SearchAsk, SearchReply>, error: Error): void {
    if (this.thread !== thread || this.closed) return;
    this.thread = undefined;
    this.answering = undefined;
    // A build under way in that thread fails with it, and says so itself.
    if (this.buildingNow) return;
    this.started = undefined;
    const dataset = this.following;
    if (!dataset) return;
    this.options.onFailed?.(dataset.version, error, undefined);
    if (this.options.eager) void this.ensure();
  }

  private async build(dataset: Dataset): Promise<BuildReport | undefined> {
    this.buildingNow = true;
    try {
      return await this.buildIn(dataset);
    } finally {
      this.buildingNow = false;
    }
  }

  private async buildIn(dataset: Dataset): Promise<BuildReport | undefined> {
    const started = Date.now();
    // The same data again (a reload of an unchanged snapshot): the index is the same.
    if (this.answering === dataset.version && this.thread?.alive) return undefined;
    const thread = this.threadNow();
    const { version } = dataset;
    const wanted = () => this.following === dataset && this.thread === thread;
    await this.step(thread, { kind: 'begin', version });
    const read = await takeRecords(
      dataset,
      async (entries) => void (await this.step(thread, { kind: 'add', version, entries })),
      wanted,
    );
    if (!read) return undefined;
    const reply = (await this.step(thread, { kind: 'finish', version })) as {
      institutions: number;
    };
    if (this.thread !== thread) return undefined;
    this.answering = version;
    if (!wanted()) return undefined;
    return { version, institutions: reply.institutions, ms: Date.now() - started };
  }
}
