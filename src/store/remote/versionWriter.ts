// Writes a dataset version into a remote store beside the versions already there (layout.ts), then
// marks it current in one write of the registry: until that write nothing reads the new graphs,
// so a load that fails or is killed leaves the live version untouched. Two ways in: the SPARQL 1.1
// Graph Store Protocol (every store has it: Virtuoso, Fuseki, GraphDB, Oxigraph server), which is
// sent every triple twice (its description's graph, the version's), and Virtuoso's bulk loader,
// which is sent each triple once and makes the version's graph itself (graphStore.ts,
// virtuosoBulk.ts). Both take N-Quads in pieces that no blank node spans (a snapshot's chunks), so
// a blank node is never split between two requests.
import { descriptionGraph, versionGraph, type HistoryStep, type VersionEntry } from './layout';
import { writeHistoryVersion, type Appended, type NextVersion } from './remoteHistory';
import type { SparqlClient } from './sparqlClient';

/** One N-Quads line split into its triple (`… .`) and its graph IRI, when it has one. */
export interface Quad {
  readonly triple: string;
  readonly graph: string | undefined;
}

/**
 * Splits an N-Quads line as the loader writes it (terms split by one space, ` .` at the end): the
 * graph is a fourth term after the triple. Lines in another shape are refused.
 */
export function splitQuad(line: string): Quad {
  if (!line.endsWith(' .')) throw new Error(`not an N-Quads line: ${line.slice(0, 120)}`);
  const body = line.slice(0, -2);
  if (body.endsWith('>')) {
    const open = body.lastIndexOf(' <');
    // `<s> <p> <o>` has two terms before its last: a quad has three.
    if (open > 0 && termsBefore(body.slice(0, open)) === 3)
      return { triple: `${body.slice(0, open)} .`, graph: body.slice(open + 2, -1) };
  }
  return { triple: line, graph: undefined };
}

/** How many terms `text` holds (subject, predicate, object): 3 for a whole triple. */
function termsBefore(text: string): number {
  const s = text.startsWith('<') ? text.indexOf('> ') + 1 : text.indexOf(' ');
  if (s <= 0) return 1;
  const p = text.indexOf('> ', s + 1) + 1;
  return p <= 0 ? 2 : 3;
}

/** One piece of a version: no blank node of it is in another piece. */
export interface VersionPiece {
  /** The triples of each description graph, by its name in the version (`descriptionGraph`). */
  readonly graphs: ReadonlyMap<string, readonly string[]>;
  /** The triples in no description graph: the version's graph alone holds them. */
  readonly own: readonly string[];
  /** Every triple of the piece: what the version's graph gains. */
  readonly all: readonly string[];
}

/** Where the quads of a version go: the Graph Store Protocol, or Virtuoso's bulk loader. */
export interface Transport {
  /** What the operator reads: the URL or the folder written to. */
  readonly target: string;
  /**
   * Whether the history's graphs are written before the version's quads, to be loaded beside them
   * (the bulk loader); else after, just before the version is published. The version's time in
   * the history is taken when they are written.
   */
  readonly historyFirst: boolean;
  /** The registry's entry of `version` when the store holds it complete (a load of the same bytes). */
  held(version: string): Promise<VersionEntry | undefined>;
  /** Makes room for `version`: drops what an earlier, failed load of it left. */
  begin(version: string): Promise<void>;
  /**
   * Copies the description graphs of version `from` into the version begun, in the store, but
   * those `except` names (their names in `from`): an update's unchanged descriptions. A store
   * without it (the Graph Store Protocol has no copy) takes no update.
   */
  copy?(from: string, except: readonly string[]): Promise<void>;
  /** Writes one piece: the triples of each description graph, and of the version's graph. */
  write(piece: VersionPiece): Promise<void>;
  /**
   * Finishes writing (the bulk loader loads here, and makes the version's graph); throws when the
   * store refused any of it.
   */
  finish(): Promise<void>;
  /**
   * Lists `entry` in the registry and marks it current, with `step` added to the history's
   * versions when given: the one write that publishes it.
   */
  publish(entry: VersionEntry, step?: HistoryStep): Promise<void>;
  /** Makes the registry list `entries` alone, `current` marked, and `timeline`, in one write. */
  writeRegistry(
    entries: readonly VersionEntry[],
    current: string,
    timeline: readonly HistoryStep[],
  ): Promise<void>;
  /**
   * Writes each graph whole, graphs the store lacks: the history's. The bulk loader may still be
   * loading them when this returns; `finish`, `publish` and `writeRegistry` wait and check.
   */
  writeGraphs(graphs: ReadonlyMap<string, readonly string[]>): Promise<void>;
  /** Drops every graph of `version` (the registry must no longer list it). */
  drop(version: string): Promise<void>;
  /** Drops the graphs named (the history's graphs nothing references). */
  dropGraphs(graphs: readonly string[]): Promise<void>;
  /** The versions whose graphs are in the store, listed in the registry or not (a killed load's). */
  stored(): Promise<string[]>;
  close(): Promise<void>;
}

