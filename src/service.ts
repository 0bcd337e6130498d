// Holds the dataset being served and its rendered documents; a new dataset replaces both at once.
import type { Config } from './config';
import type { Dataset } from './dataset';
import { Documents } from './documents';
import { CONTEXT_PATH } from './rdf/context';
import { RenderQueue } from './renderQueue';

/** How the last reload (SIGHUP) ended, as /readyz shows it to an operator. */
export interface ReloadOutcome {
  /** When it ended (ISO 8601). */
  readonly at: string;
  readonly sources: readonly string[];
  readonly outcome: 'accepted' | 'refused';
  /** Why it was refused. */
  readonly reason?: string;
  /** The version it put live. */
  readonly version?: string;
}

export class Service {
  private documents: Documents | undefined;
  /** The outcome of the last reload, once there was one. */
  lastReload: ReloadOutcome | undefined;

  constructor(
    readonly config: Config,
    /** Bounds the renders of uncached documents, whichever dataset they are of. */
    readonly renders = new RenderQueue(),
  ) {}

  /** The documents of the current dataset, or `undefined` before the first load. A request takes
   * this once, so that it answers from one dataset even when another is swapped in meanwhile. */
  get current(): Documents | undefined {
    return this.documents;
  }

  /**
   * Serves `dataset` from now on; the previous one's cache is dropped and its store freed on the
   * next turn of the event loop. Freeing a large store is one long synchronous call (about 0.4 s
   * of CPU for 17,000 institutions: Rust drops the store's every index); the server's stores live
   * in their own thread (src/store/storeThread.ts), where only the describe queries sent after the
   * free wait for it. Freeing is safe, since a request reads the store, or queues its query for the
   * store's thread, synchronously after taking `current` (a render does so before its first
   * `await`), and the thread answers queries in the order they were sent: one still rendering
   * from the previous dataset finishes from its own description (tested in
   * test/integration/reload.test.ts and storeThread.test.ts).
   */
  use(dataset: Dataset): void {
    const previous = this.documents;
    this.documents = new Documents(
      dataset,
      `${this.config.baseIri}${CONTEXT_PATH}`,
      this.config.cacheMaxBytes,
      this.renders,
    );
    if (previous) setImmediate(() => previous.dataset.free());
  }

  close(): void {
    this.documents?.dataset.free();
    this.documents = undefined;
  }
}
