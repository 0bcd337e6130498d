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
import { HistoryError } from './logHeader';
import { parseLog } from './logParse';
import { MemoryHistory } from './memory';
import {
  statesAfterEvents,
  type History,
  type HistoryEvent,
  type DroppedVersions,
  type InstitutionState,
  type VersionInfo,
} from './model';

export const LOG_FILE = 'history.jsonl';

export { HistoryError };

/** The log was renamed over (retention, a repair) while it was read in turns: read it again. */
export class LogReplaced extends HistoryError {}

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
  /** The file read (its inode), when read in turns: the one its descriptions must be read from. */
  readonly inode?: number;
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
  const bytes = absentAsUndefined(() => fs.readFileSync(file));
  if (bytes === undefined) return undefined;
  const parsing = parseLog(file, bytes);
  for (;;) {
    const step = parsing.next();
    if (step.done) return step.value;
  }
}

/** Bytes a reader in turns reads at once. */
const READ_PIECE = 8 << 20;

/** Milliseconds a reader in turns parses before it lets the event loop turn. */
const TURN_MS = 10;

/**
 * `readLog` for a serving thread: the file read off the thread, parsed in turns of about TURN_MS
 * between which other requests are answered (a large log took seconds at once).
 */
export async function readLogInTurns(file: string): Promise<LogContents | undefined> {
  const handle = await absentAsUndefined(() => fs.promises.open(file, 'r'));
  if (handle === undefined) return undefined;
  let bytes: Buffer;
  let inode: number;
  try {
    const stat = await handle.stat();
    inode = stat.ino;
    // Read into one buffer a piece at a time: readFile joins its pieces on this thread at the end.
    const whole = Buffer.allocUnsafe(stat.size);
    let done = 0;
    for (let read = 1; done < stat.size && read > 0; done += read)
      ({ bytesRead: read } = await handle.read(
        whole,
        done,
        Math.min(READ_PIECE, stat.size - done),
      ));
    bytes = whole.subarray(0, done);
  } finally {
    await handle.close();
  }
  const parsing = parseLog(file, bytes);
  for (let turn = performance.now(); ;) {
    const step = parsing.next();
    if (step.done) return { ...step.value, inode };
    if (performance.now() - turn < TURN_MS) continue;
    await new Promise((resolve) => setImmediate(resolve));
    turn = performance.now();
  }
}

/** What `read` gives, undefined when the file does not exist. */
function absentAsUndefined<T>(read: () => T): T | undefined {
  const absent = (error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  };
  try {
    const value = read();
    return value instanceof Promise ? (value.catch(absent) as T) : value;
  } catch (error) {
    return absent(error);
  }
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
  if (contents.inode !== undefined && fs.fstatSync(fd).ino !== contents.inode) {
    fs.closeSync(fd);
    throw new LogReplaced(`${contents.file}: replaced while it was read`);
  }
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
