// The pages of the change feed (docs/history.md, "Following the change feed"), a function of the
// history alone: every replica that serves the same log cuts it into the same pages.
//
// A version's events (one time, ISIL order) are cut into pages of FEED_PAGE_SIZE members, named
// `<YYYYMMDDhhmmss>/<n>` after the version's time: a page never holds two versions, so the pages of
// a version stay the same whatever came before them or is kept of it. Retention drops old versions
// whole and carries each ISIL's latest event over; those carried events stand before the first
// version kept, in pages `<first kept>/before/<n>`, and the pages of versions dropped are gone.
//
// The pages of one run (a version, or the carried events) form a chain entered at its first page.
// The runs are grouped FEED_ROOT_RUNS at a time, oldest first: the root links the first pages of
// the newest group's runs, and an index page `index/<n>` (no members) those of group n and the
// index page before it. Every page is linked from one node only, so a client that follows every
// relation at once (the reference client does) fetches each page once, and each relation's bounds
// hold for every member reachable through it, as TREE means them.
import {
  timestamp14,
  type DroppedVersions,
  type History,
  type HistoryEvent,
} from '../history/model';

/** Members a page holds at most (docs/history.md). */
export const FEED_PAGE_SIZE = 250;

/**
 * Runs the root or an index page links at most. The root linked every version's first page, which
 * grew with the versions and was made on the serving thread whenever a new version came
 * (docs/benchmark.md, "the feed root (TriG) at 10,000 versions").
 */
export const FEED_ROOT_RUNS = 100;

/** One page of the feed: its members and the bounds of their times. */
export interface FeedPage {
  /** Its path below `/feed/`: `20250301120000/1`, or `20250301120000/before/1`. */
  readonly id: string;
  /** Its members, in order of time, then ISIL. */
  readonly events: readonly HistoryEvent[];
  /** Every member's time is at or after `lower` and before `upper` (seconds). */
  readonly lower: number;
  readonly upper: number;
  /** Its place in the feed's order (0: the oldest page). */
  readonly index: number;
  /** Whether it starts its run: the root links it; any other page is linked by the one before. */
  readonly first: boolean;
  /** Every member reachable from it (it and the rest of its run) is before `reach` (seconds). */
  readonly reach: number;
  /** When its members were all made: its version's time (the first kept, for carried events). */
  readonly made: number;
}

export interface FeedLayout {
  /** The pages, oldest first; the last one is the newest (it gains a relation with a new version). */
  readonly pages: readonly FeedPage[];
  /** The time of the first version kept. */
  readonly firstKept: number | undefined;
  /** The versions the history held before it and dropped: a page of their times is gone (410). */
  readonly dropped: DroppedVersions | undefined;
  /** The time of the newest version. */
  readonly newest: number | undefined;
  readonly byId: ReadonlyMap<string, FeedPage>;
  /** Whether its pages can be promised never to change: not those of a derived history. */
  readonly kept: boolean;
  /** The first page of each run, oldest first. */
  readonly runs: readonly FeedPage[];
  /** Runs a group holds: the root links the last group, index page n group n (from 1). */
  readonly groupSize: number;
}

/** The index pages of `layout`: every group but the newest, which the root links. */
export const indexCount = (layout: FeedLayout): number =>
  Math.max(0, Math.ceil(layout.runs.length / layout.groupSize) - 1);

/** What a node links: the first pages of its runs, and the index page before it (0: none). */
export interface NodeLinks {
  readonly runs: readonly FeedPage[];
  readonly before: number;
}

/** The links of index page `n` (1 to `indexCount`), or of the root (`n` = indexCount + 1). */
export function nodeLinks(layout: FeedLayout, n: number): NodeLinks {
  const { runs, groupSize } = layout;
  return { runs: runs.slice((n - 1) * groupSize, n * groupSize), before: n - 1 };
}

/** A page asked for: found, dropped by retention (410), or not a page of this feed (404). */
export type PageLookup =
  | { readonly kind: 'page'; readonly page: FeedPage }
  | { readonly kind: 'index'; readonly n: number }
  | { readonly kind: 'gone' }
  | { readonly kind: 'none' };

