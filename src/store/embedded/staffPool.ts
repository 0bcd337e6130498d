// The staff queries' workers: a pool of threads, each with its own store of the served version,
// so that a heavy query can neither hold the HTTP thread nor the store the public routes read.
// A version is a generation of workers. A reload starts a fresh generation; the workers of an
// older one end once a newer one can answer and they have answered what they were running. A
// query past the time limit is stopped for real: its worker is terminated (Oxigraph cannot cancel
// a query) and a fresh one takes its place, as does one whose memory grew past the bound. A worker
// idle for the idle time ends; the next query starts one from the version's dump and waits for it.
import fs from 'node:fs';
import type { LoadRequest } from '../../load/loadSources';
import { QueryRefused } from '../staffQuery';
import {
  CannotWrite,
  NoFormatAccepted,
  QueryAbandoned,
  QueryFailed,
  QueryTimeout,
  StaffUnavailable,
  type StaffAnswer,
  type StaffQuery,
  type StaffStore,
  type WorkerState,
} from '../staff';
import type { Answered, Loaded, VersionToLoad } from './staffProtocol';
import { Generation, QueryWorker, noWorkerWithin, openUnlinked, type Job } from './staffLanes';

/** What a worker throws on purpose about a query: the worker stays as it was. */
const REFUSALS = [QueryFailed, CannotWrite, QueryRefused, NoFormatAccepted];

/** No generation can load its version (the sources changed since, say). */
const unloadable = (failed: Error | undefined) =>
  new StaffUnavailable(
    `The endpoint's copy of the data could not be loaded: ${failed?.message}`,
    60,
  );

export interface PoolSettings {
  readonly workers: number;
  readonly timeoutMs: number;
  readonly workerMemoryBytes: number;
  /** Queries waiting for a worker, at most. */
  readonly queue: number;
  /** A worker without a query for this long ends (SPARQL_IDLE_SECONDS); undefined: never. */
  readonly idleSeconds?: number;
}

/** What the pool tells the process's log. */
export interface PoolEvents {
  failed(version: string, error: Error): void;
  replaced(version: string, why: string): void;
}

export class StaffPool implements StaffStore<LoadRequest> {
  private readonly generations: Generation[] = [];
  private readonly queue: Job[] = [];
  private numbers = 0;
  private closed = false;

  constructor(
    private readonly settings: PoolSettings,
    private readonly events: PoolEvents = { failed: () => undefined, replaced: () => undefined },
  ) {}

  /** Starts a generation of workers on the version `served`, loaded as `request` says; the older ones end once it can answer. */
  serve({ sources, options }: LoadRequest, served: string): void {
    if (this.closed) return;
    const version: VersionToLoad = { sources, options, version: served };
    const newest = this.generations.at(-1);
    // The same bytes again (a reload of an unchanged snapshot): the workers have them already.
    if (
      newest?.version.version === version.version &&
      !newest.failed &&
      (newest.lanes.size > 0 || newest.loaded)
    )
      return;
    // Nobody queried for the idle time and every worker ended: the next query starts one.
    const asleep =
      this.generations.some((g) => g.loaded) && this.generations.every((g) => g.lanes.size === 0);
    const generation = new Generation(++this.numbers, version);
    this.generations.push(generation);
    // One worker loads the sources and dumps its store; the others load that dump (see `loaded`).
    if (!asleep) this.start(generation);
  }

  query(query: StaffQuery, signal?: AbortSignal): Promise<StaffAnswer> {
    if (signal?.aborted) return Promise.reject(new QueryAbandoned('The client went away.'));
    const newest = this.generations.at(-1);
    if (this.closed) return Promise.reject(new StaffUnavailable('The service is stopping.', 5));
    if (newest === undefined)
      return Promise.reject(new StaffUnavailable('The dataset is not loaded yet.', 5));
    if (this.hopeless()) return Promise.reject(unloadable(newest.failed));
    if (this.queue.length >= this.settings.queue && !this.idleLane())
      return Promise.reject(
        new StaffUnavailable(
          `Every SPARQL worker is busy and ${this.settings.queue} queries are waiting; try again later.`,
          this.retryAfter,
        ),
      );
    return new Promise<StaffAnswer>((resolve, reject) => {
      const job: Job = {
        query,
        resolve,
        reject,
        waiting: setTimeout(() => {
          const at = this.queue.indexOf(job);
          if (at < 0) return;
          this.queue.splice(at, 1);
          reject(noWorkerWithin(this.settings.timeoutMs, this.generations, this.retryAfter));
        }, this.settings.timeoutMs),
      };
      signal?.addEventListener('abort', () => this.abandon(job), { once: true });
      this.queue.push(job);
      this.dispatch();
      this.wake();
    });
  }

