// Loading into a remote store (`npm run load -- --remote …`, docs/scaling.md): the version is
// written beside the live one and published in one write, so a failed or killed load leaves the
// live version as it was. A snapshot is streamed straight from its file, a piece at a time; other
// sources are loaded by the usual path into a snapshot first, whose version every replica then
// shows. Either way the load's states and canonical descriptions are taken from an embedded copy,
// for the version's place in the history (docs/history.md).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type { Config } from '../src/config/config';
import {
  LoadError,
  loadSources,
  writeSnapshot,
  type LoadOptions,
  type LoadReport,
} from '../src/load/loadSources';
import { CHUNK_MARK, readTrailer, SNAPSHOT_START } from '../src/load/snapshot/snapshot';
import { VERSION_LENGTH } from '../src/history/canonical';
import { statesOf, type DatasetStates } from '../src/history/states';
import type { Loaded } from '../src/load/report';
import { GraphStoreTransport } from '../src/store/remote/graphStore';
import { SparqlClient } from '../src/store/remote/sparqlClient';
import { VirtuosoBulkTransport } from '../src/store/remote/virtuosoBulk';
import { writeVersion, type Transport, type Written } from '../src/store/remote/versionWriter';

/** Pieces handed to the store at once: a few MiB, so a request carries many descriptions. */
const BATCH_BYTES = 4 * 1024 * 1024;

/** How the loader reaches the store: its query endpoint, and a way to write. */
export interface RemoteTarget {
  readonly endpoint: string;
  readonly user?: string;
  readonly password?: string;
  /** The Graph Store Protocol endpoint, or Virtuoso's bulk loader. */
  readonly via:
    | { readonly kind: 'graph-store'; readonly url: string }
    | {
        readonly kind: 'virtuoso-bulk';
        readonly isql: string;
        readonly server: string;
        readonly user: string;
        readonly password: string;
        readonly dir: string;
      };
}

/** The transport and the client it reads the registry with; close both after. */
export function transportOf(target: RemoteTarget): { transport: Transport; client: SparqlClient } {
  const client = new SparqlClient({
    endpoint: target.endpoint,
    user: target.user,
    password: target.password,
    connections: 4,
    deadlineMs: 600_000,
    retryMs: 20_000,
  });
  const { via } = target;
  const transport =
    via.kind === 'graph-store'
      ? new GraphStoreTransport(
          { url: via.url, user: target.user, password: target.password, connections: 4 },
          client,
        )
      : new VirtuosoBulkTransport(via, client);
  return { transport, client };
}

/** Whether `file` is a snapshot this loader wrote (its first line says so). */
export function isSnapshot(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(SNAPSHOT_START.length);
    fs.readSync(fd, head, 0, head.length, 0);
    return head.toString('utf8') === SNAPSHOT_START;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Checks a snapshot whole before anything is written: its trailer must be there and name the sha256
 * of every byte before it. Returns its version (its trailer's: what a server loading the file
 * shows).
 */
export function checkSnapshot(file: string, baseIri: string): string {
  const fd = fs.openSync(file, 'r');
  try {
    const trailer = readTrailer(file, fd, baseIri);
    const before = crypto.createHash('sha256');
    const all = crypto.createHash('sha256');
    const chunk = Buffer.allocUnsafe(4 * 1024 * 1024);
    for (let at = 0; ;) {
      const read = fs.readSync(fd, chunk, 0, chunk.length, at);
      if (read === 0) break;
      const piece = chunk.subarray(0, read);
      before.update(piece.subarray(0, Math.max(0, Math.min(read, trailer.start - at))));
      all.update(piece);
      at += read;
    }
    if (before.digest('hex') !== trailer.sha256)
      throw new LoadError(
        file,
        undefined,
        undefined,
        'the snapshot is not as written: its bytes do not match its trailer’s sha256',
      );
    const header = `${SNAPSHOT_START}${baseIri}>`;
    const first = Buffer.alloc(header.length);
    fs.readSync(fd, first, 0, first.length, 0);
    if (first.toString('utf8') !== header)
      throw new LoadError(
        file,
        1,
        undefined,
        `the snapshot was written for another base than ${baseIri}`,
      );
    // The version the loader named in the trailer, as a server loading the file shows it; one of
    // an older loader's snapshot is named after its bytes.
    return trailer.version ?? all.digest('hex').slice(0, VERSION_LENGTH);
  } finally {
    fs.closeSync(fd);
  }
}

/** A snapshot's quads in batches of pieces no blank node spans, read as a stream. */
export async function* snapshotPieces(file: string): AsyncGenerator<string[]> {
  const mark = CHUNK_MARK.trimEnd();
  const input = fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
  let batch: string[] = [];
  let bytes = 0;
  for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) {
    if (line === mark) {
      if (bytes >= BATCH_BYTES) {
        yield batch;
        batch = [];
        bytes = 0;
      }
      continue;
    }
    if (line === '' || line.startsWith('#')) continue; // the header, the trailer (INDEX_LINE)
    batch.push(line);
    bytes += line.length + 1;
  }
  if (batch.length > 0) yield batch;
}

