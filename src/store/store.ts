// The store port: everything above src/store/ (serving, http, the process) asks for dataset
// versions, descriptions, the institution index and readiness through these types alone, and never
// learns which adapter answers. The embedded Oxigraph store (src/store/embedded/, over the loader) is the
// first adapter; a remote SPARQL store (src/store/remote/) is the second (docs/architecture.md).
import type { Dataset, DescriptionSource } from './dataset';

/**
 * A dataset version opened by a store. Its dataset is the version's summary too: its name
 * (`version`), its figures (`tripleCount`, `institutionCount`, `withdrawnCount`), its links and
 * the warnings its data gave, whichever adapter opened it.
 */
export interface Opened<S extends DescriptionSource = DescriptionSource> {
  readonly dataset: Dataset<S>;
}

/**
 * A store, opened with requests of type `Request`: what a version is made from is the adapter's
 * (the embedded one loads source files with the loader; a remote one opens the version its registry
 * marks current and reads no request). `Store` alone is a store this code only watches and closes.
 */
export interface Store<Request = never> {
  /**
   * Opens the version `request` names beside the one being served; the caller switches to it by
   * using the dataset, and frees the previous one (`Dataset.free`). A failure rejects with the
   * load's error (a LoadError says what is wrong with the sources) and leaves nothing open.
   */
  open(request: Request): Promise<Opened>;
  /**
   * Starts opening `request` ahead of its `open` (the first load, while the process boots): the
   * `open` of the same request takes what is under way. A store that cannot leaves it to `open`.
   */
  preload?(request: Request): void;
  /** Stops the store: whatever is still owed fails with StoreClosed. */
  close(): Promise<void>;
  /** Whether the store answers now, for /readyz; an embedded store always does. */
  health(): StoreHealth;
}

/**
 * A store as /readyz shows it. A remote store that was reached once and is lost now is
 * `unavailable`: the replica stays ready (its cached documents are still served), and the body
 * says why uncached ones get 503.
 */
export interface StoreHealth {
  readonly kind: 'embedded' | 'remote';
  readonly state: 'available' | 'unavailable';
  /** The remote endpoint (no credentials). */
  readonly endpoint?: string;
  /** Since when it is in this state (ISO 8601), and what the last failure said. */
  readonly since?: string;
  readonly error?: string;
}

/** The store could not be reached, or failed, until the query's deadline: 503 with Retry-After. */
export class StoreUnavailable extends Error {
  override name = 'StoreUnavailable';
}

/** The query's deadline passed, or the store stopped it at its own limit: 503 with Retry-After. */
export class StoreTimeout extends Error {
  override name = 'StoreTimeout';
}

/** A remote store that holds no complete dataset version yet (nothing was loaded into it). */
export class NoVersion extends Error {
  override name = 'NoVersion';
}

/** What a query or load still owed fails with once the process has closed the store. */
export class StoreClosed extends Error {
  override name = 'StoreClosed';
}
