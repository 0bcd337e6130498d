// The staff endpoint's remote adapter: each query is parsed and checked in a thread of its own
// (checkWorker.ts: no update, no SERVICE, the row cap, scoped to the version served), forwarded to
// the store with a deadline through a pool of its own (the public documents' pool is not shared),
// and its answer written here in the format the client chose, cut at the caps as the embedded
// adapter cuts it. A partial "anytime" answer of the store is a time-out, never a result.
import { WorkerClient } from '../../threads/client';
import { moduleIn } from '../../threads/workerRequire';
import {
  QueryAbandoned,
  QueryFailed,
  QueryTimeout,
  reviveStaffError,
  StaffUnavailable,
  type StaffAnswer,
  type StaffQuery,
  type StaffStore,
  type WorkerState,
} from '../staff';
import type { Written } from '../staffResults';
import { StoreTimeout, StoreUnavailable } from '../store';
import type { Checked, Reply, Request } from './checkWorker';
import { SparqlClient, StoreRefused, type ClientSettings } from './sparqlClient';

const WORKER = moduleIn(__dirname, 'checkWorker');

type Lane = WorkerClient<Request, Reply>;

export interface RemoteStaffSettings {
  readonly store: Omit<ClientSettings, 'deadlineMs' | 'connections'>;
  /** Queries forwarded at once (SPARQL_WORKERS), and waiting beyond them (SPARQL_QUEUE). */
  readonly workers: number;
  readonly queue: number;
  /** A query's time limit, its check and its answer included (SPARQL_TIMEOUT_MS). */
  readonly timeoutMs: number;
}

export class RemoteStaff implements StaffStore<unknown> {
  private readonly client: SparqlClient;
  /** Threads that wait for a query: at most one a query running (SPARQL_WORKERS). */
  private readonly idle: Lane[] = [];
  private version: string | undefined;
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly settings: RemoteStaffSettings) {
    this.client = new SparqlClient({
      ...settings.store,
      connections: settings.workers,
      deadlineMs: settings.timeoutMs,
    });
  }

  /** The version the public side serves now: every query runs on it (the store holds it). */
  serve(_request: unknown, version: string): void {
    this.version = version;
  }

  workers(): readonly WorkerState[] {
    return [];
  }

  async query(request: StaffQuery, signal?: AbortSignal): Promise<StaffAnswer> {
    const version = this.version;
    if (version === undefined)
      throw new StaffUnavailable('No dataset version is served yet; try again shortly.', 5);
    const { workers, queue, timeoutMs } = this.settings;
    if (this.running >= workers && this.waiting.length >= queue)
      throw new StaffUnavailable(
        `Every query slot on the store is busy (${workers} running, ${queue} waiting); try again later.`,
        5,
      );
    const deadline = Date.now() + timeoutMs;
    if (this.running >= workers) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    const lane = this.lane();
    try {
      if (signal?.aborted) throw new QueryAbandoned('the client went away');
      const { text, accept, maxRows, maxBytes, base, defaultGraphs, namedGraphs } = request;
      const ask = { text, accept, maxRows, base, version, defaultGraphs, namedGraphs };
      const { checked, format, scoped } = (await this.inThread(
        lane,
        { op: 'check', ...ask },
        deadline,
      )) as Checked;
      const left = deadline - Date.now();
      if (left <= 0) throw new QueryTimeout(`the query ran past ${timeoutMs} ms`);
      const form = checked.form;
      const media =
        form === 'construct' || form === 'describe'
          ? 'application/n-triples'
          : 'application/sparql-results+json';
      let body: string;
      try {
        body = (await this.client.query(scoped, media, left, signal)).body;
      } catch (error) {
        if (signal?.aborted) throw new QueryAbandoned('the client went away');
        if (error instanceof StoreTimeout)
          throw new QueryTimeout(`the query ran past ${timeoutMs} ms (${error.message})`);
        if (error instanceof StoreUnavailable) throw new StaffUnavailable(error.message, 5);
        if (error instanceof StoreRefused) throw new QueryFailed(error.message.slice(0, 500));
        throw error;
      }
      const written = (await this.inThread(
        lane,
        {
          op: 'write',
          body,
          form,
          kind: format.kind,
          variables: checked.variables,
          version,
          maxRows,
          maxBytes,
        },
        deadline,
      )) as Written;
      return { ...written, contentType: format.contentType, version };
    } finally {
      if (lane.alive) this.idle.push(lane);
      this.running--;
      this.waiting.shift()?.();
    }
  }

  async close(): Promise<void> {
    this.client.close();
    await Promise.all(this.idle.splice(0).map((lane) => lane.terminate(new Error('closed'))));
  }

  /** A thread of its own for one query: an idle one, or a new one. */
  private lane(): Lane {
    const idle = this.idle.pop();
    if (idle?.alive) return idle;
    return new WorkerClient<Request, Reply>(WORKER, {
      name: 'the SPARQL query thread',
      revive: reviveStaffError,
    });
  }

  /**
   * Asks `lane` for `request` until `deadline`; past it, the thread is ended (whatever it parses or
   * writes stops) and the query is answered as timed out.
   */
  private async inThread(lane: Lane, request: Request, deadline: number): Promise<Reply> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => {
          // The time-out first: ending the thread fails what it owes at once, with its own error.
          reject(new QueryTimeout(`the query ran past ${this.settings.timeoutMs} ms`));
          void lane.terminate(new Error('stopped at the time limit'));
        },
        Math.max(1, deadline - Date.now()),
      );
    });
    try {
      return await Promise.race([lane.ask(request), late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
