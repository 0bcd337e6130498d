// Snapshots: the N-Quads file the loader writes and the server loads, cut into pieces no blank
// node spans, and ended by a trailer that says what a whole snapshot holds.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { Dataset } from '../../store/dataset';
import { RESOURCE_PATH } from '../../rdf/iris';
import { PREFIXES } from '../../rdf/namespaces';
import { DatasetStore, type SelectBinding } from '../../store/embedded/datasetStore';
import { refused, type LoadError } from '../loadError';
import { chunks, figure } from '../reading';
import { readCompactStates } from '../../history/canonical';
import type { InstitutionState } from '../../history/model';

/**
 * The largest snapshot a load reads or writes: 512 MiB, above what sources of MAX_INPUT_BYTES come
 * to (docs/loading.md, Limits). It is written and read in pieces, with no string of the whole.
 */
export const MAX_SNAPSHOT_BYTES = 512 * 1024 * 1024;

/**
 * Snapshots mark a safe place to split every this many bytes (`PieceWriter`): a piece this size
 * parses in about a millisecond, so a reload can let requests in every few milliseconds.
 */
export const SNAPSHOT_CHUNK_BYTES = 1 << 14;

/** A line that marks a place in a snapshot where no blank node is shared across (an N-Quads comment). */
export const CHUNK_MARK = '# chunk\n';

/**
 * The start of a snapshot's last line, its trailer (`SnapshotWriter.finish`): JSON with the
 * sha256 of every byte before the line, the store's triples, the live and the withdrawn
 * institutions, and, when every institution is an IRI, the index of its institutions as
 * `Dataset.indexRows` reads them with the hash of the index query they were read with. A snapshot
 * is loaded only whole: a trailer that is missing (the file was cut off), not last (lines were
 * appended), malformed, or that does not match what was read is refused. Its rows are taken
 * instead of querying the store (a query over every institution that a start then does not pay)
 * unless the index query changed since or a row is not a row of it: then the store is queried,
 * as from any source.
 */
export const INDEX_LINE = '# index ';

/** How a snapshot's first line starts, whatever its base. */
export const SNAPSHOT_START = '# isil-ld snapshot; base <';

/**
 * The first line of a snapshot this loader wrote: N-Quads allows comments. A snapshot written for
 * the configured base needs neither the base rewrite nor validation again (a full pass each).
 */
export function snapshotHeader(baseIri: string): string {
  return `${SNAPSHOT_START}${baseIri}>\n`;
}

/** Which index query a snapshot's index was read with: one changed since makes it stale. */
export function queryHash(store: Pick<DatasetStore, 'indexQuery'>): string {
  return crypto.createHash('sha256').update(store.indexQuery).digest('hex').slice(0, 16);
}

/** Whether `value` is a term of a SELECT row as `DatasetStore.select` makes them. */
function isBoundTerm(value: unknown): boolean {
  const { type, value: text } = (value ?? {}) as { type?: unknown; value?: unknown };
  return (type === 'uri' || type === 'bnode' || type === 'literal') && typeof text === 'string';
}

/** What a snapshot's trailer (INDEX_LINE) says. */
export interface Trailer {
  /** Where the line starts: the bytes before it are the snapshot's quads. */
  readonly start: number;
  /** The line, newline included: hashed into the version as the rest of the file. */
  readonly bytes: Buffer;
  /** The sha256 of the bytes before it. */
  readonly sha256: string;
  readonly triples: number;
  readonly institutions: number;
  readonly withdrawn: number;
  /** The hash of the index query the rows were read with, when they were written. */
  readonly query: unknown;
  readonly rows: unknown;
  /** The version, every ISIL's state and the rest's hash (`canonicalDataset`), when written. */
  readonly version?: string;
  readonly states?: ReadonlyMap<string, InstitutionState>;
  readonly rest?: string;
  /** The change log's version and time this snapshot commits, when a log was written with it. */
  readonly history?: SnapshotHistory;
}

/** What a snapshot's trailer says of the change log it commits (docs/history.md). */
export interface SnapshotHistory {
  readonly version: string;
  readonly time: number;
  /** The change log's id (its header's `log`), when it has one. */
  readonly log?: string;
}

