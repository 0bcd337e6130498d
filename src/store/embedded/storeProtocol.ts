// The messages between the HTTP thread and a store's thread (storeThread.ts, storeWorker.ts).
import { LoadError } from '../../load/loadError';
import type { LoadOptions, LoadReport } from '../../load/loadSources';

/**
 * A thread loads once, then answers describe queries of the store it loaded; it is not asked to
 * free it: the HTTP thread terminates it, which releases its memory at once.
 */
export type Request =
  | {
      readonly op: 'load';
      readonly id: number;
      readonly sources: readonly string[];
      readonly options: LoadOptions;
    }
  | { readonly op: 'describe'; readonly id: number; readonly iri: string };

/** A load's result: the report, and the index rows as JSON pieces. */
export interface LoadedReply {
  readonly report: LoadReport;
  readonly rows: readonly string[];
}

/**
 * What one message carries: requests go as a batch, in order (the HTTP thread sends those of one
 * turn of its event loop together), and so do the answers the worker has ready at once. Under
 * load, a message per request cost about as much as the rest of the request beside the query.
 */
export type Batch<T> = readonly T[];

export type Reply = { readonly id: number } & (
  { readonly loaded: LoadedReply } | { readonly text: string } | { readonly error: WireError }
);

/** An error as it crosses the thread boundary: a LoadError keeps where the file breaks. */
export interface WireError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  /** A system error's code (`ENOENT`, `EACCES`): what an operator looks for in the log. */
  readonly code?: string;
  readonly load?: {
    readonly file: string;
    readonly line: number | undefined;
    readonly column: number | undefined;
    readonly reason: string;
  };
}

export function toWire(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const { code } = error as { code?: unknown };
  const coded = typeof code === 'string' ? { code } : {};
  if (error instanceof LoadError) {
    const { name, message, file, line, column, reason } = error;
    return { name, message, ...coded, load: { file, line, column, reason } };
  }
  return { name: error.name, message: error.message, stack: error.stack, ...coded };
}

/** The error again, on the receiving side: a LoadError as it was thrown; codes kept. */
export function fromWire(wire: WireError): Error {
  if (wire.load) {
    const { file, line, column, reason } = wire.load;
    const error: LoadError & { code?: string } = new LoadError(file, line, column, reason);
    // A subclass arrives as a LoadError that keeps the subclass's name.
    error.name = wire.name;
    if (wire.code) error.code = wire.code;
    return error;
  }
  const error: NodeJS.ErrnoException = new Error(wire.message);
  error.name = wire.name;
  if (wire.stack) error.stack = wire.stack;
  if (wire.code) error.code = wire.code;
  return error;
}
