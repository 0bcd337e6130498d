// The history of a version that comes without a log (the bundled sources, a snapshot loaded with
// HISTORY_DIR unset or empty of it): one version, at its own time, where every served ISIL is
// created and every withdrawn one withdrawn; nothing is known before it. Its mementos are the
// current descriptions, read from the store that serves them. Nothing records its time, so other
// data with the same newest date is another version at the same time: it is served as mutable.
import type { Dataset } from '../store/dataset';
import { writeTriples } from './text';
import { MemoryHistory } from './memory';
import type { History, HistoryEvent, InstitutionState } from './model';

/**
 * The time of a version without a log when its data says none: the newest `dcterms:modified` among
 * its records and its links list (so every machine serving the same sources serves the same
 * history), else `fallback` (when it was loaded). Whole seconds.
 */
export function dataTime(dataset: Dataset, fallback: Date): number {
  let newest = dataset.links?.modified.getTime() ?? Number.NEGATIVE_INFINITY;
  for (const institution of dataset.institutions())
    if (institution.modified && institution.modified.getTime() > newest)
      newest = institution.modified.getTime();
  for (const withdrawn of dataset.withdrawnInstitutions())
    if (withdrawn.modified && withdrawn.modified.getTime() > newest)
      newest = withdrawn.modified.getTime();
  return Math.floor((Number.isFinite(newest) ? newest : fallback.getTime()) / 1000);
}

/**
 * The one-version history of `dataset` at `time`. `states` gives each ISIL's hash when the load
 * made them; the mementos are described by the dataset's store, as its documents are.
 */
export function derivedHistory(
  dataset: Dataset,
  time: number,
  states: ReadonlyMap<string, InstitutionState> | undefined = dataset.states,
): History {
  const { version } = dataset;
  const events: HistoryEvent[] = [];
  for (const institution of dataset.institutions())
    events.push({
      kind: 'created',
      isil: institution.isil,
      version,
      time,
      hash: states?.get(institution.isil)?.hash ?? '',
    });
  for (const withdrawn of dataset.withdrawnInstitutions()) {
    const successors = states?.get(withdrawn.isil)?.successors;
    events.push({
      kind: 'withdrawn',
      isil: withdrawn.isil,
      version,
      time,
      ...(successors && successors.length > 0 ? { successors } : {}),
    });
  }
  events.sort((a, b) => (a.isil < b.isil ? -1 : a.isil > b.isil ? 1 : 0));
  const read = async (event: HistoryEvent) => {
    const lookup = dataset.exact(event.isil);
    if (lookup?.kind !== 'found') throw new Error(`${event.isil} is not served by ${version}`);
    const description = await dataset.describe(lookup.institution, 'full');
    return writeTriples(description.triples);
  };
  return new MemoryHistory([{ version, time }], events, read, undefined, true);
}
