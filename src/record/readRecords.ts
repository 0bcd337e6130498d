// Reads the flat records of a dataset's institutions for the index's thread, a few descriptions
// at a time through the store port, so that a build leaves the store's thread free for requests.
// A version's entries are read once: before it is served (the OAI-PMH kinds need them, and are
// ready when the version is) and kept for its index's build, which takes them.
import type { Dataset } from '../store/dataset';
import { flatRecord, withPosition, type FlatRecord } from './flatRecord';

/** Descriptions read at once while building: leaves the store's thread free for requests. */
const IN_FLIGHT = 4;

/** Entries handed to the index's thread in one message. */
const BATCH = 500;

/**
 * The flat records of `dataset`'s institutions, read through the store port `IN_FLIGHT` at a
 * time and handed on `BATCH` at a time; stops early, returning false, once `wanted` says so.
 */
export async function readRecords(
  dataset: Dataset,
  hand: (entries: FlatRecord[]) => Promise<void> | void,
  wanted: () => boolean = () => true,
): Promise<boolean> {
  const institutions = [...dataset.institutions()];
  for (let at = 0; at < institutions.length; at += BATCH) {
    const slice = institutions.slice(at, at + BATCH);
    const entries: FlatRecord[] = new Array(slice.length);
    let next = 0;
    const reader = async () => {
      while (next < slice.length && wanted()) {
        const i = next++;
        const { isil } = slice[i]!;
        const entry = flatRecord(isil, await dataset.describe(slice[i]!));
        entries[i] = withPosition(entry, dataset.positions?.get(isil));
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, reader));
    if (!wanted()) return false;
    await hand(entries);
  }
  return wanted();
}

const kept = new WeakMap<Dataset, Promise<readonly FlatRecord[][]>>();

/**
 * Every entry of `dataset`, read once and kept (in batches of `BATCH`) until the build of its
 * index takes them (`takeRecords`); what else reads them (the OAI-PMH kinds) shares the read.
 */
export function keepRecords(dataset: Dataset): Promise<readonly FlatRecord[][]> {
  let read = kept.get(dataset);
  if (!read) {
    const batches: FlatRecord[][] = [];
    read = readRecords(dataset, (entries) => void batches.push(entries)).then(() => batches);
    kept.set(dataset, read);
    read.catch(() => kept.delete(dataset));
  }
  return read;
}

/**
 * Hands `dataset`'s entries on as `readRecords` does: those `keepRecords` read, given up to this
 * one taker and no longer kept, else read now.
 */
export async function takeRecords(
  dataset: Dataset,
  hand: (entries: FlatRecord[]) => Promise<void> | void,
  wanted: () => boolean = () => true,
): Promise<boolean> {
  const read = kept.get(dataset);
  if (!read) return readRecords(dataset, hand, wanted);
  kept.delete(dataset);
  for (const entries of await read) {
    if (!wanted()) return false;
    await hand(entries);
  }
  return wanted();
}
