// The messages of every worker thread of the project (the stores, the SHACL engines): requests
// and answers carry an id, and cross in batches (see `WorkerClient.send`).
import type { WireError } from './wire';

export interface Asking<Q> {
  readonly id: number;
  readonly request: Q;
}

export type Answer<A> = { readonly id: number } & (
  { readonly answer: A } | { readonly error: WireError }
);

/**
 * What one message carries: requests go as a batch, in order (those of one turn of the asking
 * thread's event loop together), and so do the answers the worker has ready at once. Under load,
 * a message per request cost the store's clients about as much as the rest of a request beside
 * its query.
 */
export type Batch<T> = readonly T[];
