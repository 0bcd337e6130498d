// The store port: everything above src/store/ (serving, http, the process) asks for dataset
// versions, descriptions, the institution index and readiness through these types alone, and never
// learns which adapter answers. The embedded Oxigraph store (src/store/embedded/) is the first
// adapter; a remote SPARQL store is the second (docs/architecture.md).
import type { LoadOptions, LoadReport } from '../load/loadSources';
import type { Dataset, DescriptionSource } from './dataset';

/** A dataset version opened by a store: its index (with its descriptions) and how it was made. */
export interface Opened<S extends DescriptionSource = DescriptionSource> {
  readonly dataset: Dataset<S>;
  readonly report: LoadReport;
}

/** What a store is asked to open as its next dataset version: the sources and how to read them. */
export interface VersionRequest {
  readonly sources: readonly string[];
  readonly options: LoadOptions;
}

export interface Store {
  /**
   * Opens the version `request` names beside the one being served; the caller switches to it by
   * using the dataset, and frees the previous one (`Dataset.free`). A failure rejects with the
   * load's error (a LoadError says what is wrong with the sources) and leaves nothing open.
   */
  open(request: VersionRequest): Promise<Opened>;
  /** Stops the store: whatever is still owed fails with StoreClosed. */
  close(): Promise<void>;
}

/** What a query or load still owed fails with once the process has closed the store. */
export class StoreClosed extends Error {
  override name = 'StoreClosed';
}
