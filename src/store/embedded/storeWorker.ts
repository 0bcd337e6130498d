// A store's own thread (see storeThread.ts): it loads one dataset with the loader's code, keeps
// its store and runs the describe queries, answering describes between the slices of the load. It
// is never asked to free the store: the HTTP thread terminates it instead.
import { compactStates } from '../../history/canonical';
import { loadServed } from '../../load/servedSnapshot';
import { serve } from '../../threads/serve';
import type { DatasetStore } from './datasetStore';
import { checkedIri } from '../queries';
import type { LoadedReply, Reply, Request } from './storeProtocol';

/** Index rows are sent as JSON text in pieces of this many rows: strings cross threads cheaply. */
const ROWS_PER_PIECE = 500;

/** The store this thread loaded, once its load succeeded. */
let store: DatasetStore | undefined;
let loading = false;

async function load({ sources, options }: Extract<Request, { op: 'load' }>): Promise<LoadedReply> {
  if (loading || store) throw new Error('a store thread loads one dataset only');
  loading = true;
  const { dataset, report, rows } = await loadServed(sources, options);
  store = dataset.store;
  const pieces: string[] = [];
  for (let at = 0; at < rows.length; at += ROWS_PER_PIECE)
    pieces.push(JSON.stringify(rows.slice(at, at + ROWS_PER_PIECE)));
  return {
    report,
    rows: pieces,
    states: JSON.stringify(compactStates(dataset.states ?? new Map())),
    logVersion: dataset.logVersion,
    ...(dataset.positions && { positions: [...dataset.positions] }),
  };
}

function describe(iri: string): string {
  if (!store) throw new Error('this thread has no store loaded');
  // Checked again on this side of the thread boundary: only a checked IRI becomes query text.
  return store.describe(checkedIri(iri));
}

serve<Request, Reply>((request) =>
  request.op === 'describe' ? describe(request.iri) : load(request),
);
