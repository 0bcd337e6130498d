// The change log of the embedded store's versions (docs/history.md): `history.jsonl` in HISTORY_DIR,
// one JSON object a line, appended to by the loader and read by the server.
//
//   {"history":1,"base":"<BASE_IRI>","log":"<id>"}                 the header, first line
//     (after retention or a reset also "dropped":{"first":<s>,"last":<s>,"versions":N}: the
//     times of the oldest and newest version the log no longer holds, and how many)
//   {"v":"<version>","t":<seconds>,"e":"created","isil":"…","hash":"…","nt":"…"}   an event
//   {"version":"<version>","time":<seconds>,"institutions":N,"withdrawn":N,"events":N}
//                                                                   ends a version's events
//   {"commit":"<version>","time":<seconds>}                        the version went live
//
// The snapshot's rename is the commit point: a version is part of the history once the snapshot
// that names it in its trailer (`history`) is in place, or once its commit line follows it (written
// after the rename). Lines of a version neither names (a loader killed before its rename) are
// ignored by readers and cut off by the next writer (the log rewritten and renamed over, never
// truncated under a reader); a line cut short (killed mid-write) too.
// A log is read only when it is one dataset's well-formed, ordered history (else a HistoryError
// naming the line): each version's events just before its line, times rising, every term checked.
// Its id is named by the snapshots written with it, so another dataset's log is told apart.
// Every event carries its version and time: retention drops old versions whole but keeps each
// ISIL's latest event (what it serves now, or its tombstone), which then stands before the first
// version kept.
import fs from 'node:fs';
import { otherScheme } from '../rdf/iris';
import { droppedOf, isTime, parseJson, readHeader } from './logHeader';
import { MemoryHistory } from './memory';
import {
  statesAfterEvents,
  type EventKind,
  type History,
  type HistoryEvent,
  type DroppedVersions,
  type InstitutionState,
  type VersionInfo,
} from './model';

export const LOG_FILE = 'history.jsonl';
const KINDS: ReadonlySet<string> = new Set(['created', 'updated', 'withdrawn', 'deleted']);

/** A change log that cannot be read or written as it is: said in one line, naming the file. */
export class HistoryError extends Error {
  override name = 'HistoryError';
}

/** An event of the log, with where its line is (its description is read from there). */
export interface LoggedEvent extends HistoryEvent {
  readonly at: number;
  readonly length: number;
}

/** The events of one version as the log holds them, and where its lines end. */
export interface LoggedVersion extends VersionInfo {
  readonly institutions: number;
  readonly withdrawn: number;
  /** The events before its version line (its own, and after retention those carried). */
  readonly events: readonly LoggedEvent[];
  /** Whether its commit line follows it. */
  readonly committed: boolean;
  /** The byte after its version line, or after its commit line when that follows. */
  readonly end: number;
}

/** What a log file holds: its base and its complete versions, in order. */
export interface LogContents {
  readonly file: string;
  readonly base: string;
  /** The log's identity, named by the snapshots written with it (logs of older loaders lack it). */
  readonly id?: string;
  readonly versions: readonly LoggedVersion[];
  /** The byte after the header. */
  readonly headerEnd: number;
  /** The versions it held before its first and dropped (its header's, else told by carried events). */
  readonly dropped?: DroppedVersions;
}

/** The history the log holds for a snapshot, and what of the file is committed. */
export interface Committed {
  readonly contents: LogContents;
  /** The versions that are history: every one up to the last committed. */
  readonly versions: readonly LoggedVersion[];
  /** The byte after the last committed version (the header's end when none is). */
  readonly end: number;
}

/** The place of a version in the log, as a snapshot's trailer names it, with the log's id. */
export type Pointer = VersionInfo & { readonly log?: string };

