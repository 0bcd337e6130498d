// The parts of the staff pool (staffPool.ts): a worker thread with the query it runs (`QueryWorker`),
// and the workers of one dataset version with the dump they load from (`Generation`), which outlives
// them while the version is served: a worker woken after idle time loads it again.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkerClient } from '../../threads/client';
import { moduleIn } from '../../threads/workerRequire';
import {
  reviveStaffError,
  StaffUnavailable,
  type StaffAnswer,
  type StaffQuery,
  type WorkerState,
} from '../staff';
import type { StaffReply, StaffRequest, VersionToLoad, WorkerMemory } from './staffProtocol';

const WORKER = moduleIn(__dirname, 'staffWorker');

/** A query waiting for a worker, or running on one. */
export interface Job {
  readonly query: StaffQuery;
  readonly resolve: (answer: StaffAnswer) => void;
  readonly reject: (error: Error) => void;
  readonly waiting: NodeJS.Timeout;
  /** The worker running it, once it runs. */
  lane?: QueryWorker;
}

/**
 * A new file in the temporary folder, open for reading and writing and already unlinked: nothing
 * is left on disk whatever ends the process (SIGKILL included), and the blocks are freed when the
 * descriptor is closed. Where an open file cannot be unlinked (not Linux), it is removed now or
 * never written.
 */
export function openUnlinked(): number {
  const file = path.join(
    os.tmpdir(),
    `isil-ld-sparql-${process.pid}-${crypto.randomBytes(6).toString('hex')}.nq`,
  );
  const fd = fs.openSync(file, 'wx+', 0o600);
  try {
    fs.unlinkSync(file);
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
  return fd;
}

export class QueryWorker {
  readonly client: WorkerClient<StaffRequest, StaffReply>;
  state: WorkerState['state'] = 'loading';
  memory: WorkerMemory | undefined;
  priority: number | undefined;
  policy: string | undefined;
  /** The query it runs, while busy. */
  job: Job | undefined;
  /** Ends it when it stays idle for the idle time (SPARQL_IDLE_SECONDS). */
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly generation: Generation,
    onEnd: (lane: QueryWorker, error: Error) => void,
  ) {
    const { version, dump } = generation;
    this.client = new WorkerClient<StaffRequest, StaffReply>(WORKER, {
      name: 'a SPARQL worker',
      workerData: dump === undefined ? version : { ...version, from: dump },
      revive: reviveStaffError,
      onEnd: (error) => onEnd(this, error),
    });
  }

  /** It runs a query (or is ending): its idle time stops. */
  busy(): void {
    clearTimeout(this.idleTimer);
    this.state = 'busy';
  }

  /**
   * It waits for a query: after `seconds` without one it leaves its generation and ends (the
   * generation keeps its dump, from which the next query starts a worker); undefined: never.
   */
  restFor(seconds: number | undefined): void {
    clearTimeout(this.idleTimer);
    if (seconds === undefined) return;
    this.idleTimer = setTimeout(() => {
      if (this.state !== 'idle' || !this.generation.lanes.delete(this)) return;
      void this.client.terminate(new Error(`ended: no query for ${seconds} s`));
    }, seconds * 1000);
    // An idle worker keeps no process alive (a test's, say) for its idle time.
    this.idleTimer.unref();
  }
}

export class Generation {
  readonly lanes = new Set<QueryWorker>();
  /** Why its workers cannot load the version (the sources changed, say): set once. */
  failed: Error | undefined;
  /** Workers that ended by themselves since one last loaded: a bound on restarting them. */
  crashes = 0;
  /** The descriptor of the N-Quads the first worker dumped, which later ones load: once written. */
  dump: number | undefined;
  /** Whether a worker is writing them. */
  dumping = false;
  /** Whether a worker of it loaded the version once: it can answer, now or once woken. */
  loaded = false;

  constructor(
    readonly number: number,
    readonly version: VersionToLoad,
  ) {}

  /** A worker of it can answer now. */
  get answering(): boolean {
    for (const lane of this.lanes) if (lane.state !== 'loading') return true;
    return false;
  }

  /** Whether a worker of it is loading the version. */
  get starting(): boolean {
    for (const lane of this.lanes) if (lane.state === 'loading') return true;
    return false;
  }
}

/**
 * Why a query waited `timeoutMs` for a worker in vain: every worker busy, or none of `generations`
 * able to answer yet, as after a start, a reload or idle time, while they load the version.
 */
export function noWorkerWithin(
  timeoutMs: number,
  generations: readonly Generation[],
  retryAfter: number,
): StaffUnavailable {
  if (generations.some((g) => g.answering))
    return new StaffUnavailable(
      `No SPARQL worker became free within ${timeoutMs} ms; try again later.`,
      retryAfter,
    );
  return new StaffUnavailable(
    `The SPARQL workers are loading the data served and could not answer within ${timeoutMs} ms (SPARQL_TIMEOUT_MS); try again shortly.`,
    retryAfter,
  );
}
