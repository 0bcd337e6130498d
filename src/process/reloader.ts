// Loads the dataset and swaps it in: the first load at start, and every reload (SIGHUP) after it.
import { ConfigError, datasetLoad, type DatasetLoad } from '../config/config';
import type { Logger } from '../util/logger';
import type { Service } from '../documents/service';
import { LoadError } from '../load/loadError';
import type { LoadRequest } from '../load/loadSources';
import { NoVersion, StoreClosed, StoreTimeout, StoreUnavailable, type Store } from '../store/store';
import type { Dataset } from '../store/dataset';
import type { History } from '../history/model';

/** Why a version with no institution to serve is not served. */
const emptyReason = (sources: readonly string[], dataset: Dataset): string =>
  `${sources.join(', ')} holds no institution to serve (${dataset.tripleCount} triples, ${dataset.withdrawnCount} withdrawn ISILs)`;

/** A first load that failed for want of a store that answers, or of a version in it: tried again. */
const waitsForStore = (error: unknown): boolean =>
  error instanceof StoreUnavailable || error instanceof StoreTimeout || error instanceof NoVersion;

/** Loads the dataset into `store` and serves it: what the process does at start. */
export function loadInto(
  service: Service,
  logger: Logger,
  store: Store<LoadRequest>,
): Promise<void> {
  return new Reloader(service, logger, store).start();
}

/**
 * Loads the dataset into a new store beside the one being served, then swaps it in; the previous
 * store is freed by the swap. A SIGHUP reloads: one that fails (a broken snapshot) leaves the
 * served dataset as it was and logs why. A SIGHUP while a load runs is coalesced into one more
 * reload after it, since the snapshot may have been replaced after the running load read it.
 */
export class Reloader {
  private running: Promise<void> | undefined;
  private again = false;
  private started = false;
  /** What the data served was loaded from: a reload never falls back from a snapshot to the
   * bundled data, nor from the bundled data to the demonstration data. */
  private servedLoad: DatasetLoad | undefined;

  constructor(
    private readonly service: Service,
    private readonly logger: Logger,
    private readonly store: Store<LoadRequest>,
    /** Hears of each version served, with what it was loaded from (the staff pool loads it too). */
    private readonly served: (load: DatasetLoad, version: string) => void = () => undefined,
    /** The history each version opened is served with (Adapters.history); none by default. */
    private readonly history?: (load: DatasetLoad, dataset: Dataset) => Promise<History>,
  ) {}

  /**
   * The first load: its failure is the caller's (the process cannot serve without data); one
   * abandoned because the process stops resolves, with nothing served.
   */
  start(): Promise<void> {
    this.started = true;
    this.running = this.firstLoad().then(
      () => this.settle(),
      (error: unknown) => {
        this.running = undefined;
        throw error;
      },
    );
    return this.running;
  }

  /**
   * The first load; a remote store that cannot be reached yet, or holds no version yet (the
   * loader has not run), is asked again with a growing pause up to 5 s: the replica is not ready
   * meanwhile (/readyz says why), and serves as soon as the store does.
   */
  private async firstLoad(): Promise<void> {
    let said = '';
    for (let pause = 250; ; pause = Math.min(pause * 2, 5000)) {
      try {
        return await this.loadFirst();
      } catch (error) {
        if (!waitsForStore(error)) throw error;
        const { message } = error as Error;
        if (message !== said) this.logger.warn({ err: error }, 'waiting for the store');
        said = message;
      }
      await new Promise((resolve) => setTimeout(resolve, pause).unref());
    }
  }

  /** SIGHUP: reloads now, or once more after the load that runs; never rejects. */
  reload(): Promise<void> {
    // Before the process's first load began (a SIGHUP while the server starts to listen): a reload
    // after it, as during it, rather than a second load beside the first.
    if (!this.started && this.service.current === undefined) {
      this.again = true;
      return Promise.resolve();
    }
    if (this.running) {
      if (!this.again)
        this.logger.info('reload asked for while a load runs: one more reload follows it');
      this.again = true;
      // A first load that fails is its caller's to report, not the signal's.
      return this.running.catch(() => undefined);
    }
    this.running = this.reloadOnce().then(() => this.settle());
    return this.running;
  }

  /** Runs the reloads asked for meanwhile, then lets the next SIGHUP start one. */
  private async settle(): Promise<void> {
    while (this.again) {
      this.again = false;
      await this.reloadOnce();
    }
    this.running = undefined;
  }

  /** A reload that never rejects: what no refusal foresaw is logged, and the next SIGHUP works. */
  private reloadOnce(): Promise<void> {
    return this.loadAgain().catch((error: unknown) =>
      this.logger.error({ err: error }, 'reload failed: the data served stays as it was'),
    );
  }