const PAGE_ID = /^(\d{14})\/(?:before\/)?[1-9]\d{0,8}$/;
const INDEX_ID = /^index\/([1-9]\d{0,8})$/;

/** Cuts `events` (one run of the order) into pages of at most `size`, numbered from 1. */
function cut(
  events: readonly HistoryEvent[],
  size: number,
  prefix: string,
  made: number,
  pages: FeedPage[],
): void {
  // A version's pages share its bounds; carried pages are bounded by their own events' times.
  const reach = events.at(-1)!.time + 1;
  for (let at = 0, n = 1; at < events.length; at += size, n++) {
    const chunk = events.slice(at, at + size);
    pages.push({
      id: `${prefix}/${n}`,
      events: chunk,
      lower: chunk[0]!.time,
      upper: chunk.at(-1)!.time + 1,
      index: pages.length,
      first: n === 1,
      reach,
      made,
    });
  }
}

/** The feed's pages of `history`, `size` members a page at most, `groupSize` runs a node. */
export function feedLayout(
  history: History,
  size = FEED_PAGE_SIZE,
  groupSize = FEED_ROOT_RUNS,
): FeedLayout {
  const firstKept = history.versions[0]?.time;
  const newest = history.versions.at(-1)?.time;
  const carried: HistoryEvent[] = [];
  const byTime = new Map<number, HistoryEvent[]>();
  for (const event of history.all()) {
    if (firstKept !== undefined && event.time < firstKept) {
      carried.push(event);
      continue;
    }
    const same = byTime.get(event.time);
    if (same) same.push(event);
    else byTime.set(event.time, [event]);
  }
  const pages: FeedPage[] = [];
  if (firstKept !== undefined && carried.length > 0)
    cut(carried, size, `${timestamp14(firstKept)}/before`, firstKept, pages);
  for (const [time, events] of [...byTime].sort((a, b) => a[0] - b[0]))
    cut(events, size, timestamp14(time), time, pages);
  return {
    pages,
    firstKept,
    dropped: history.dropped,
    newest,
    byId: new Map(pages.map((p) => [p.id, p])),
    runs: pages.filter((p) => p.first),
    groupSize,
    kept: !history.derived,
  };
}

/** The page of `layout` named `id` (the path below `/feed/`), or why there is none. */
export function findPage(layout: FeedLayout, id: string): PageLookup {
  const index = INDEX_ID.exec(id);
  if (index) {
    const n = Number(index[1]);
    return n <= indexCount(layout) ? { kind: 'index', n } : { kind: 'none' };
  }
  const m = PAGE_ID.exec(id);
  if (!m) return { kind: 'none' };
  const page = layout.byId.get(id);
  if (page) return { kind: 'page', page };
  const time = Date.UTC(
    Number(m[1]!.slice(0, 4)),
    Number(m[1]!.slice(4, 6)) - 1,
    Number(m[1]!.slice(6, 8)),
    Number(m[1]!.slice(8, 10)),
    Number(m[1]!.slice(10, 12)),
    Number(m[1]!.slice(12, 14)),
  );
  // A page of a time the dropped versions span (theirs, or the events carried to one of them); a
  // time before the oldest version the history ever held was never a page.
  const seconds = time / 1000;
  const { dropped } = layout;
  const gone =
    dropped !== undefined &&
    timestamp14(seconds) === m[1] &&
    seconds >= dropped.first &&
    seconds <= dropped.last;
  return gone ? { kind: 'gone' } : { kind: 'none' };
}

/** The page `page` links: the next of its run, if any. */
export function nextInRun(layout: FeedLayout, page: FeedPage): FeedPage | undefined {
  const next = layout.pages[page.index + 1];
  return next && !next.first ? next : undefined;
}

/**
 * Whether a page is served as never changing: every page but the newest, the feed's head that
 * clients poll (no page changes once its version is written, but the head is where a client
 * following the feed looks, and a short cache there costs nothing), of a history kept in a log.
 */
export function isImmutable(layout: FeedLayout, page: FeedPage): boolean {
  return layout.kept && page.index < layout.pages.length - 1;
}
