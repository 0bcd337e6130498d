// The change log's header line and the checks its terms share (src/history/log.ts says the form):
// which service and dataset it is, and the versions it no longer holds.
import type { LoggedVersion } from './log';
import type { DroppedVersions } from './model';

/** A change log that cannot be read or written as it is: said in one line, naming the file. */
export class HistoryError extends Error {
  override name = 'HistoryError';
}

/** The latest time a log may name: the end of the year 9999, the last an HTTP date can say. */
const LAST_TIME = 253402300799;

export function isTime(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= LAST_TIME;
}

export function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/**
 * The versions a log dropped before its `first`: as its header says them (refused when they reach
 * it), or for a log of an older loader (none in its header) what its carried events tell: from
 * the oldest event carried before its first version to just before that version.
 */
export function droppedOf(
  header: DroppedVersions | undefined,
  first: LoggedVersion | undefined,
  refuse: (reason: string) => HistoryError,
): DroppedVersions | undefined {
  if (header && first && header.last >= first.time)
    throw refuse(
      `its header says versions up to ${header.last} were dropped, and it holds ${first.version} at ${first.time}`,
    );
  if (header) return header;
  let oldest: number | undefined;
  for (const e of first?.events ?? [])
    if (e.time < first!.time && (oldest === undefined || e.time < oldest)) oldest = e.time;
  return oldest === undefined ? undefined : { first: oldest, last: first!.time - 1 };
}

/** A header's `dropped`, checked: two times in order, and a count of at least one if any. */
function readDropped(value: unknown): DroppedVersions | undefined {
  const d = value as Partial<DroppedVersions> | null;
  if (
    typeof d !== 'object' ||
    d === null ||
    !isTime(d.first) ||
    !isTime(d.last) ||
    d.first > d.last ||
    !(d.versions === undefined || (Number.isSafeInteger(d.versions) && d.versions > 0))
  )
    return undefined;
  return { first: d.first, last: d.last, ...(d.versions ? { versions: d.versions } : {}) };
}

export function readHeader(
  line: string,
  refuse: (reason: string) => HistoryError,
): { base: string; log?: string; dropped?: DroppedVersions } {
  const header = parseJson(line) as {
    history?: unknown;
    base?: unknown;
    log?: unknown;
    dropped?: unknown;
  };
  if (!header || typeof header !== 'object')
    throw refuse('not a change log (its first line is not its header)');
  if (
    header.history !== 1 ||
    typeof header.base !== 'string' ||
    (header.log !== undefined && typeof header.log !== 'string')
  )
    throw refuse(`not a change log this service reads (header ${line.slice(0, 120)})`);
  const dropped = header.dropped === undefined ? undefined : readDropped(header.dropped);
  if (header.dropped !== undefined && dropped === undefined)
    throw refuse(
      `its header's dropped versions are not two times and a count (${line.slice(0, 120)})`,
    );
  return {
    base: header.base,
    ...(typeof header.log === 'string' ? { log: header.log } : {}),
    ...(dropped ? { dropped } : {}),
  };
}
