// The repository's items: every ISIL the change log knows, with its latest event (its datestamp,
// and whether it is deleted), in order of time then ISIL: the order every list is cut from. Made
// once per history; pure.
import type { History, HistoryEvent } from '../history/model';

/**
 * An item: the ISIL's latest event. Deleted only when the ISIL is gone: a withdrawn one is a
 * record, whose description says it is withdrawn and names its successor (its 410's body).
 */
export interface Item {
  readonly isil: string;
  readonly event: HistoryEvent;
  readonly deleted: boolean;
  /** The ISIL's prefix (its `country:` set). */
  readonly country: string;
}

const itemsOf = new WeakMap<History, readonly Item[]>();

const isDeleted = (event: HistoryEvent) => event.kind === 'deleted';

/** The ISIL's prefix: a country code, or another prefix such as `ZDB`, in upper case. */
export const countryOf = (isil: string): string => isil.split('-')[0]!.toUpperCase();

/** Every item of `history`, in order of datestamp then ISIL. */
export function items(history: History): readonly Item[] {
  const made = itemsOf.get(history);
  if (made) return made;
  const latest = new Map<string, HistoryEvent>();
  for (const event of history.all()) latest.set(event.isil, event);
  const list = [...latest.values()]
    .sort((a, b) => a.time - b.time || (a.isil < b.isil ? -1 : a.isil > b.isil ? 1 : 0))
    .map((event) => ({
      isil: event.isil,
      event,
      deleted: isDeleted(event),
      country: countryOf(event.isil),
    }));
  itemsOf.set(history, list);
  return list;
}

/** The item of one ISIL, exactly as spelled. */
export function itemOf(history: History, isil: string): Item | undefined {
  const event = history.events(isil).at(-1);
  return event
    ? {
        isil,
        event,
        deleted: isDeleted(event),
        country: countryOf(isil),
      }
    : undefined;
}

/** The kinds the `type:` sets tell apart; `unknown` when the description says none. */
export const TYPE_SETS = ['library', 'archive', 'museum', 'other', 'unknown'] as const;
export type TypeSet = (typeof TYPE_SETS)[number];

/** A selection: datestamps from and until (inclusive, seconds), and a set. */
export interface Selection {
  readonly from?: number;
  readonly until?: number;
  readonly set?: { readonly kind: 'country' | 'type'; readonly value: string };
}

/**
 * The items `selection` picks, in list order. A `type:` set needs each live item's kind
 * (`typeOf`); deleted items are in their country's set only, their description being gone.
 */
export function select(
  all: readonly Item[],
  selection: Selection,
  typeOf?: (isil: string) => TypeSet,
): Item[] {
  const { from, until, set } = selection;
  // The list is ordered by time: the bounds are found by bisection, the set filtered between.
  const start = from === undefined ? 0 : firstAtOrAfter(all, from);
  const end = until === undefined ? all.length : firstAtOrAfter(all, until + 1);
  const picked: Item[] = [];
  for (let i = start; i < end; i++) {
    const item = all[i]!;
    if (set?.kind === 'country' && item.country !== set.value) continue;
    if (set?.kind === 'type' && (item.deleted || typeOf?.(item.isil) !== set.value)) continue;
    picked.push(item);
  }
  return picked;
}

function firstAtOrAfter(all: readonly Item[], time: number): number {
  let low = 0;
  let high = all.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (all[middle]!.event.time < time) low = middle + 1;
    else high = middle;
  }
  return low;
}
