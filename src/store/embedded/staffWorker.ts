// A staff query worker: it lowers its own CPU priority, loads the served version into a store of
// its own with the loader's code, and answers queries one at a time. It is never reused for another
// version (WebAssembly memory never shrinks): the pool (staffPool.ts) terminates it instead.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { workerData } from 'node:worker_threads';
import { loadServed } from '../../load/servedSnapshot';
import { markedTexts } from '../../load/snapshot/snapshot';
import { chunkedNQuads } from '../../load/snapshot/snapshotPieces';
import { serve } from '../../threads/serve';
import { NoFormatAccepted, QueryFailed, RESULT_FORMATS, type StaffQuery } from '../staff';
import { checkQuery } from '../staffQuery';
import { negotiateAmong } from '../../util/accept';
import { DatasetStore } from './datasetStore';
import type {
  Answered,
  Dumped,
  Loaded,
  StaffReply,
  StaffRequest,
  VersionToLoad,
  WorkerMemory,
} from './staffProtocol';
import { writeBoolean, writeGraph, writeSolutions } from '../staffResults';

const version = workerData as VersionToLoad;
let store: DatasetStore | undefined;

/**
 * Lowers this thread's CPU priority, and only this thread's: on Linux a thread is a task of its
 * own, and `setPriority(0, …)` called here changes the calling task. Nice 19 alone still let a
 * query's thread finish its time slice before a woken HTTP thread ran (docs/benchmark.md, "staff
 * threads' priority"); SCHED_IDLE (`chrt --idle`, on this thread's id from /proc/thread-self) has
 * the scheduler preempt it at once for any other task. Where either is not permitted or not there,
 * the thread runs as it can, and /readyz says so.
 */
function lowerPriority(): { priority: number; policy: string } {
  try {
    os.setPriority(0, 19);
  } catch {
    // Not permitted: the thread runs at the process's priority.
  }
  let policy = 'other';
  if (process.platform === 'linux') {
    try {
      const tid = path.basename(fs.readlinkSync('/proc/thread-self'));
      execFileSync('chrt', ['--idle', '-p', '0', tid], { stdio: 'ignore', timeout: 5000 });
      const shown = execFileSync('chrt', ['-p', tid], { encoding: 'utf8', timeout: 5000 });
      policy = /SCHED_IDLE/.test(shown) ? 'idle' : 'other';
    } catch {
      // No chrt (util-linux), or not permitted: nice 19 alone.
    }
  }
  return { priority: os.getPriority(0), policy };
}

function memory(): WorkerMemory {
  const { heapTotal, external } = process.memoryUsage();
  return { heapBytes: heapTotal, externalBytes: external };
}

async function load(): Promise<Loaded> {
  const { priority, policy } = lowerPriority();
  if (version.from !== undefined) {
    // What another worker of this version dumped: its triples, read by Oxigraph's parser alone, and
    // not counted (a pass over every quad, which the first query after idle would wait for).
    const dumped = new DatasetStore();
    loadDump(dumped, version.from);
    store = dumped;
    return { op: 'load', memory: memory(), priority, policy };
  }
  const { dataset, report } = await loadServed(version.sources, version.options);
  if (report.version !== version.version) {
    dataset.store.free();
    throw new Error(
      `the sources changed since version ${version.version} was loaded (they read as ${report.version} now): the endpoint serves again after the next reload`,
    );
  }
  store = dataset.store;
  return { op: 'load', memory: memory(), priority, policy };
}

/**
 * Writes the store's N-Quads to the file open as `fd`, for the next workers of the version, with a
 * chunk mark wherever no blank node spans it (`chunkedNQuads`, as a snapshot has them): those
 * workers load it a piece at a time, in less time and memory than in one call (docs/benchmark.md,
 * "staff workers from a dump").
 */
function dump(fd: number): Dumped {
  if (!store) throw new Error('this worker has no store loaded');
  let at = 0;
  for (const piece of chunkedNQuads(store.dump())) {
    const bytes = Buffer.from(piece);
    for (let done = 0; done < bytes.length;)
      done += fs.writeSync(fd, bytes, done, bytes.length - done, at + done);
    at += bytes.length;
  }
  return { op: 'dump', bytes: at };
}

/** Loads the dump open as `fd` into `target` a marked text at a time (`markedTexts`). */
function loadDump(target: DatasetStore, fd: number): void {
  for (const text of markedTexts(pieces(fd))) target.load(text, 'nq', undefined, true);
}

/** The file open as `fd`, in pieces of 4 MiB read at their positions (the descriptor is shared). */
function* pieces(fd: number): Generator<Buffer> {
  const size = fs.fstatSync(fd).size;
  for (let at = 0; at < size;) {
    const piece = Buffer.allocUnsafe(Math.min(4 * 1024 * 1024, size - at));
    const read = fs.readSync(fd, piece, 0, piece.length, at);
    if (read === 0) break;
    at += read;
    yield piece.subarray(0, read);
  }
}

/** Checks the query on its algebra, chooses the result format, runs it and writes the answer. */
function query(request: StaffQuery): Answered {
  if (!store) throw new Error('this worker has no store loaded');
  const { text, accept, base, defaultGraphs, namedGraphs, maxRows, maxBytes } = request;
  const checked = checkQuery(text, maxRows, base);
  const format = negotiateAmong(accept, RESULT_FORMATS[checked.form]);
  if (!format) throw new NoFormatAccepted(checked.form);
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
    result = store.staffQuery(checked.text, base, dataset, form);
  } catch (error) {
    // Oxigraph's own refusal (a function or feature it does not support): the client's to fix.
    throw new QueryFailed((error as Error).message);
  }
  const kind = format.kind;
  const written =
    typeof result === 'boolean'
      ? writeBoolean(result, kind)
      : form === 'solutions'
        ? writeSolutions(result, checked.variables, kind, maxRows, maxBytes)
        : writeGraph(result, kind, maxRows, maxBytes);
  return { op: 'query', ...written, contentType: format.contentType, memory: memory() };
}

serve<StaffRequest, StaffReply>((request) =>
  request.op === 'load' ? load() : request.op === 'dump' ? dump(request.fd) : query(request.query),
);
