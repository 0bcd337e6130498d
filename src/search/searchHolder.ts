// The search index that follows the dataset being served (issue 18). Each new version's index is
// built in the background: the entries are made here from the version's own descriptions, read
// through the store port (the same for every adapter) a few at a time so that serving goes first,
// and handed in batches to the index's worker thread (searchWorker.ts), which indexes them beside
// the index it answers from and switches to the new one once built. The index lives in that thread
// so that the serving thread's heap, walked by its collector while documents are served, holds
// none of it. Until the first is built, search is unavailable (503 with Retry-After). A build for
// a version replaced before it finished is given up. A thread that fails is started again, and the
// version served built again in it. The server builds each version's index as soon as it serves it
// (`eager`); elsewhere (tests) the first search asks for it.
import type { Dataset } from '../store/dataset';
import { WorkerClient } from '../threads/client';
import { moduleIn } from '../threads/workerRequire';
import { searchEntry, type SearchEntry } from './entry';
import type { Candidate, ReconcileQuery } from './reconcile';
import type { SearchAnswer, SearchRequest } from './searchIndex';
import type { SearchAsk, SearchReply } from './searchWorker';

/** How long after a failed build the next search may start another. */
const RETRY_MS = 30_000;

/** Descriptions read at once while building: leaves the store's thread free for requests. */
const IN_FLIGHT = 4;

/** Entries handed to the index's thread in one message. */
const BATCH = 500;

/** How long one question to the index's thread may take before the thread counts as stuck. */
const ASK_TIMEOUT_MS = 60_000;

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
  readonly onFailed?: (version: string, error: Error) => void;
}

/**
 * The search entries of `dataset`'s institutions, read through the store port `IN_FLIGHT` at a
 * time and handed on `BATCH` at a time; stops early, returning false, once `wanted` says so.
 */
export async function readEntries(
  dataset: Dataset,
  hand: (entries: SearchEntry[]) => Promise<void> | void,
  wanted: () => boolean = () => true,
): Promise<boolean> {
  const institutions = [...dataset.institutions()];
  for (let at = 0; at < institutions.length; at += BATCH) {
    const slice = institutions.slice(at, at + BATCH);
    const entries: SearchEntry[] = new Array(slice.length);
    let next = 0;
    const reader = async () => {
      while (next < slice.length && wanted()) {
        const i = next++;
        const { isil } = slice[i]!;
        entries[i] = searchEntry(isil, await dataset.describe(slice[i]!));
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, reader));
    if (!wanted()) return false;
    await hand(entries);
  }
  return wanted();
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
  /** The build under way, for tests and the process to wait on. */
  building: Promise<BuildReport | undefined> = Promise.resolve(undefined);

  constructor(private readonly options: SearchOptions = {}) {}

  /** Whether the followed version's index is built (`ready`), being built, or not asked for. */
  get state(): 'ready' | 'building' | 'failed' | 'idle' {
    if (this.answering !== undefined && this.answering === this.following?.version) return 'ready';
    if (this.failed && this.failed.dataset === this.following) return 'failed';
    return this.started === this.following && this.following ? 'building' : 'idle';
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
          this.options.onFailed?.(dataset.version, error);
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

  search(request: SearchRequest): Promise<Searched<SearchAnswer>> {
    return this.ask({ kind: 'search', request }, (r) => (r as { answer: SearchAnswer }).answer);
  }

  /** Up to `limit` institutions for what is being typed, best first. */
  suggest(q: string, limit = 10): Promise<Searched<readonly SearchEntry[]>> {
    return this.ask(
      { kind: 'suggest', q, limit },
      (r) => (r as { entries: readonly SearchEntry[] }).entries,
    );
  }

  entry(isil: string): Promise<Searched<SearchEntry | undefined>> {
    return this.ask(
      { kind: 'entry', isil },
      (r) => (r as { entry: SearchEntry | null }).entry ?? undefined,
    );
  }

  /** An institution with a place and coordinates, to show as an example. */
  example(): Promise<Searched<SearchEntry | undefined>> {
    return this.ask(
      { kind: 'example' },
      (r) => (r as { entry: SearchEntry | null }).entry ?? undefined,
    );
  }

  /** The candidates for one reconciliation query (src/search/reconcile.ts). */
  reconcile(query: ReconcileQuery): Promise<Searched<readonly Candidate[]>> {
    return this.ask(
      { kind: 'reconcile', query },
      (r) => (r as { candidates: readonly Candidate[] }).candidates,
    );
  }

  /** Ends the index's thread; search is unavailable from now on. */
  close(): void {
    this.closed = true;
    this.following = undefined;
    this.answering = undefined;
    void this.thread?.terminate(new SearchUnavailable('the search index is closed'));
    this.thread = undefined;
  }

  private async ask<T>(ask: SearchAsk, value: (reply: SearchReply) => T): Promise<Searched<T>> {
    const thread = this.thread;
    if (this.answering === undefined || !thread?.alive)
      throw new SearchUnavailable('The search index is being built; try again in a few seconds.');
    let reply: SearchReply;
    try {
      reply = await thread.ask(ask);
    } catch (error) {
      if (thread.alive) throw error;
      this.lost(thread, error as Error);
      throw new SearchUnavailable(
        `The search index is being built again: ${(error as Error).message}`,
      );
    }
    return { version: reply!.version, value: value(reply) };
  }

  /** The index's thread, started when there is none (the first build, or after one failed). */
  private threadNow(): WorkerClient<SearchAsk, SearchReply> {
    if (this.thread?.alive) return this.thread;
    const thread: WorkerClient<SearchAsk, SearchReply> = new WorkerClient(
      moduleIn(__dirname, 'searchWorker'),
      {
        name: "the search index's thread",
        timeoutMs: ASK_TIMEOUT_MS,
        // After its build the thread allocates little (a query's results): a small young
        // generation keeps its heap near the index's own size (103 against 128 MB here, the
        // index of the bench's 17,000 institutions, with V8's default).
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
    this.options.onFailed?.(dataset.version, error);
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
    await thread.ask({ kind: 'begin', version });
    const read = await readEntries(
      dataset,
      async (entries) => void (await thread.ask({ kind: 'add', version, entries })),
      wanted,
    );
    if (!read) return undefined;
    const reply = (await thread.ask({ kind: 'finish', version })) as { institutions: number };
    if (this.thread !== thread) return undefined;
    this.answering = version;
    if (!wanted()) return undefined;
    return { version, institutions: reply.institutions, ms: Date.now() - started };
  }
}