  /** The client of `job` went away: out of the queue, or its worker stopped and replaced. */
  private abandon(job: Job): void {
    const why = new QueryAbandoned('The client went away.');
    const at = this.queue.indexOf(job);
    if (at >= 0) {
      this.queue.splice(at, 1);
      clearTimeout(job.waiting);
      job.reject(why);
      return;
    }
    const { lane } = job;
    if (lane === undefined || lane.state !== 'busy' || lane.job !== job) return;
    void lane.client.terminate(why);
    this.drop(lane, 'its client went away during a query');
  }

  /** Every worker, for /readyz and the bench. */
  workers(): WorkerState[] {
    return this.generations.flatMap((g) =>
      [...g.lanes].map((lane) => ({
        version: g.version.version,
        threadId: lane.client.worker.threadId,
        state: lane.state,
        ...(lane.priority === undefined ? {} : { priority: lane.priority }),
        ...(lane.policy === undefined ? {} : { policy: lane.policy }),
        ...(lane.memory === undefined ? {} : { memory: lane.memory }),
      })),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    const why = new StaffUnavailable('The service is stopping.', 5);
    for (const job of this.queue.splice(0)) {
      clearTimeout(job.waiting);
      job.reject(why);
    }
    const generations = this.generations.splice(0);
    const lanes = generations.flatMap((g) => [...g.lanes]);
    for (const lane of lanes) lane.busy();
    await Promise.all(lanes.map((lane) => lane.client.terminate(why)));
    for (const generation of generations) {
      generation.lanes.clear();
      this.forget(generation);
    }
  }

  private get retryAfter(): number {
    return Math.max(1, Math.ceil(this.settings.timeoutMs / 1000));
  }

  /** The newest generation that can answer, now or once a worker of it is woken from its dump. */
  private serving(): Generation | undefined {
    for (let i = this.generations.length - 1; i >= 0; i--) {
      const generation = this.generations[i]!;
      if (generation.answering || (generation.loaded && !generation.failed)) return generation;
    }
    return undefined;
  }

  /** No generation can answer, nor ever will: each failed to load its version. */
  private hopeless = () => this.generations.every((g) => g.failed && !g.answering);

  /**
   * Starts the workers the waiting queries need, up to the pool's size: in the newest generation
   * (the version served), else the one that serves. Without its dump yet, a generation loads the
   * sources in one worker only; the rest start from the dump it writes (see `loaded`).
   */
  private wake(): void {
    if (this.closed || this.queue.length === 0) return;
    const newest = this.generations.at(-1);
    const generation = newest && !newest.failed ? newest : this.serving();
    // Workers that keep dying before they load are not started for ever (see `drop`).
    if (!generation || generation.crashes > this.settings.workers * 3) return;
    if (generation.dump === undefined && generation.lanes.size > 0) return;
    const starting = [...generation.lanes].filter((lane) => lane.state === 'loading').length;
    const wanted = Math.min(
      this.settings.workers - generation.lanes.size,
      this.queue.length - starting,
    );
    for (let i = 0; i < wanted; i++) this.start(generation);
  }

  private idleLane(): QueryWorker | undefined {
    const generation = this.serving();
    if (!generation) return undefined;
    for (const lane of generation.lanes) if (lane.state === 'idle') return lane;
    return undefined;
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const lane = this.idleLane();
      if (!lane) return;
      const job = this.queue.shift()!;
      clearTimeout(job.waiting);
      this.run(lane, job);
    }
  }

  private run(lane: QueryWorker, job: Job): void {
    lane.busy();
    lane.job = job;
    job.lane = lane;
    const { timeoutMs } = this.settings;
    const timer = setTimeout(() => {
      void lane.client.terminate(
        new QueryTimeout(
          `The query ran longer than the limit of ${timeoutMs} ms (SPARQL_TIMEOUT_MS) and was stopped.`,
        ),
      );
      this.drop(lane, 'a query ran past the time limit');
    }, timeoutMs);
    lane.client.ask({ op: 'query', query: job.query }).then(
      (reply) => {
        clearTimeout(timer);
        const { body, contentType, rows, cut, memory } = reply as Answered;
        lane.memory = memory;
        job.resolve({
          contentType,
          body,
          rows,
          ...(cut ? { cut } : {}),
          version: lane.generation.version.version,
        });
        this.done(lane);
      },
      (error: Error) => {
        clearTimeout(timer);
        job.reject(error);
        // Ended by this side (time-out, client gone) or by itself: `drop` has replaced it already.
        if (!lane.client.alive) return;
        // A refusal the worker made on purpose leaves it as it was; anything else it threw may
        // have left its WebAssembly in a bad state (a panic poisons the module): it is replaced,
        // never left busy for ever.
        if (REFUSALS.some((refusal) => error instanceof refusal)) this.done(lane);
        else {
          void lane.client.terminate(error);
          this.drop(lane, `its query failed unexpectedly: ${error.message}`);
        }
      },
    );
  }

