// Holds the dataset being served and its rendered documents; a new dataset replaces both at once.
import type { Config } from '../config/config';
import { NO_HISTORY, type Dataset } from '../store/dataset';
import type { StoreHealth } from '../store/store';
import type { Registry } from 'prom-client';
import { Documents, ServingStats } from './documents';
import { CONTEXT_PATH } from '../rdf/context';
import { RenderQueue } from './renderQueue';
import { SearchHolder, type SearchOptions } from '../search/searchHolder';
import { Dumps, type DumpsOptions } from './versionDumps';
import { dataTime, derivedHistory } from '../history/derived';
import { typesOf } from '../oai/listVerbs';

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

/** What a service is built with besides its settings; each part has a default for tests. */
/** What the service and its routes count; src/process/metrics.ts keeps the counters. */
export interface ServiceMetrics {
  /** The counters, for the metrics listener. */
  readonly registry: Registry;
  request(route: string, status: number, seconds: number, bytes: number): void;
  reload(outcome: 'done' | 'refused'): void;
  sparqlQuery(outcome: string, seconds: number): void;
}

export interface ServiceParts {
  /** Whether the store answers, for /readyz: the store's own `health` (an embedded store's). */
  readonly storeHealth?: () => StoreHealth;
  /** When the search index and the dumps of a version are made, and whom they tell. */
  readonly search?: SearchOptions;
  readonly dumps?: DumpsOptions;
  /** The metrics of this service, when the process keeps them (METRICS_LISTEN). */
  readonly metrics?: (service: Service) => ServiceMetrics;
  /** Bounds the renders of uncached documents, whichever dataset they are of. */
  readonly renders?: RenderQueue;
}

export class Service {
  private documents: Documents | undefined;
  private demonstrationServed = false;
  /** The outcome of the last reload, once there was one. */
  lastReload: ReloadOutcome | undefined;
  /** Whether the store answers, for /readyz. */
  readonly storeHealth: () => StoreHealth;
  /** What the documents of every dataset served count (the metrics read it). */
  readonly stats = new ServingStats();
  /** The metrics, when the process keeps them (METRICS_LISTEN). */
  readonly metrics: ServiceMetrics | undefined;
  /** The search index, following the dataset served (src/search/). */
  readonly search: SearchHolder;
  /** The dumps of each dataset version served (src/documents/versionDumps.ts). */
  readonly dumps: Dumps;
  /** Bounds the renders of uncached documents, whichever dataset they are of. */
  readonly renders: RenderQueue;

  constructor(
    readonly config: Config,
    parts: ServiceParts = {},
  ) {
    this.storeHealth = parts.storeHealth ?? (() => EMBEDDED);
    this.renders = parts.renders ?? new RenderQueue();
    this.search = new SearchHolder(parts.search);
    this.dumps = new Dumps(config.dumpsDir, `${config.baseIri}${CONTEXT_PATH}`, parts.dumps);
    // Last: the metrics read the rest of the service.
    this.metrics = parts.metrics?.(this);
  }

  /**
   * Whether the dataset served is the generated demonstration data, served because the bundled
   * real data is missing (src/process/prepareBundled.ts): the home page and /readyz say so.
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
   * Reads what the public routes need of `dataset` before it is served, so that each answers from
   * its first request: the kinds of its institutions, which the OAI-PMH lists select by.
   */
  async prepare(dataset: Dataset): Promise<void> {
    await typesOf(dataset);
  }

  /**
   * Serves `dataset` from now on; the previous one's cache is dropped, and its store freed once
   * every render asked of it has settled (`Documents.retire`), at the earliest on the next turn of
   * the event loop. A request takes `current` once and answers from that dataset alone: a render
   * that started queries the store before its first `await`, and one waiting in the render queue
   * holds the retired store until it has run (tested in test/integration/reload.test.ts and
   * flood.test.ts). Each store lives in a thread of its own (src/store/embedded/storeThread.ts), ended once
   * it has answered its last query, so freeing a large one holds no other query.
   */
  use(dataset: Dataset, demonstration = false): void {
    const previous = this.documents;
    // A version opened without a log (the bundled sources, a store that keeps none) serves the
    // history of its one version, so that every document has its TimeGate and TimeMap.
    if (dataset.history === NO_HISTORY)
      dataset.history = derivedHistory(dataset, dataTime(dataset, dataset.loadedAt));
    this.demonstrationServed = demonstration;
    this.documents = new Documents(dataset, this.config.cacheMaxBytes, this.renders, this.stats, {
      baseIri: this.config.baseIri,
      mapTiles: this.config.mapTiles,
      mapAttribution: this.config.mapAttribution,
    });
    this.search.follow(dataset);
    this.dumps.follow(dataset, demonstration);
    if (previous) setImmediate(() => previous.retire());
  }

  close(): void {
    this.search.close();
    this.documents?.dataset.free();
    this.documents = undefined;
  }
}
