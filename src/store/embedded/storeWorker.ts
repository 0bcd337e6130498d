// A store's own thread (see storeThread.ts): it loads one dataset with the loader's code, keeps
// its store and runs the describe queries, one message at a time, answering describes between the
// slices of the load. It is never asked to free the store: the HTTP thread terminates it instead.
import { parentPort } from 'node:worker_threads';
import { loadSources } from '../../load/loadSources';
import type { DatasetStore } from './datasetStore';
import { checkedIri } from '../queries';
import { toWire, type Batch, type Reply, type Request } from './storeProtocol';

/** Index rows are sent as JSON text in pieces of this many rows: strings cross threads cheaply. */
const ROWS_PER_PIECE = 500;

const port = parentPort;
if (!port) throw new Error('storeWorker runs as a worker thread (src/store/storeThread.ts)');

/** The store this thread loaded, once its load succeeded. */
let store: DatasetStore | undefined;
let loading = false;

/** Answers made while a batch of requests is handled, sent together (see REPLY_EVERY_MS). */
let replies: Reply[] | undefined;

function answer(reply: Reply): void {
  if (replies) replies.push(reply);
  else port!.postMessage([reply] satisfies Batch<Reply>);
}

async function load(id: number, request: Extract<Request, { op: 'load' }>): Promise<void> {
  try {
    if (loading || store) throw new Error('a store thread loads one dataset only');
    loading = true;
    const { dataset, report, rows } = await loadSources(request.sources, request.options);
    store = dataset.store;
    const pieces: string[] = [];
    for (let at = 0; at < rows.length; at += ROWS_PER_PIECE)
      pieces.push(JSON.stringify(rows.slice(at, at + ROWS_PER_PIECE)));
    answer({ id, loaded: { report, rows: pieces } });
  } catch (error) {
    answer({ id, error: toWire(error) });
  }
}

function describe(id: number, iri: string): void {
  try {
    if (!store) throw new Error('this thread has no store loaded');
    // Checked again on this side of the thread boundary: only a checked IRI becomes query text.
    answer({ id, text: store.describe(checkedIri(iri)) });
  } catch (error) {
    answer({ id, error: toWire(error) });
  }
}

function handle(request: Request): void {
  switch (request.op) {
    case 'describe':
      return describe(request.id, request.iri);
    case 'load':
      return void load(request.id, request);
  }
}

/**
 * Answers are sent at least this often while a batch is worked through, so that the HTTP thread
 * renders the first documents while this thread queries the next: a batch from 50 connections
 * answered only at its end kept the two threads taking turns instead of working at once.
 */
const REPLY_EVERY_MS = 1;

port.on('message', (batch: Batch<Request>) => {
  replies = [];
  let since = performance.now();
  try {
    for (const request of batch) {
      handle(request);
      if (replies.length > 0 && performance.now() - since >= REPLY_EVERY_MS) {
        port.postMessage(replies);
        replies = [];
        since = performance.now();
      }
    }
  } finally {
    const ready = replies;
    replies = undefined;
    if (ready.length > 0) port.postMessage(ready);
  }
});