  /** The first load: whatever stops it is the caller's, since the process has nothing to serve. */
  private async loadFirst(): Promise<void> {
    const started = Date.now();
    const load = datasetLoad(this.service.config);
    const dataset = await this.open(load, undefined, 'load');
    if (!dataset) return;
    if (dataset.institutionCount === 0) {
      dataset.free();
      const { sources } = load;
      throw new LoadError(sources.join(', '), undefined, undefined, emptyReason(sources, dataset));
    }
    await this.serve(load, dataset, undefined, started, 'dataset loaded');
  }

  /** A reload: whatever stops it is refused (logged, shown in /readyz), and the served one stays. */
  private async loadAgain(): Promise<void> {
    const { service, logger } = this;
    const { config } = service;
    const serving = service.current?.dataset.version;
    const started = Date.now();
    // Refused before anything is read: a DATASET that is gone, a folder, a FIFO, a link in a loop,
    // an empty file. The bundled data is never loaded in place of a snapshot that was served.
    let load: DatasetLoad;
    try {
      load = datasetLoad(config, this.servedLoad);
    } catch (error) {
      // Whatever went wrong looking at DATASET, a reload is refused, never a crash.
      const reason =
        error instanceof ConfigError
          ? error.message.replace(/^(DATASET|THIRD_PARTY_DIR): /, '')
          : `${config.dataset} cannot be read: ${(error as Error).message}`;
      this.refuse([config.dataset], reason, serving, started);
      return;
    }
    const { sources } = load;
    logger.info({ sources, serving }, 'reload started');
    let dataset: Dataset | undefined;
    try {
      dataset = await this.open(load, serving, 'reload');
    } catch (error) {
      if (error instanceof LoadError) {
        const { file, line, column } = error;
        this.refuse(sources, error.message, serving, started, { file, line, column });
      } else {
        this.refuse(sources, (error as Error).message, serving, started, { err: error });
      }
      return;
    }
    if (!dataset) return;
    // A dataset without one institution to serve is no dataset to serve (an N-Quads file of some
    // other data, every ISIL malformed or outside the base): the one served stays.
    if (dataset.institutionCount === 0) {
      dataset.free();
      this.refuse(sources, emptyReason(sources, dataset), serving, started);
      return;
    }
    await this.serve(load, dataset, serving, started, 'reload finished');
    service.lastReload = Object.freeze({
      at: new Date().toISOString(),
      sources,
      outcome: 'accepted',
      version: dataset.version,
    });
  }

  /**
   * The version `load` names, opened by the store; `undefined` when the process is stopping and
   * closed the store: the load was abandoned, nothing failed.
   */
  private async open(
    load: DatasetLoad,
    serving: string | undefined,
    what: 'load' | 'reload',
  ): Promise<Dataset | undefined> {
    const { sources, options } = load;
    let dataset: Dataset | undefined;
    try {
      dataset = (await this.store.open({ sources, options })).dataset;
      // Only a version that will be served gets its history: a refused one adds no event.
      if (this.history && dataset.institutionCount > 0)
        dataset.history = await this.history(load, dataset);
      // Ready means every public route answers: what they need is read before the swap.
      if (dataset.institutionCount > 0) await this.service.prepare(dataset);
      return dataset;
    } catch (error) {
      // A history refused (a log made for another base) refuses the version, as its data would.
      dataset?.free();
      if (!(error instanceof StoreClosed)) throw error;
      this.logger.info({ serving }, `${what} abandoned: stopping`);
      return undefined;
    }
  }

  /** Serves `dataset` from now on, and says so once every public route answers from it. */
  private async serve(
    load: DatasetLoad,
    dataset: Dataset,
    previous: string | undefined,
    started: number,
    message: string,
  ): Promise<void> {
    const { service, logger } = this;
    for (const w of dataset.warnings) logger.warn({ kind: w.kind, subject: w.subject }, w.message);
    service.use(dataset, load.demonstration === true);
    this.servedLoad = load;
    this.served(load, dataset.version);
    // The first search index is built after the version is served (later ones beside the one
    // answering): until it is, /readyz says loading, and the line below waits for it.
    if (service.search.firstBuilding) await service.search.building;
    logger.info(
      {
        sources: load.sources,
        version: dataset.version,
        previous,
        institutions: dataset.institutionCount,
        withdrawn: dataset.withdrawnCount,
        triples: dataset.tripleCount,
        ms: Date.now() - started,
      },
      message,
    );
    service.metrics?.reload('done');
  }

  /** A reload refused: logged, and shown in /readyz; the dataset served stays as it was. */
  private refuse(
    sources: readonly string[],
    reason: string,
    serving: string | undefined,
    started: number,
    detail: Record<string, unknown> = {},
  ): void {
    this.service.lastReload = Object.freeze({
      at: new Date().toISOString(),
      sources,
      outcome: 'refused',
      reason,
    });
    this.logger.error(
      { ...detail, reason, sources, serving, ms: Date.now() - started },
      'reload refused',
    );
    this.service.metrics?.reload('refused');
  }
}