export interface Written {
  readonly version: string;
  readonly quads: number;
  /** Milliseconds reading and splitting the input, and writing into the store. */
  readonly readMs: number;
  readonly transferMs: number;
  /** Whether the store held the version already, so nothing was written. */
  readonly unchanged: boolean;
  /** What the history gained (nothing when it ended with this version already). */
  readonly history?: Appended;
}

/** The version's states and descriptions, for its place in the history (remoteHistory.ts). */
export interface HistoryInput extends Omit<NextVersion, 'version'> {
  /** The client that reads the history already stored. */
  readonly client: SparqlClient;
}

/**
 * Writes `pieces` (each a list of N-Quads lines no blank node spans) as `version` through
 * `transport`, and publishes it. Description graphs are renamed into the version's
 * (`<version graph>:<description IRI>`); every triple also goes into the version's own graph.
 * With `history`, the version's events and the descriptions the store lacks are written too, and
 * the same registry write adds it to the history (unless the history ends with it already).
 */
export async function writeVersion(
  transport: Transport,
  pieces: AsyncIterable<readonly string[]>,
  /** With `triples` when the pieces are not all of the version (an update's). */
  entry: Omit<VersionEntry, 'triples' | 'created'> & { readonly triples?: number },
  progress?: (quads: number) => void,
  history?: HistoryInput,
): Promise<Written> {
  const { version } = entry;
  const started = Date.now();
  const appendHistory = (): Promise<Appended | undefined> =>
    history
      ? writeHistoryVersion(transport, history.client, { ...history, version })
      : Promise.resolve(undefined);
  const held = await transport.held(version);
  if (held) {
    // The same bytes again: the version is there, and marking it current is the whole load (with
    // its place in the history when an older version was loaded again).
    const appended = await appendHistory();
    await transport.publish(held, appended?.step);
    return {
      version,
      quads: 0,
      readMs: 0,
      transferMs: Date.now() - started,
      unchanged: true,
      ...(appended ? { history: appended } : {}),
    };
  }
  versionGraph(version); // refuses a malformed version before anything is written
  let transferMs = 0;
  const timed = async <T>(work: () => Promise<T>): Promise<T> => {
    const before = Date.now();
    try {
      return await work();
    } finally {
      transferMs += Date.now() - before;
    }
  };
  await timed(() => transport.begin(version));
  // The bulk loader loads the history's graphs while the version's quads are written: the
  // version's time is then taken seconds before it is published, not the transfer's minutes of
  // the Graph Store Protocol.
  let appended = transport.historyFirst ? await timed(appendHistory) : undefined;
  let quads = 0;
  for await (const lines of pieces) {
    const piece = versionPiece(version, lines);
    quads += piece.all.length;
    await timed(() => transport.write(piece));
    progress?.(quads);
  }
  await timed(async () => {
    await transport.finish();
    if (!transport.historyFirst) appended = await appendHistory();
    await transport.publish(
      { ...entry, triples: entry.triples ?? quads, created: new Date().toISOString() },
      appended?.step,
    );
  });
  return {
    version,
    quads,
    readMs: Date.now() - started - transferMs,
    transferMs,
    unchanged: false,
    ...(appended ? { history: appended } : {}),
  };
}

/** N-Quads lines of the snapshot as a piece of `version`: its description graphs renamed. */
function versionPiece(version: string, lines: readonly string[]): VersionPiece {
  const graphs = new Map<string, string[]>();
  const own: string[] = [];
  const all: string[] = [];
  for (const line of lines) {
    const { triple, graph } = splitQuad(line);
    all.push(triple);
    if (graph === undefined) {
      own.push(triple);
      continue;
    }
    const name = descriptionGraph(version, graph);
    const list = graphs.get(name);
    if (list) list.push(triple);
    else graphs.set(name, [triple]);
  }
  return { graphs, own, all };
}
