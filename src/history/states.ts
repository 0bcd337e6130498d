// What a served dataset says about each ISIL, read back from its store: the states a change log
// compares, and the canonical descriptions its events keep. The loader has them from the load
// itself; this reads them from a dataset that came without (a restored snapshot).
import crypto from 'node:crypto';
import type { Dataset } from '../store/dataset';
import type { InstitutionState } from './model';
import { writeTriples } from './text';

/** The content hash of a canonical description with its links: 32 hex digits of its sha256. */
export function hashOf(canonical: string): string {
  return crypto.createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}

export interface DatasetStates {
  readonly states: Map<string, InstitutionState>;
  /** The canonical description of each live ISIL. */
  readonly descriptions: Map<string, string>;
}

/** The states of every ISIL of `dataset`, described one by one. */
export async function statesOf(dataset: Dataset): Promise<DatasetStates> {
  const states = new Map<string, InstitutionState>();
  const descriptions = new Map<string, string>();
  for (const institution of dataset.institutions()) {
    const text = writeTriples((await dataset.describe(institution)).triples);
    descriptions.set(institution.isil, text);
    states.set(institution.isil, { isil: institution.isil, status: 'live', hash: hashOf(text) });
  }
  for (const withdrawn of dataset.withdrawnInstitutions()) {
    const { successor } = withdrawn;
    const named =
      successor.kind === 'live'
        ? successor.institution.isil
        : successor.kind === 'none'
          ? undefined
          : successor.named;
    states.set(withdrawn.isil, {
      isil: withdrawn.isil,
      status: 'withdrawn',
      hash: '',
      ...(named !== undefined ? { successors: [named] } : {}),
    });
  }
  return { states, descriptions };
}