/** Reads the log at `file`; undefined when there is none. Throws a HistoryError when it is not one. */
export function readLog(file: string): LogContents | undefined {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const refuse = (reason: string) => new HistoryError(`${file}: ${reason}`);
  const headerEnd = bytes.indexOf(0x0a);
  if (headerEnd === -1) {
    // A header cut short: the log was never more than begun.
    if (bytes.length === 0 || !bytes.toString('utf8').startsWith('{"history":'))
      throw refuse('not a change log (no header line)');
    return { file, base: '', versions: [], headerEnd: 0 };
  }
  const header = readHeader(bytes.toString('utf8', 0, headerEnd), refuse);
  const versions: LoggedVersion[] = [];
  let events: LoggedEvent[] = [];
  // The line of each event, for a refusal to name.
  let eventLines: number[] = [];
  let start = headerEnd + 1;
  let lineNumber = 1;
  for (let end = bytes.indexOf(0x0a, start); end !== -1; end = bytes.indexOf(0x0a, start)) {
    const line = bytes.toString('utf8', start, end);
    const at = start;
    start = end + 1;
    lineNumber++;
    const here = (reason: string, number = lineNumber) => refuse(`line ${number} ${reason}`);
    if (line.startsWith('{"v":')) {
      events.push(parseEvent(line, at, end - at, (why) => here(`is not an event: ${why}`)));
      eventLines.push(lineNumber);
    } else if (line.startsWith('{"version":')) {
      const v = parseJson(line) as Partial<LoggedVersion> & { events?: unknown };
      if (typeof v?.version !== 'string' || !VERSION.test(v.version) || !isTime(v.time))
        throw here('is not a version line');
      const previous = versions.at(-1);
      if (previous && v.time <= previous.time)
        throw here(
          `is version ${v.version} at ${v.time}, not after ${previous.version} at ${previous.time}`,
        );
      const check = { first: versions.length === 0, count: v.events, lines: eventLines };
      checkEvents(events, v as VersionInfo, check, here);
      versions.push({
        version: v.version,
        time: v.time,
        institutions: Number(v.institutions ?? 0),
        withdrawn: Number(v.withdrawn ?? 0),
        events,
        committed: false,
        end: start,
      });
      events = [];
      eventLines = [];
    } else if (line.startsWith('{"commit":')) {
      const c = parseJson(line) as { commit?: unknown; time?: unknown } | undefined;
      const last = versions.at(-1);
      if (
        !last ||
        events.length > 0 ||
        last.committed ||
        c?.commit !== last.version ||
        c.time !== last.time
      )
        throw here('is a commit line that does not follow the version it names');
      versions[versions.length - 1] = { ...last, committed: true, end: start };
    } else {
      throw here('is not a line of a change log');
    }
  }
  // Events after the last version line, and a last line without its newline, belong to a version
  // that was never completed: not part of the log.
  return contentsOf(
    file,
    header,
    versions,
    headerEnd + 1,
    droppedOf(header.dropped, versions[0], refuse),
  );
}

function contentsOf(
  file: string,
  header: { base: string; log?: string },
  versions: LoggedVersion[],
  headerEnd: number,
  dropped: DroppedVersions | undefined,
): LogContents {
  return {
    file,
    base: header.base,
    ...(typeof header.log === 'string' ? { id: header.log } : {}),
    versions,
    headerEnd,
    ...(dropped ? { dropped } : {}),
  };
}

const VERSION = /^[0-9a-f]{12}$/;
const HASH = /^[0-9a-f]{32}$/;
/** What an ISIL may hold (src/rdf/isil.ts): nothing that would break the IRI it is written into. */
const ISIL = /^[A-Za-z0-9]{1,4}-[A-Za-z0-9/:-]+$/;

/**
 * The events before a version line are that version's, as many as it says, one an ISIL; before the
 * first version also those retention carried, of earlier times.
 */
function checkEvents(
  events: readonly LoggedEvent[],
  version: VersionInfo,
  { first, count, lines }: { first: boolean; count: unknown; lines: readonly number[] },
  here: (reason: string, line?: number) => HistoryError,
): void {
  const seen = new Set<string>();
  let own = 0;
  for (const [i, e] of events.entries()) {
    const at = (reason: string) => here(reason, lines[i]);
    if (e.version === version.version && e.time === version.time) own++;
    else if (!(first && e.time < version.time))
      throw at(
        `is an event of ${e.version} at ${e.time}, not of the version line after it (${version.version} at ${version.time})`,
      );
    if (seen.has(e.isil)) throw at(`is a second event of ${e.isil} in one version`);
    seen.add(e.isil);
  }
  if (typeof count === 'number' && count !== own)
    throw here(`says ${count} events, and ${own} precede it`);
}

/**
 * An event line, read without its description (`nt`, last on the line): a start reads every event
 * of the log, and the descriptions only when a memento is asked for.
 */
function parseEvent(
  line: string,
  at: number,
  length: number,
  refuse: (why: string) => HistoryError,
): LoggedEvent {
  const cut = line.indexOf(',"nt":"');
  const fields = parseJson(cut === -1 ? line : `${line.slice(0, cut)}}`) as
    | { v?: unknown; t?: unknown; e?: unknown; isil?: unknown; hash?: unknown; succ?: unknown }
    | undefined;
  if (!fields || typeof fields !== 'object') throw refuse('not a JSON object');
  if (typeof fields.v !== 'string' || !VERSION.test(fields.v))
    throw refuse(`its version ${JSON.stringify(fields.v)} is not 12 hex digits`);
  if (!isTime(fields.t))
    throw refuse(`its time ${JSON.stringify(fields.t)} is not whole seconds up to 9999`);
  if (typeof fields.e !== 'string' || !KINDS.has(fields.e))
    throw refuse(`${JSON.stringify(fields.e)} is not an event kind`);
  if (typeof fields.isil !== 'string' || !ISIL.test(fields.isil))
    throw refuse(`${JSON.stringify(fields.isil)} is not an ISIL`);
  const kind = fields.e as EventKind;
  if (kind === 'created' || kind === 'updated') {
    if (typeof fields.hash !== 'string' || !HASH.test(fields.hash))
      throw refuse(`its hash ${JSON.stringify(fields.hash)} is not 32 hex digits`);
    if (cut === -1) throw refuse('it holds no description');
  }
  const successors = fields.succ;
  if (
    successors !== undefined &&
    !(Array.isArray(successors) && successors.every((i) => typeof i === 'string' && ISIL.test(i)))
  )
    throw refuse(`its successors ${JSON.stringify(successors)} are not ISILs`);
  return {
    kind,
    isil: fields.isil,
    version: fields.v,
    time: fields.t,
    ...(typeof fields.hash === 'string' ? { hash: fields.hash } : {}),
    ...(successors ? { successors: successors as string[] } : {}),
    at,
    length,
  };
}

