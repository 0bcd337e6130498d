// The registry's history (docs/history.md): what each version says about each ISIL, the events
// that lead from one version to the next, and which past state a datetime selects. Pure: the
// change log on disk (src/history/log.ts), the remote store's layout and the HTTP routes build on
// these types and never redefine them.

/** What a version says about one ISIL: served (live) or withdrawn, and the hash of what is served. */
export interface InstitutionState {
  readonly isil: string;
  readonly status: 'live' | 'withdrawn';
  /**
   * The content hash of the institution's canonical description with its links (`institutionHash`
   * in src/history/canonical.ts): what its documents serve. A withdrawn ISIL's hash is of its
   * minimal description.
   */
  readonly hash: string;
  /** A withdrawn ISIL's successors (their ISILs), as its description names them. */
  readonly successors?: readonly string[];
}

/**
 * What changed for one ISIL from one version to the next: `created` (new, or served again after a
 * withdrawal), `updated` (served in both, another hash), `withdrawn` (moved to the withdrawn list;
 * its successors named), `deleted` (gone without a withdrawal record).
 */
export type EventKind = 'created' | 'updated' | 'withdrawn' | 'deleted';

/** One change, as the log keeps it and every protocol (Memento, LDES, OAI-PMH) reads it. */
export interface HistoryEvent {
  readonly kind: EventKind;
  readonly isil: string;
  /** The version that made the change, and its time (seconds since the epoch, UTC). */
  readonly version: string;
  readonly time: number;
  /** created, updated: the hash of the description served from this version on. */
  readonly hash?: string;
  /** withdrawn: the successors named. */
  readonly successors?: readonly string[];
}

/**
 * The versions a history once held and no longer does (dropped by retention, or set aside by a
 * reset): the times of the oldest and the newest of them, and how many there were when known.
 */
export interface DroppedVersions {
  readonly first: number;
  readonly last: number;
  readonly versions?: number;
}

/** A version of the history: its name (`Dataset-Version`) and its time (seconds, UTC). */
export interface VersionInfo {
  readonly version: string;
  readonly time: number;
}

/** A change found by `diff`, before it is given its version and time. */
export type Change = Omit<HistoryEvent, 'version' | 'time'>;

/**
 * The changes from `previous` (none: the first version, where every served ISIL is created and
 * every withdrawn one is recorded withdrawn) to `next`, in ISIL order. An unchanged ISIL makes no
 * change; a withdrawn ISIL that stays withdrawn makes none either, whatever its minimal
 * description says.
 */
export function diff(
  previous: ReadonlyMap<string, InstitutionState> | undefined,
  next: ReadonlyMap<string, InstitutionState>,
): Change[] {
  const changes: Change[] = [];
  const withdrawn = (state: InstitutionState): Change => ({
    kind: 'withdrawn',
    isil: state.isil,
    ...(state.successors && state.successors.length > 0
      ? { successors: [...state.successors] }
      : {}),
  });
  for (const state of next.values()) {
    const before = previous?.get(state.isil);
    if (state.status === 'live') {
      if (before === undefined || before.status === 'withdrawn')
        changes.push({ kind: 'created', isil: state.isil, hash: state.hash });
      else if (before.hash !== state.hash)
        changes.push({ kind: 'updated', isil: state.isil, hash: state.hash });
    } else if (before === undefined ? previous === undefined : before.status === 'live') {
      changes.push(withdrawn(state));
    }
  }
  if (previous)
    for (const state of previous.values())
      if (!next.has(state.isil) && state.status === 'live')
        changes.push({ kind: 'deleted', isil: state.isil });
  return changes.sort((a, b) => (a.isil < b.isil ? -1 : a.isil > b.isil ? 1 : 0));
}

/** Each ISIL's state after `events` (in order): its latest event says it; a deletion, none. */
export function statesAfterEvents(events: Iterable<HistoryEvent>): Map<string, InstitutionState> {
  const latest = new Map<string, HistoryEvent>();
  for (const e of events) latest.set(e.isil, e);
  const states = new Map<string, InstitutionState>();
  for (const e of latest.values()) {
    if (e.kind === 'deleted') continue;
    states.set(
      e.isil,
      e.kind === 'withdrawn'
        ? {
            isil: e.isil,
            status: 'withdrawn',
            hash: '',
            ...(e.successors ? { successors: e.successors } : {}),
          }
        : { isil: e.isil, status: 'live', hash: e.hash ?? '' },
    );
  }
  return states;
}

/**
 * A new version's time: `now` in whole seconds, strictly after the previous version's (a second
 * later when the clock says otherwise), so that no two versions share a time and history never
 * runs backwards.
 */
export function versionTime(now: Date, previous: number | undefined): number {
  const seconds = Math.floor(now.getTime() / 1000);
  return previous !== undefined && seconds <= previous ? previous + 1 : seconds;
}

/** Whether the event left a description to serve (a memento). */
export function isMemento(event: HistoryEvent): boolean {
  return event.kind === 'created' || event.kind === 'updated';
}

/**
 * The memento a datetime selects among `mementos` (oldest first): the latest at or before it
 * (compared in whole seconds), the first when it precedes them all, the latest when none is asked.
 */
