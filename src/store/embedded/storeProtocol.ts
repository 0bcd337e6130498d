// What the HTTP thread asks a store's thread (storeThread.ts, storeWorker.ts) and what it answers;
// the messages themselves are src/threads/'s.
import type { VersionInfo } from '../../history/model';
import type { LoadOptions, LoadReport } from '../../load/loadSources';
import type { Position } from '../positions';

/**
 * A thread loads once, then answers describe queries of the store it loaded; it is not asked to
 * free it: the HTTP thread terminates it, which releases its memory at once.
 */
export type Request =
  | { readonly op: 'load'; readonly sources: readonly string[]; readonly options: LoadOptions }
  | { readonly op: 'describe'; readonly iri: string };

/** A load's result: the report, and the index rows as JSON pieces. */
export interface LoadedReply {
  readonly report: LoadReport;
  readonly rows: readonly string[];
  /** Every ISIL's state (`compactStates`), as JSON: the version's history is derived with them. */
  readonly states: string;
  /** The change log's version the snapshot read names (`Dataset.logVersion`). */
  readonly logVersion: VersionInfo | undefined;
  /** Wikidata's positions by ISIL (`Dataset.positions`). */
  readonly positions?: readonly (readonly [string, Position])[];
}

/** A load answers what it loaded; a describe, the description's N-Triples. */
export type Reply = LoadedReply | string;

/** A LoadError is a LoadError again on the HTTP thread, with where the file breaks. */
export { reviveLoadError } from '../../load/loadError';
