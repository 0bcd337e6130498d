// A staff query worker: it lowers its own CPU priority, loads the served version into a store of
// its own with the loader's code, and answers queries one at a time. It is never reused for another
// version (WebAssembly memory never shrinks): the pool (staffPool.ts) terminates it instead.
import os from 'node:os';
import { workerData } from 'node:worker_threads';
import { loadSources } from '../../load/loadSources';
import { serve } from '../../threads/serve';
import { QueryFailed, type StaffQuery } from '../staff';
import type { DatasetStore } from './datasetStore';
import type {
  Answered,
  Loaded,
  StaffReply,
  StaffRequest,
  VersionToLoad,
  WorkerMemory,
} from './staffProtocol';
import { writeBoolean, writeGraph, writeSolutions } from './staffResults';

const version = workerData as VersionToLoad;
let store: DatasetStore | undefined;

/**
 * On Linux a thread is a task of its own: `setPriority(0, …)` from here lowers this thread only,
 * so the HTTP thread and the store's thread keep the CPU while staff queries run.
 */
function lowerPriority(): number {
  try {
    os.setPriority(0, 19);
  } catch {
    // Not permitted, or not Linux: the thread runs at the process's priority.
  }
  return os.getPriority(0);
}

function memory(): WorkerMemory {
  const { heapTotal, external } = process.memoryUsage();
  return { heapBytes: heapTotal, externalBytes: external };
}

async function load(): Promise<Loaded> {
  const priority = lowerPriority();
  const { dataset, report } = await loadSources(version.sources, version.options);
  if (report.version !== version.version) {
    dataset.store.free();
    throw new Error(
      `the sources changed since version ${version.version} was loaded (they read as ${report.version} now): the endpoint serves again after the next reload`,
    );
  }
  store = dataset.store;
  return { op: 'load', triples: report.triples, memory: memory(), priority };
}

function query(request: StaffQuery): Answered {
  if (!store) throw new Error('this worker has no store loaded');
  const { query: checked, defaultGraphs, namedGraphs, format, maxRows, maxBytes } = request;
  const dataset =
    defaultGraphs.length > 0 || namedGraphs.length > 0
      ? { defaultGraphs, namedGraphs }
      : checked.ownDataset
        ? 'own'
        : 'union';
  const form =
    checked.form === 'ask' ? 'boolean' : checked.form === 'select' ? 'solutions' : 'graph';
  let result: string | boolean;
  try {
    result = store.staffQuery(checked.text, request.base, dataset, form);
  } catch (error) {
    // Oxigraph's own refusal (a function or feature it does not support): the client's to fix.
    throw new QueryFailed((error as Error).message);
  }
  const written =
    typeof result === 'boolean'
      ? writeBoolean(result, format)
      : form === 'solutions'
        ? writeSolutions(result, checked.variables, format, maxRows, maxBytes)
        : writeGraph(result, format, maxRows, maxBytes);
  return { op: 'query', ...written, memory: memory() };
}

serve<StaffRequest, StaffReply>((request) =>
  request.op === 'load' ? load() : query(request.query),
);