/**
 * Why the log cannot be the history of a snapshot that names `pointer`, or undefined when it can:
 * a log made for another snapshot (another id, or without the version it names in its time), or
 * cut before it. A version older than the log's first is one retention dropped (a restored
 * backup); a log without versions yet is one begun anew.
 */
export function foreignTo(contents: LogContents, pointer: Pointer | undefined): string | undefined {
  if (pointer === undefined) return undefined;
  const { versions, id } = contents;
  if (versions.some((v) => v.version === pointer.version && v.time === pointer.time))
    return undefined;
  const named = `the snapshot names version ${pointer.version} at ${pointer.time}`;
  const first = versions[0];
  if (first === undefined || !versions.some((v) => v.committed))
    return id !== undefined && pointer.log === id
      ? `${named}, and the log holds no committed version: it was cut`
      : undefined;
  if (id !== undefined && pointer.log !== undefined && pointer.log !== id)
    return `${named} of change log ${pointer.log}; this is change log ${id}, another dataset's`;
  if (pointer.time >= first.time)
    return `${named}, which the log does not hold: it is another dataset's, or damaged`;
  return undefined;
}

/**
 * The history of `contents` for a snapshot that names `pointer` (none: a snapshot written without
 * a log): every version up to the last one committed, by its commit line or by the pointer.
 */
export function committed(contents: LogContents, pointer: Pointer | undefined): Committed {
  let last = -1;
  contents.versions.forEach((v, i) => {
    if (v.committed || (pointer && v.version === pointer.version && v.time === pointer.time))
      last = i;
  });
  const versions = contents.versions.slice(0, last + 1);
  return { contents, versions, end: versions.at(-1)?.end ?? contents.headerEnd };
}

/** Whether the log was written for `baseIri`, or for its http/https twin (read rewritten). */
export function checkBase(contents: LogContents, baseIri: string): 'same' | 'twin' {
  if (contents.base === baseIri || contents.base === '') return 'same';
  if (contents.base === otherScheme(baseIri)) return 'twin';
  throw new HistoryError(
    `${contents.file}: the change log was made for ${contents.base}, not for BASE_IRI ${baseIri} (set HISTORY_DIR to another folder, or BASE_IRI to its base; npm run load -- --reset-history starts the history anew)`,
  );
}

/** Each ISIL's state after the versions given (their events in the order of time). */
export function statesAfter(versions: readonly LoggedVersion[]): Map<string, InstitutionState> {
  return statesAfterEvents(versions.flatMap((v) => v.events).sort(byTimeThenIsil));
}

export function byTimeThenIsil(a: HistoryEvent, b: HistoryEvent): number {
  if (a.time !== b.time) return a.time - b.time;
  return a.isil < b.isil ? -1 : a.isil > b.isil ? 1 : 0;
}

/** Reads the description line of an event from an open log. */
function readLine(fd: number, event: LoggedEvent): string {
  const bytes = Buffer.allocUnsafe(event.length);
  const read = fs.readSync(fd, bytes, 0, event.length, event.at);
  const line = JSON.parse(bytes.toString('utf8', 0, read)) as { nt?: unknown };
  if (typeof line.nt !== 'string')
    throw new Error(`the change log holds no description for ${event.isil} at ${event.time}`);
  return line.nt;
}

/**
 * The history a log holds for a snapshot, read by a server: every event of the committed versions,
 * descriptions read from the file when a memento is asked for. The file stays open for them (a
 * retention that replaces it leaves this one readable) until `close`.
 */
export function fileHistory(committedLog: Committed, baseIri: string): History {
  const { contents } = committedLog;
  const twin = checkBase(contents, baseIri) === 'twin';
  const fd = fs.openSync(contents.file, 'r');
  const events: LoggedEvent[] = [];
  for (const v of committedLog.versions) events.push(...v.events);
  events.sort(byTimeThenIsil);
  const from = `<${contents.base}/`;
  const to = `<${baseIri}/`;
  const history = new MemoryHistory(
    committedLog.versions.map(({ version, time }) => ({ version, time })),
    events,
    (event) => {
      try {
        const nt = readLine(fd, event as LoggedEvent);
        return Promise.resolve(twin ? nt.replaceAll(from, to) : nt);
      } catch (error) {
        return Promise.reject(error as Error);
      }
    },
    () => fs.closeSync(fd),
    false,
    contents.dropped,
  );
  return history;
}
