// What the staff pool (staffPool.ts) asks a query worker (staffWorker.ts) and what it answers.
import type { LoadOptions } from '../../load/loadSources';
import type { StaffQuery } from '../staff';

/** The version a worker loads: the sources and options the served version was loaded from. */
export interface VersionToLoad {
  readonly sources: readonly string[];
  readonly options: LoadOptions;
  /** The version served: a worker whose load reads other bytes (the file was replaced) refuses. */
  readonly version: string;
  /**
   * The descriptor of the file of N-Quads a worker of this version dumped (worker threads share
   * the process's descriptors): a fresh worker loads them instead of the sources (Oxigraph's parser
   * alone, no loader, no index: a few seconds of one thread, little garbage).
   */
  readonly from?: number;
}

export type StaffRequest =
  | { readonly op: 'load' }
  | { readonly op: 'dump'; readonly fd: number }
  | { readonly op: 'query'; readonly query: StaffQuery };

/** The worker's own memory after each answer (heap and external, WebAssembly's included). */
export interface WorkerMemory {
  readonly heapBytes: number;
  readonly externalBytes: number;
}

export interface Loaded {
  readonly op: 'load';
  readonly memory: WorkerMemory;
  /** The CPU priority the thread runs at (19 on Linux: lowest). */
  readonly priority: number;
  /** Its scheduling policy: `idle` (SCHED_IDLE) where it could set it, else `other`. */
  readonly policy: string;
}

export interface Answered {
  readonly op: 'query';
  readonly body: string;
  readonly contentType: string;
  readonly rows: number;
  readonly cut?: 'rows' | 'bytes';
  readonly memory: WorkerMemory;
}

export interface Dumped {
  readonly op: 'dump';
  readonly bytes: number;
}

export type StaffReply = Loaded | Answered | Dumped;