  /**
   * A worker answered: it takes the next query, or ends when it is old or its memory grew past the
   * bound in a query (a bound below what a fresh worker holds would only replace it for ever).
   */
  private done(lane: QueryWorker, answered = true): void {
    const memory = lane.memory ? lane.memory.externalBytes + lane.memory.heapBytes : 0;
    if (answered && memory > this.settings.workerMemoryBytes) {
      void lane.client.terminate(new Error('replaced: its memory grew past the bound'));
      this.drop(lane, `its memory grew to ${Math.round(memory / 1024 ** 2)} MB, past the bound`);
      return;
    }
    lane.state = 'idle';
    lane.job = undefined;
    lane.generation.loaded = true;
    lane.restFor(this.settings.idleSeconds);
    this.retireOld();
    this.dispatch();
    this.wake();
  }

  private start(generation: Generation): void {
    const lane = new QueryWorker(generation, (ended, error) => {
      // The thread ended by itself (it crashed, or ran out of memory): whatever it owed failed.
      generation.crashes++;
      this.drop(ended, `it stopped: ${error.message}`);
    });
    generation.lanes.add(lane);
    lane.client.ask({ op: 'load' }).then(
      (reply) => {
        const { memory, priority, policy } = reply as Loaded;
        lane.memory = memory;
        lane.priority = priority;
        lane.policy = policy;
        generation.crashes = 0;
        void this.loaded(lane);
      },
      (error: Error) => {
        // A stop ends the workers that load: nothing failed.
        if (this.closed || !generation.lanes.has(lane)) return;
        generation.lanes.delete(lane);
        void lane.client.terminate(error);
        generation.failed ??= error;
        this.events.failed(generation.version.version, error);
        this.failQueuedIfHopeless();
      },
    );
  }

  /**
   * A worker loaded its version. The first of a generation dumps its store to a file of the
   * temporary folder, and the rest of the generation's workers start from that dump: a worker
   * replaced after a time-out then costs Oxigraph's parser a few seconds of one idle-priority
   * thread, where loading the sources again ran the loader and its garbage collection, whose V8
   * helper threads run at normal priority beside the public path (docs/benchmark.md, "staff
   * workers from a dump").
   */
  private async loaded(lane: QueryWorker): Promise<void> {
    const { generation } = lane;
    if (generation.dump === undefined && !generation.dumping) {
      generation.dumping = true;
      let fd: number | undefined;
      try {
        fd = openUnlinked();
        await lane.client.ask({ op: 'dump', fd });
        generation.dump = fd;
      } catch (error) {
        if (fd !== undefined) fs.closeSync(fd);
        if (!this.closed)
          this.events.replaced(
            generation.version.version,
            `its dump could not be written: ${(error as Error).message}`,
          );
      } finally {
        generation.dumping = false;
      }
      if (!generation.lanes.has(lane) || this.closed) return this.forget(generation);
      // The rest of the generation, unless a newer version came meanwhile: this one only serves
      // until that one's first worker is ready.
      if (this.generations.at(-1) === generation)
        for (let i = generation.lanes.size; i < this.settings.workers; i++) this.start(generation);
    }
    this.done(lane, false);
  }

  /**
   * Closes the dump of a generation that has no worker left and is no longer served (a served one
   * keeps it for the workers woken after idle time): the kernel frees its blocks.
   */
  private forget(generation: Generation): void {
    if (generation.lanes.size > 0 || generation.dump === undefined) return;
    if (this.generations.includes(generation)) return;
    fs.closeSync(generation.dump);
    generation.dump = undefined;
  }

  /** Takes `lane` out of its generation and starts a fresh worker in its place while it serves. */
  private drop(lane: QueryWorker, why: string): void {
    const { generation } = lane;
    if (!generation.lanes.delete(lane)) return;
    const current = this.generations.at(-1) === generation;
    // A generation whose workers keep dying before they load does not start them for ever.
    if (current && !this.closed && generation.crashes <= this.settings.workers * 3) {
      this.events.replaced(generation.version.version, why);
      this.start(generation);
    }
    this.retireOld();
  }

  /** Ends the workers of generations older than the newest that can answer, once each is idle. */
  private retireOld(): void {
    const serving = this.serving();
    if (!serving) return;
    for (let i = 0; i < this.generations.length;) {
      const generation = this.generations[i]!;
      if (generation.number >= serving.number) break;
      for (const lane of [...generation.lanes])
        if (lane.state !== 'busy') {
          generation.lanes.delete(lane);
          void lane.client.terminate(new Error('replaced by a newer version'));
        }
      if (generation.lanes.size === 0) {
        this.generations.splice(i, 1);
        this.forget(generation);
      } else i++;
    }
  }

  /** Queued queries fail at once when no generation can ever answer them; else workers wake. */
  private failQueuedIfHopeless(): void {
    const newest = this.generations.at(-1);
    if (!newest?.failed || !this.hopeless()) return this.wake();
    const why = unloadable(newest.failed);
    for (const job of this.queue.splice(0)) {
      clearTimeout(job.waiting);
      job.reject(why);
    }
  }
}