/** The base a snapshot's first line (`snapshotHeader`) names, if the file starts with one. */
export function snapshotBase(fd: number): string | undefined {
  const head = Buffer.alloc(4096);
  const text = head.toString('utf8', 0, fs.readSync(fd, head, 0, head.length, 0));
  return /^# isil-ld snapshot; base <([^>\n]*)>\n/.exec(text)?.[1];
}

/** Where the last line of the file starts (the line after the last newline but one). */
function lastLineStart(fd: number, size: number): number {
  const block = Buffer.allocUnsafe(1 << 16);
  // The last byte is left out: a newline there ends the last line.
  for (let end = size - 1; end > 0;) {
    const from = Math.max(0, end - block.length);
    const read = fs.readSync(fd, block, 0, end - from, from);
    const at = block.subarray(0, read).lastIndexOf(0x0a);
    if (at !== -1) return from + at + 1;
    end = from;
  }
  return 0;
}

/**
 * The start of each line of the file (without its newline; at most LINE_HEAD bytes of it), in
 * order, read in pieces. Only the start of a line is kept: a line of megabytes is not gathered.
 */
function forEachLineHead(fd: number, visit: (head: Buffer) => void): void {
  let carry: Buffer = Buffer.alloc(0);
  for (const chunk of chunks(fd)) {
    const text = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    let start = 0;
    for (let at = text.indexOf(0x0a); at !== -1; at = text.indexOf(0x0a, start)) {
      visit(text.subarray(start, Math.min(at, start + LINE_HEAD)));
      start = at + 1;
    }
    carry = text.subarray(start, start + LINE_HEAD);
  }
  if (carry.length > 0) visit(carry);
}

/** How much of each line `forEachLineHead` keeps. */
const LINE_HEAD = 1 << 16;

export function readTrailer(file: string, fd: number, baseIri: string): Trailer {
  const size = fs.fstatSync(fd).size;
  const start = lastLineStart(fd, size);
  const head = Buffer.alloc(Math.min(INDEX_LINE.length, size - start));
  fs.readSync(fd, head, 0, head.length, start);
  if (!head.equals(Buffer.from(INDEX_LINE))) throw notWhole(file, fd, baseIri);
  const bytes = Buffer.allocUnsafe(size - start);
  fs.readSync(fd, bytes, 0, bytes.length, start);
  if (bytes.at(-1) !== 0x0a)
    throw refused(file, 'the snapshot is incomplete: its trailer is cut off (no newline ends it)');
  const malformed = (what: string) =>
    refused(file, `the snapshot's trailer is malformed: ${what} (load its sources again)`);
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8', INDEX_LINE.length));
  } catch (error) {
    throw malformed(`not JSON (${(error as Error).message})`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw malformed('not a JSON object');
  const fields = json as Record<string, unknown>;
  const { sha256 } = fields;
  if (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256))
    throw malformed('it has no sha256');
  const count = (name: 'triples' | 'institutions' | 'withdrawn'): number => {
    const value = fields[name];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
      throw malformed(`it has no count of ${name} (an older loader's?)`);
    return value;
  };
  // A snapshot of an older loader has no version, states and rest: its load canonicalises.
  const { version, rest } = fields;
  const states = readCompactStates(fields.states);
  const versioned = typeof version === 'string' && typeof rest === 'string' && states !== undefined;
  const history = fields.history as SnapshotHistory | null | undefined;
  return {
    start,
    bytes,
    sha256,
    triples: count('triples'),
    institutions: count('institutions'),
    withdrawn: count('withdrawn'),
    query: fields.query,
    rows: fields.rows,
    ...(versioned ? { version, states, rest } : {}),
    ...(typeof history?.version === 'string' && Number.isSafeInteger(history.time) && { history }),
  };
}

/** Why a snapshot whose last line is no trailer is refused: cut off, or lines appended. */
function notWhole(file: string, fd: number, baseIri: string): LoadError {
  const typed = Buffer.from(`> <${PREFIXES.rdf}type> <${PREFIXES.foaf}Organization> `);
  const institution = Buffer.from(`<${baseIri}${RESOURCE_PATH}`);
  const index = Buffer.from(INDEX_LINE);
  let lines = 0;
  let institutions = 0;
  let trailerLine: number | undefined;
  forEachLineHead(fd, (line) => {
    lines++;
    if (line.subarray(0, index.length).equals(index)) trailerLine = lines;
    else if (line.subarray(0, institution.length).equals(institution) && line.includes(typed))
      institutions++;
  });
  const reason =
    trailerLine === undefined
      ? `the snapshot is incomplete: its trailer is missing (cut off after ${figure(institutions)} institutions?)`
      : `the snapshot is not as written: ${lines - trailerLine === 1 ? 'a line follows' : `${figure(lines - trailerLine)} lines follow`} its trailer (line ${figure(trailerLine)}), which must be its last line`;
  return refused(file, reason);
}

