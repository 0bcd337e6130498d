// Parsing the change log's lines (src/history/log.ts says the form), a step of lines at a time so
// that a reader on the serving thread can pause between steps: each line checked, each version's
// events just before its line, times rising.
import { droppedOf, HistoryError, isTime, parseJson, readHeader } from './logHeader';
import type { LogContents, LoggedEvent, LoggedVersion } from './log';
import type { DroppedVersions, EventKind, VersionInfo } from './model';

const KINDS: ReadonlySet<string> = new Set(['created', 'updated', 'withdrawn', 'deleted']);

/** Lines parsed between two chances to pause. */
const LINES_A_STEP = 500;

/** The log in `bytes`, parsed a step of lines at a time (a pause between steps is the caller's). */
export function* parseLog(file: string, bytes: Buffer): Generator<void, LogContents> {
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
    if (lineNumber % LINES_A_STEP === 0) yield;
    const line = headOf(bytes, start, end);
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

const NT = Buffer.from(',"nt":"');
/** Bytes of an event line before its description, at most (its successors are few). */
const HEAD_BYTES = 4096;

/**
 * The line from `start` to `end`, as text up to its description when it is an event's (`nt`,
 * last on the line, read when a memento is asked for): decoding whole descriptions was most of
 * the time a large log took to read.
 */
function headOf(bytes: Buffer, start: number, end: number): string {
  const head = bytes.subarray(start, Math.min(end, start + HEAD_BYTES));
  const cut = head.indexOf(NT);
  return bytes.toString('utf8', start, cut === -1 ? end : start + cut + NT.length);
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