/**
 * Writes `sources` into the remote store as a new version and marks it current. A single snapshot
 * is streamed; anything else is loaded into a snapshot in a temporary folder first, and `accept`
 * sees its report before anything is written (it throws to refuse the load: --strict).
 */
export async function loadRemote(
  sources: readonly string[],
  options: LoadOptions,
  config: Pick<Config, 'baseIri'>,
  target: RemoteTarget,
  accept: (report: LoadReport) => void = () => {},
  /** The version's time when not now (a test's fixed history). */
  now?: Date,
): Promise<Written & { snapshotMs: number; report: LoadReport | undefined }> {
  const started = Date.now();
  let snapshot =
    sources.length === 1 && fs.statSync(sources[0]!).isFile() && isSnapshot(sources[0]!)
      ? sources[0]!
      : undefined;
  let temporary: string | undefined;
  let report: LoadReport | undefined;
  let states: DatasetStates;
  if (!snapshot) {
    temporary = fs.mkdtempSync(path.join(os.tmpdir(), 'isil-ld-remote-'));
    snapshot = path.join(temporary, 'dataset.nq');
    const loaded = await loadSources(sources, { ...options, snapshot });
    try {
      report = loaded.report;
      accept(report);
      await writeSnapshot(loaded, snapshot);
      states = await historyOf(loaded);
    } catch (error) {
      fs.rmSync(temporary, { recursive: true, force: true });
      throw error;
    } finally {
      loaded.canonical?.snapshot?.discard();
      loaded.dataset.free();
    }
  } else {
    const loaded = await loadSources([snapshot], options);
    try {
      states = await historyOf(loaded);
    } finally {
      loaded.dataset.free();
    }
  }
  const snapshotMs = Date.now() - started;
  const { transport, client } = transportOf(target);
  try {
    const version = checkSnapshot(snapshot, config.baseIri);
    const total = trailerQuads(snapshot, config.baseIri);
    const written = await writeVersion(
      transport,
      snapshotPieces(snapshot),
      { version, baseIri: config.baseIri, sources: sources.join(', ') },
      (quads) => options.onProgress?.('transfer', quads, total, 'quads'),
      {
        client,
        states: states.states,
        description: (isil) => states.descriptions.get(isil),
        ...(now ? { now } : {}),
      },
    );
    return { ...written, snapshotMs, report };
  } finally {
    await transport.close();
    client.close();
    if (temporary) fs.rmSync(temporary, { recursive: true, force: true });
  }
}

/** Every ISIL's state and canonical description in `loaded`: what its history keeps. */
function historyOf(loaded: Loaded): Promise<DatasetStates> {
  // A load reads them canonically; one that took its states from a trailer or cache reads again.
  return loaded.history.descriptions.size > 0
    ? Promise.resolve(loaded.history)
    : statesOf(loaded.dataset);
}

/** The quads a snapshot's trailer counts. */
function trailerQuads(file: string, baseIri: string): number {
  const fd = fs.openSync(file, 'r');
  try {
    return readTrailer(file, fd, baseIri).triples;
  } finally {
    fs.closeSync(fd);
  }
}
