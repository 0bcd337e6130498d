// What a served dataset says about each ISIL, read back from its store: the states a change log
// compares, and the canonical descriptions its events keep. A load has them already
// (`Loaded.history`); this reads them from a dataset that came without (a restored snapshot served
// with a change log that does not end with it), one description at a time.
import type { Dataset, Institution } from '../store/dataset';
import { canonicalDescription, stateOf } from './canonical';
import type { InstitutionState } from './model';
import { writeTriples } from './text';

export interface DatasetStates {
  readonly states: ReadonlyMap<string, InstitutionState>;
  /** The canonical description of each ISIL with its links. */
  readonly descriptions: ReadonlyMap<string, string>;
}

/** The states of every ISIL of `dataset`, live and withdrawn, described one by one. */
export async function statesOf(dataset: Dataset): Promise<DatasetStates> {
  const states = new Map<string, InstitutionState>();
  const descriptions = new Map<string, string>();
  const read = async (institution: Institution, live: boolean) => {
    // As stored (the full profile), as the loader's states are read: the same hash for the same data.
    const description = await dataset.describe(institution, 'full');
    const text = canonicalDescription(institution.iri, writeTriples(description.triples));
    descriptions.set(institution.isil, text);
    states.set(
      institution.isil,
      stateOf(institution.isil, institution.iri, live, text, dataset.baseIri),
    );
  };
  for (const institution of dataset.institutions()) await read(institution, true);
  for (const { isil, iri, name, modified } of dataset.withdrawnInstitutions())
    await read({ isil, iri, name, modified }, false);
  return { states, descriptions };
}
