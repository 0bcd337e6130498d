// One institution's record as a non-RDF source gives it (PICA+, the name and redirect lists): the
// unit the loader resolves conflicts on, and how strongly it holds its ISIL when several sources
// hold one (docs/data.md, "When several sources hold one ISIL"). A record wins or loses whole; it
// is never merged.
import type { CodeWarning } from './pica/codeCheck';

/** What the source says of the ISIL. */
export type RecordStatus =
  /** A full record (PICA+ status H or P, or an RDF description). */
  | 'published'
  /** An invalidated entry (PICA+ status I, or the retired side of a redirect pair). */
  | 'withdrawn'
  /** A name and nothing else (the lobid name list): loses to any full record. */
  | 'name-only';

export interface SourceRecord {
  /** The ISIL as the source spells it (checked by the loader, not here). */
  readonly isil: string;
  readonly status: RecordStatus;
  /** The record's last change (PICA+ 001B, or its `dcterms:modified`), when known. */
  readonly modified: Date | undefined;
  /** The ISIL that replaces a withdrawn one, when known. */
  readonly successor?: string;
  /**
   * The record's triples as N-Triples, every IRI absolute and minted under the loader's base;
   * blank-node labels start with a prefix the loader hands to the converter, so that records
   * parsed together never share a blank node.
   */
  readonly ntriples: string;
  /** Where it comes from, for the load report: `file:line` or `file#record-id`. */
  readonly origin: string;
  /** What the load report warns of it: codes no code list knows (src/mapping/pica/codeCheck.ts). */
  readonly warnings?: readonly CodeWarning[];
}

/** A record the converter left out, and why; counted in the load report. */
export interface SkippedRecord {
  readonly origin: string;
  /** The record's id (PICA+ 003@) or ISIL when it has one. */
  readonly id: string | undefined;
  readonly reason: string;
  /** `malformed` records are broken; `status-N` and the like are skipped by rule. */
  readonly kind: 'malformed' | 'not-published';
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

export function weigh(status: RecordStatus, modified: Date | undefined): Weight {
  const time = modified?.getTime() ?? Number.NEGATIVE_INFINITY;
  if (status === 'name-only') return { rank: 0, time };
  if (status === 'withdrawn' && modified === undefined) return { rank: 1, time };
  return { rank: 2, time };
}

export function outweighs(candidate: Weight, held: Weight): boolean {
  return candidate.rank !== held.rank ? candidate.rank > held.rank : candidate.time >= held.time;
}