/** Refuses a snapshot whose bytes or triples are not those its trailer counted. */
export function checkTrailer(
  file: string,
  trailer: Trailer,
  sha256: string,
  triples: number,
): void {
  const refuse = (what: string) =>
    refused(file, `the snapshot does not match its trailer: ${what}`);
  if (sha256 !== trailer.sha256)
    throw refuse(
      `its bytes before the trailer have the sha256 ${sha256.slice(0, 16)}…, the trailer says ${trailer.sha256.slice(0, 16)}… (changed since it was written?)`,
    );
  if (triples !== trailer.triples)
    throw refuse(
      `the trailer says ${figure(trailer.triples)} triples, ${figure(triples)} were read`,
    );
}

/** Refuses a snapshot loaded alone whose institutions are not those its trailer counted. */
export function checkInstitutions(
  file: string,
  trailer: Trailer,
  dataset: Dataset<DatasetStore>,
): void {
  const refuse = (what: string) =>
    refused(file, `the snapshot does not match its trailer: ${what}`);
  if (dataset.institutionCount !== trailer.institutions)
    throw refuse(
      `the trailer says ${figure(trailer.institutions)} institutions, ${figure(dataset.institutionCount)} were read`,
    );
  if (dataset.withdrawnCount !== trailer.withdrawn)
    throw refuse(
      `the trailer says ${figure(trailer.withdrawn)} withdrawn institutions, ${figure(dataset.withdrawnCount)} were read`,
    );
}

/**
 * The rows of a snapshot's trailer, when `store`'s index query is the one they were read with and
 * every row has the shape of a row of that query; otherwise none (the store is queried).
 */
export function trailerRows(trailer: Trailer, store: DatasetStore): SelectBinding[] | undefined {
  const { query, rows } = trailer;
  if (query !== queryHash(store) || !Array.isArray(rows)) return undefined;
  const wellFormed = rows.every(
    (row: unknown) =>
      isBoundTerm((row as SelectBinding | null)?.institution) &&
      Object.values(row as SelectBinding).every(isBoundTerm),
  );
  return wellFormed ? (rows as SelectBinding[]) : undefined;
}

/** Whether `error` is V8 refusing to make a string longer than it can. */
export function isStringTooLong(error: unknown): boolean {
  // From another thread an error arrives as a plain Error that keeps its name (src/threads/wire.ts).
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return (
    (cause as NodeJS.ErrnoException | undefined)?.code === 'ERR_STRING_TOO_LONG' ||
    ((cause instanceof RangeError || (cause as Error | undefined)?.name === 'RangeError') &&
      (cause as Error).message === 'Invalid string length')
  );
}

/**
 * `reads` of N-Quads gathered into texts that each end where a chunk mark starts (`\n# chunk\n`:
 * the text ends with its newline, the next begins with the comment), the last with whatever
 * follows the final mark. A read without a mark (a group of blank nodes larger than a read) is
 * carried and joined once a mark comes, a mark two reads share too: each text may go to the store
 * in one call, as no blank node spans a mark.
 */
export function* markedTexts(reads: Iterable<Buffer>): Generator<Buffer> {
  const mark = Buffer.from(`\n${CHUNK_MARK}`);
  let carry: Buffer[] = [];
  /** The last bytes carried, fewer than a mark's: one may start there. */
  let tail: Buffer = Buffer.alloc(0);
  for (const bytes of reads) {
    const seen = Buffer.concat([tail, bytes]);
    carry.push(bytes);
    if (seen.includes(mark)) {
      const text = Buffer.concat(carry);
      const cut = text.lastIndexOf(mark) + 1;
      yield text.subarray(0, cut);
      carry = [text.subarray(cut)];
    }
    tail = (carry.length > 1 ? seen : carry[0]!).subarray(1 - mark.length);
  }
  const rest = Buffer.concat(carry);
  if (rest.length > 0) yield rest;
}
