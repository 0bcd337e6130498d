// Reads the search entries of a dataset's institutions for the index's thread, a few descriptions
// at a time through the store port, so that a build leaves the store's thread free for requests.
import type { Dataset } from '../store/dataset';
import { searchEntry, type SearchEntry } from './entry';

/** Descriptions read at once while building: leaves the store's thread free for requests. */
const IN_FLIGHT = 4;

/** Entries handed to the index's thread in one message. */
const BATCH = 500;

/**
 * The search entries of `dataset`'s institutions, read through the store port `IN_FLIGHT` at a
 * time and handed on `BATCH` at a time; stops early, returning false, once `wanted` says so.
 */
export async function readEntries(
  dataset: Dataset,
  hand: (entries: SearchEntry[]) => Promise<void> | void,
  wanted: () => boolean = () => true,
): Promise<boolean> {
  const institutions = [...dataset.institutions()];
  for (let at = 0; at < institutions.length; at += BATCH) {
    const slice = institutions.slice(at, at + BATCH);
    const entries: SearchEntry[] = new Array(slice.length);
    let next = 0;
    const reader = async () => {
      while (next < slice.length && wanted()) {
        const i = next++;
        const { isil } = slice[i]!;
        entries[i] = searchEntry(isil, await dataset.describe(slice[i]!));
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, reader));
    if (!wanted()) return false;
    await hand(entries);
  }
  return wanted();
}
