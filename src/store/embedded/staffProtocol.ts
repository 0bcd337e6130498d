// What the staff pool (staffPool.ts) asks a query worker (staffWorker.ts) and what it answers.
import type { LoadOptions } from '../../load/loadSources';
import type { StaffQuery } from '../staff';

/** The version a worker loads: the sources and options the served version was loaded from. */
export interface VersionToLoad {
  readonly sources: readonly string[];
  readonly options: LoadOptions;
  /** The version served: a worker whose load reads other bytes (the file was replaced) refuses. */
  readonly version: string;
}

export type StaffRequest =
  { readonly op: 'load' } | { readonly op: 'query'; readonly query: StaffQuery };

/** The worker's own memory after each answer (heap and external, WebAssembly's included). */
export interface WorkerMemory {
  readonly heapBytes: number;
  readonly externalBytes: number;
}

export interface Loaded {
  readonly op: 'load';
  readonly triples: number;
  readonly memory: WorkerMemory;
  /** The CPU priority the thread runs at (19 on Linux: lowest). */
  readonly priority: number;
}

export interface Answered {
  readonly op: 'query';
  readonly body: string;
  readonly rows: number;
  readonly cut?: 'rows' | 'bytes';
  readonly memory: WorkerMemory;
}

export type StaffReply = Loaded | Answered;
