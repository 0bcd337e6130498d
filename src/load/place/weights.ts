// How strongly each source's record holds its ISIL, when several sources hold one: what the loader
// keeps of each ISIL to decide, and the rule (docs/data.md, "When several sources hold one ISIL").
import type { SourceRecord } from '../read/sourceRecord';

/** What the loader keeps of each ISIL to resolve conflicts: small, never the record's text. */
export interface Entry {
  /** The ISIL as the loaded record spells it (its IRI is minted from this spelling). */
  readonly isil: string;
  readonly origin: string;
  /** Which file it came from, so that an RDF file's case twins are not taken for a conflict. */
  readonly file: string;
  readonly weight: Weight;
  /** From an RDF source. */
  readonly rdf: boolean;
  readonly withdrawn: boolean;
  /** Whether the shapes check its description, when the load validates. */
  readonly validated: boolean;
  /** Its place in the batch not yet handed to the store, if it is there. */
  pending: number | undefined;
}

/**
 * How strongly a record holds its ISIL (decided, docs/data.md "When several sources hold one ISIL"): a name-only record yields to
 * anything; a withdrawal without a date (a pair of the redirect list) yields to any full record,
 * whose own status is the agency's word on the ISIL; among full records the later modification
 * wins, an unknown date counting as the earliest. Equal weights go to the source read later.
 */
export interface Weight {
  readonly rank: 0 | 1 | 2;
  readonly time: number;
}

export function weigh(status: SourceRecord['status'], modified: Date | undefined): Weight {
  const time = modified?.getTime() ?? Number.NEGATIVE_INFINITY;
  if (status === 'name-only') return { rank: 0, time };
  if (status === 'withdrawn' && modified === undefined) return { rank: 1, time };
  return { rank: 2, time };
}

export function outweighs(candidate: Weight, held: Weight): boolean {
  return candidate.rank !== held.rank ? candidate.rank > held.rank : candidate.time >= held.time;
}
