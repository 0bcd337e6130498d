// The store's own thread (see storeThread.ts): it loads datasets with the loader's code, keeps
// their stores, runs the describe queries and frees stores, one message at a time, answering
// describes between the slices of a load.
import { parentPort } from 'node:worker_threads';
import { loadSources } from '../../loader/loadSources';
import type { DatasetStore } from './datasetStore';
import { checkedIri } from './queries';
import { toWire, type Reply, type Request } from './storeProtocol';

/** Index rows are sent as JSON text in pieces of this many rows: strings cross threads cheaply. */
const ROWS_PER_PIECE = 500;

const port = parentPort;
if (!port) throw new Error('storeWorker runs as a worker thread (src/store/storeThread.ts)');

const stores = new Map<number, DatasetStore>();
let generations = 0;

const answer = (reply: Reply) => port.postMessage(reply);

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

port.on('message', (request: Request) => {
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
});
