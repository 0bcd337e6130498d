// The store's own thread (see storeThread.ts): it loads datasets with the loader's code, keeps
// their stores, runs the describe queries and frees stores, one message at a time, answering
// describes between the slices of a load.
import { parentPort } from 'node:worker_threads';
import { loadSources } from '../../loader/loadSources';
import type { DatasetStore } from './datasetStore';
import { checkedIri } from './queries';
import { toWire, type Batch, type Reply, type Request } from './storeProtocol';

/** Index rows are sent as JSON text in pieces of this many rows: strings cross threads cheaply. */
const ROWS_PER_PIECE = 500;

const port = parentPort;
if (!port) throw new Error('storeWorker runs as a worker thread (src/store/storeThread.ts)');

const stores = new Map<number, DatasetStore>();
let generations = 0;

/** Answers made while a batch of requests is handled, sent together (see REPLY_EVERY_MS). */
let replies: Reply[] | undefined;

function answer(reply: Reply): void {
  if (replies) replies.push(reply);
  else port!.postMessage([reply] satisfies Batch<Reply>);
}

async function load(id: number, request: Extract<Request, { op: 'load' }>): Promise<void> {
  try {
    const { dataset, report, rows } = await loadSources(request.sources, request.options);
    const generation = ++generations;
    stores.set(generation, dataset.store);
    const pieces: string[] = [];
    for (let at = 0; at < rows.length; at += ROWS_PER_PIECE)
      pieces.push(JSON.stringify(rows.slice(at, at + ROWS_PER_PIECE)));
    answer({ id, loaded: { generation, report, rows: pieces } });
  } catch (error) {
    answer({ id, error: toWire(error) });
  }
}

function describe(id: number, generation: number, iri: string): void {
  try {
    const store = stores.get(generation);
    if (!store) throw new Error('the store was freed');
    // Checked again on this side of the thread boundary: only a checked IRI becomes query text.
    answer({ id, text: store.describe(checkedIri(iri)) });
  } catch (error) {
    answer({ id, error: toWire(error) });
  }
}

function handle(request: Request): void {
  switch (request.op) {
    case 'describe':
      return describe(request.id, request.generation, request.iri);
    case 'load':
      return void load(request.id, request);
    case 'free': {
      const store = stores.get(request.generation);
      stores.delete(request.generation);
      return store?.free();
    }
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
