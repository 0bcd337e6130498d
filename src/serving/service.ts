// Holds the dataset being served and its rendered documents; a new dataset replaces both at once.
import type { Config } from '../config';
import type { Dataset } from '../store/dataset';
import type { StoreHealth } from '../store/store';
import type { Metrics } from '../metrics';
import { Documents, ServingStats } from './documents';
import { CONTEXT_PATH } from '../rdf/context';
import { RenderQueue } from './renderQueue';
import { SearchHolder } from '../search/searchHolder';
import { Dumps } from './dumps';

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

const EMBEDDED: StoreHealth = Object.freeze({ kind: 'embedded', state: 'available' });

export class Service {
  private documents: Documents | undefined;
  private demonstrationServed = false;
  /** The outcome of the last reload, once there was one. */
  lastReload: ReloadOutcome | undefined;
  /** Whether the store answers, for /readyz: the process sets it to its store's. */
  storeHealth: () => StoreHealth = () => EMBEDDED;
  /** What the documents of every dataset served count (the metrics read it). */
  readonly stats = new ServingStats();
  /** The metrics, when the process keeps them (METRICS_LISTEN). */
  metrics: Metrics | undefined;
  /** The search index, following the dataset served (src/search/). */
  readonly search = new SearchHolder();
  /** The dumps of each dataset version served (src/serving/dumps.ts). */
  readonly dumps: Dumps;

  constructor(
    readonly config: Config,
    /** Bounds the renders of uncached documents, whichever dataset they are of. */
    readonly renders = new RenderQueue(),
  ) {
    this.dumps = new Dumps(config.dumpsDir, `${config.baseIri}${CONTEXT_PATH}`);
  }

  /**
   * Whether the dataset served is the generated demonstration data, served because the bundled
   * real data is missing (src/server/bundled.ts): the home page and /readyz say so.
   */
  get demonstration(): boolean {
    return this.demonstrationServed;
  }

  /** The documents of the current dataset, or `undefined` before the first load. A request takes
   * this once, so that it answers from one dataset even when another is swapped in meanwhile. */
  get current(): Documents | undefined {
    return this.documents;
  }

  /**
   * Serves `dataset` from now on; the previous one's cache is dropped, and its store freed once
   * every render asked of it has settled (`Documents.retire`), at the earliest on the next turn of
   * the event loop. A request takes `current` once and answers from that dataset alone: a render
   * that started queries the store before its first `await`, and one waiting in the render queue
   * holds the retired store until it has run (tested in test/integration/reload.test.ts and
   * flood.test.ts). Each store lives in a thread of its own (src/store/storeThread.ts), ended once
   * it has answered its last query, so freeing a large one holds no other query.
   */
  use(dataset: Dataset, demonstration = false): void {
    const previous = this.documents;
    this.demonstrationServed = demonstration;
    this.documents = new Documents(
      dataset,
      `${this.config.baseIri}${CONTEXT_PATH}`,
      this.config.cacheMaxBytes,
      this.renders,
      this.stats,
      {
        baseIri: this.config.baseIri,
        mapTiles: this.config.mapTiles,
        mapAttribution: this.config.mapAttribution,
      },
    );
    this.search.follow(dataset);
    this.dumps.follow(dataset);
    if (previous) setImmediate(() => previous.retire());
  }

  close(): void {
    this.search.close();
    this.documents?.dataset.free();
    this.documents = undefined;
  }
}
