// What a load is asked (LoadOptions) and what it reports: the files read, the records skipped, the
// ISILs several sources held, the defects found, and the dataset's version.
import type { Dataset, DataWarning } from '../store/dataset';
import type { SelectBinding } from '../store/bindings';
import type { DatasetStore } from '../store/embedded/datasetStore';
import type { CanonicalDataset, VersionHistory } from './describe/canonicalDataset';
import type { SourceFormat } from './read/readers';
import type { SkippedFile } from './read/sources';
import type { Defect, DefectClass } from './describe/shapes';
import type { CodeWarning } from '../mapping/pica/codeCheck';

export interface FileReport {
  readonly file: string;
  readonly format: SourceFormat;
  /** Records read (PICA+ and lists); RDF files have none of their own. */
  readonly records: number | undefined;
  /** Triples the file added to the store, after conflicts were resolved. */
  readonly triples: number;
}

/** A record left out: broken (with its position and id) or not published by rule. */
export interface Skipped {
  readonly origin: string;
  readonly id: string | undefined;
  readonly reason: string;
  readonly kind: 'malformed' | 'not-published';
}

/** An ISIL held by several sources, and the one whose record is loaded. */
export interface Conflict {
  readonly isil: string;
  readonly winner: string;
  /** Every source that held it, the winner included, in the order they were read. */
  readonly origins: readonly string[];
}

export interface DefectCount {
  readonly defect: DefectClass;
  readonly count: number;
  /** The first few, in the order they were found. */
  readonly examples: readonly Defect[];
}

export interface LoadReport {
  readonly files: readonly FileReport[];
  /** Files of the folders given that were not read, each with why (src/load/read/sources.ts). */
  readonly skippedFiles: readonly SkippedFile[];
  readonly institutions: number;
  readonly withdrawn: number;
  readonly triples: number;
  /** IRIs rewritten from the `http://` form of the base to the configured one. */
  readonly rewritten: number;
  readonly skipped: readonly Skipped[];
  readonly conflicts: readonly Conflict[];
  /** Defects the shapes found, by class; empty unless the load validated. */
  readonly defects: readonly DefectCount[];
  /** Institutions with at least one defect. */
  readonly defective: number;
  /** Whether the institutions were validated against the shapes. */
  readonly validated: boolean;
  /** The index's warnings, and the codes of records no code list knows. */
  readonly warnings: readonly (DataWarning | CodeWarning)[];
  readonly version: string;
  /** Institutions with a position from Wikidata in the version (src/load/place/wikidataSets.ts). */
  readonly positions?: number;
  /** The links to the same institutions elsewhere that the version holds, when it holds any. */
  readonly links?: LinksReport | undefined;
}

/** The version's links graph (src/load/place/wikidataSets.ts), and what this load left out of it. */
export interface LinksReport {
  /** When the newest links source was made (ISO 8601). */
  readonly modified: string;
  /** `owl:sameAs` statements, and the institutions they are about. */
  readonly links: number;
  readonly institutions: number;
  /** Of `links`, those to Wikidata items and those to GND entities. */
  readonly wikidata: number;
  readonly gnd: number;
  /** ISILs of the links sources read that the dataset holds only as withdrawn, or not at all. */
  readonly withdrawn?: number;
  readonly unknown?: number;
}

/** What `loadSources` returns. */
export interface Loaded {
  readonly dataset: Dataset<DatasetStore>;
  readonly report: LoadReport;
  /** The rows the dataset was indexed from, for a copy of the index in another thread. */
  readonly rows: readonly SelectBinding[];
  /** Every ISIL's state and canonical description, the rest's hash and the version they make. */
  readonly history: VersionHistory;
  /**
   * The canonical reading, and the snapshot it wrote its pieces to (`snapshot` below), unless the
   * states were taken from a snapshot's trailer or the states cache (`reuseStates`, `statesCache`).
   */
  readonly canonical?: CanonicalDataset;
}

/** A version to load: the source files, and how to read them. */
export interface LoadRequest {
  readonly sources: readonly string[];
  readonly options: LoadOptions;
}

export interface LoadOptions {
  readonly baseIri: string;
  /** Overrides detection by extension for every file. */
  readonly format?: SourceFormat;
  /**
   * Validates every published institution against the shapes. The loader command does; the
   * server does not for its own snapshot, which was validated when it was written.
   */
  readonly validate?: boolean;
  /**
   * Worker threads that make descriptions canonical and validate them; 0, the default: this
   * thread does. The server's loads run in threads of their own beside its serving and its staff
   * workers, so only the command line (`--workers`, one a core by default) starts more.
   */
  readonly workers?: number;
  /**
   * Refuses (NoInstitutionError) a load whose result holds no live institution: checked as soon
   * as every source is parsed (no foaf:Organization under the base at all), before descriptions
   * are placed, indexed or validated, and again once the index is read. The loader command sets
   * it unless given --allow-empty.
   */
  readonly requireInstitutions?: boolean;
  /**
   * Takes the version and every ISIL's state from the trailer of a snapshot loaded alone, when it
   * has them, instead of reading the store canonically (the server: a start costs no
   * canonicalisation). `Loaded.history.descriptions` is then empty, and the load is not written.
   */
  readonly reuseStates?: boolean;
  /**
   * A folder where the version and states of sources are kept, by the sha256 of their bytes (the
   * bundled dataset's): read instead of canonicalising when there, written when not. A cache file
   * that cannot be read or written is ignored.
   */
  readonly statesCache?: string;
  /**
   * Where the load's snapshot is to go (`DATASET`): the canonical reading writes its pieces to the
   * temporary file beside it as it makes them, and `writeSnapshot` to this target ends and renames
   * it (a load that goes nowhere, or was refused, removes it: `SnapshotWriter.discard`). Without
   * it, no pieces are made, and `writeSnapshot` reads the dataset canonically again.
   */
  readonly snapshot?: string;
  /** Told how far each phase of the load is (the command line draws it; cli/progress.ts). */
  readonly onProgress?: OnProgress;
  /** Told as each phase of the load starts (test/bench/loadPhases.ts times them). */
  readonly onPhase?: OnPhase;
}

/**
 * The phases of a load, in their order: the sources read and parsed (one stream: bytes are parsed
 * as they are read, and records validated as they come), the triples placed in the graphs of their
 * descriptions (their literals checked on the way), the index read, the RDF sources' institutions
 * validated, the dataset read canonically; then, as it goes live (`commitVersion`), the change
 * log's events, the snapshot written, and the end.
 */
export type LoadPhase =
  | 'parse'
  | 'descriptions'
  | 'index'
  | 'canonicalisation'
  | 'validation'
  | 'log'
  | 'snapshot'
  | 'end';

/** Told as a phase starts: the one before ends there. */
export type OnPhase = (phase: LoadPhase) => void;

/** How far a phase is, of how much (when known), counted in `unit`. */
export type OnProgress = (
  phase: string,
  done: number,
  total: number | undefined,
  unit: string,
) => void;