export function selectMemento<T extends { readonly time: number }>(
  mementos: readonly T[],
  datetime: number | undefined,
): T | undefined {
  if (mementos.length === 0) return undefined;
  if (datetime === undefined) return mementos.at(-1);
  const at = Math.floor(datetime);
  let chosen = mementos[0];
  for (const memento of mementos) {
    if (memento.time > at) break;
    chosen = memento;
  }
  return chosen;
}

/**
 * A history as the service reads it, whichever store keeps it: its versions, each ISIL's events,
 * and the description each memento serves.
 */
export interface History {
  /** The versions, oldest first; the last is the one served. */
  readonly versions: readonly VersionInfo[];
  /** The ISIL's events (exactly as spelled), oldest first; empty when the history never knew it. */
  events(isil: string): readonly HistoryEvent[];
  /**
   * The spelling the history knows for an ISIL in any case (of two that differ only in case, the
   * first in code-unit order, as the dataset's rule), or undefined when it never knew one.
   */
  spelling(isil: string): string | undefined;
  /** The ISIL's mementos (its `created` and `updated` events), oldest first. */
  mementos(isil: string): readonly HistoryEvent[];
  /** When the ISIL last changed (its last event's time), if the history knows it. */
  lastChange(isil: string): number | undefined;
  /**
   * The canonical N-Triples of a memento's description with its links (what was served then).
   * Rejects for an event that is no memento.
   */
  description(event: HistoryEvent): Promise<string>;
  /** Every event, in order of version time then ISIL, from `after` (an index into that order). */
  all(after?: number): Iterable<HistoryEvent>;
  /** How many events the history holds. */
  readonly size: number;
  /** The versions it held before its first one and dropped: a page of them is gone, not unknown. */
  readonly dropped?: DroppedVersions;
  /**
   * Whether it is a version's own, derived without a log: a reload of other data may give another
   * version its time, so nothing of it is served as never changing (docs/history.md).
   */
  readonly derived: boolean;
  /** Releases what the history holds open (its log file); reading descriptions fails after. */
  close(): void;
}

/** An HTTP-date (IMF-fixdate) of a time in seconds. */
export function httpDate(seconds: number): string {
  return new Date(seconds * 1000).toUTCString();
}

/** A memento's datetime in its URI: 14 digits, YYYYMMDDhhmmss (UTC). */
export function timestamp14(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** The seconds of a 14-digit timestamp, or undefined when it is not one of a real time. */
export function parseTimestamp14(text: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  const ms = Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
  return timestamp14(ms / 1000) === text ? ms / 1000 : undefined;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = `(?:${DAYS.join('|')})`;
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** The three forms of RFC 9110 §5.6.7, each captured as day, month, year, hour, minute, second. */
const IMF = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC850 = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/**
 * An RFC 850 date's two-digit year: the year with those digits that is not more than 50 years
 * after `now` (RFC 9110 §5.6.7).
 */
function fullYear(twoDigits: number, now: number): number {
  const current = new Date(now).getUTCFullYear();
  const year = current - (current % 100) + twoDigits;
  return year > current + 50 ? year - 100 : year;
}

/**
 * The seconds of an `Accept-Datetime` value (an HTTP-date, RFC 9110 §5.6.7: IMF-fixdate, or the
 * obsolete RFC 850 and asctime forms a recipient must accept), or undefined when it is malformed
 * or names a time that never was (31 February, 24:00:00). The weekday is not checked. A leap
 * second (23:59:60, on a month's last day) reads as 23:59:59: POSIX time, which the mementos' times
 * count, has no second for it, and the latest memento at or before it is the latest at or before
 * 23:59:59.
 */
export function parseHttpDate(text: string, now = Date.now()): number | undefined {
  const value = text.trim();
  const fields = dateFields(value, now);
  if (fields === undefined) return undefined;
  const { year, month, day, hour, minute, second } = fields;
  const leap = hour === 23 && minute === 59 && second === 60;
  // setUTCFullYear, not Date.UTC: that reads the years 0 to 99 as 1900 to 1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  date.setUTCHours(hour, minute, leap ? 59 : second);
  // An impossible field is carried into the next one (31 Feb is 3 Mar): refused instead.
  const exists =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    (leap ? new Date(date.getTime() + 1000).getUTCDate() === 1 : date.getUTCSeconds() === second);
  return exists ? date.getTime() / 1000 : undefined;
}

/** The fields of an HTTP-date in any of its three forms, as written (month from 0). */
function dateFields(value: string, now: number) {
  const imf = IMF.exec(value);
  const rfc850 = RFC850.exec(value);
  const asctime = ASCTIME.exec(value);
  let day, month, year, hour, minute, second;
  if (imf) [, day, month, year, hour, minute, second] = imf;
  else if (rfc850) [, day, month, year, hour, minute, second] = rfc850;
  else if (asctime) [, month, day, hour, minute, second, year] = asctime;
  else return undefined;
  return {
    year: rfc850 ? fullYear(Number(year), now) : Number(year),
    month: MONTHS.indexOf(month!),
    day: Number(day!.trim()),
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second),
  };
}
