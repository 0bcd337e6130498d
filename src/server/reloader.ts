// Loads the dataset and swaps it in: the first load at start, and every reload (SIGHUP) after it.
import { ConfigError, datasetLoad, type DatasetLoad } from '../config';
import type { Logger } from '../log';
import type { Service } from '../serving/service';
import { LoadError } from '../load/loadError';
import {
  NoVersion,
  StoreClosed,
  StoreTimeout,
  StoreUnavailable,
  type Opened,
  type Store,
} from '../store/store';

/** A first load that failed for want of a store that answers, or of a version in it: tried again. */
const waitsForStore = (error: unknown): boolean =>
  error instanceof StoreUnavailable || error instanceof StoreTimeout || error instanceof NoVersion;

/** Loads the dataset into `store` and serves it: what the process does at start. */
export function loadInto(service: Service, logger: Logger, store: Store): Promise<void> {
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
  /** Whether the data served came from the snapshot at DATASET: then a reload never falls back. */
  private servedSnapshot = false;

  constructor(
    private readonly service: Service,
    private readonly logger: Logger,
    private readonly store: Store,
    /** Hears of each version served, with what it was loaded from (the staff pool loads it too). */
    private readonly served: (load: DatasetLoad, version: string) => void = () => undefined,
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
        return await this.load(true);
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
    return this.load(false).catch((error: unknown) =>
      this.logger.error({ err: error }, 'reload failed: the data served stays as it was'),
    );
  }

  private async load(first: boolean): Promise<void> {
    const { service, logger } = this;
    const { config } = service;
    const serving = service.current?.dataset.version;
    const started = Date.now();
    // Refused before anything is read: a DATASET that is gone, a folder, a FIFO, a link in a loop,
    // an empty file. The bundled data is never loaded in place of a snapshot that was served.
    let load: DatasetLoad;
    try {
      load = datasetLoad(config, this.servedSnapshot);
    } catch (error) {
      if (first) throw error;
      // Whatever went wrong looking at DATASET, a reload is refused, never a crash.
      const reason =
        error instanceof ConfigError
          ? error.message.replace(/^DATASET: /, '')
          : `${config.dataset} cannot be read: ${(error as Error).message}`;
      this.refuse([config.dataset], reason, serving, started);
      return;
    }
    const { sources, options } = load;
    if (!first) logger.info({ sources, serving }, 'reload started');
    let loaded: Opened;
    try {
      loaded = await this.store.open({ sources, options });
    } catch (error) {
      if (error instanceof StoreClosed) {
        // The process is stopping and closed the store's thread: the load was abandoned, nothing
        // failed, first load or not.
        logger.info({ serving }, `${first ? 'load' : 'reload'} abandoned: stopping`);
        return;
      }
      if (first) throw error;
      if (error instanceof LoadError) {
        const { file, line, column } = error;
        this.refuse(sources, error.message, serving, started, { file, line, column });
      } else {
        this.refuse(sources, (error as Error).message, serving, started, { err: error });
      }
      return;
    }
    const { dataset, report } = loaded;
    // A dataset without one institution to serve is no dataset to serve (an N-Quads file of some
    // other data, every ISIL malformed or outside the base): the one served stays.
    if (dataset.institutionCount === 0) {
      dataset.free();
      const reason = `${sources.join(', ')} holds no institution to serve (${report.triples} triples, ${dataset.withdrawnCount} withdrawn ISILs)`;
      if (first) throw new LoadError(sources.join(', '), undefined, undefined, reason);
      this.refuse(sources, reason, serving, started);
      return;
    }
    for (const w of report.warnings) logger.warn({ kind: w.kind, subject: w.subject }, w.message);
    service.use(dataset, load.demonstration === true);
    this.servedSnapshot = load.snapshot;
    this.served(load, dataset.version);
    if (!first) {
      service.lastReload = Object.freeze({
        at: new Date().toISOString(),
        sources,
        outcome: 'accepted',
        version: dataset.version,
      });
    }
    logger.info(
      {
        sources,
        version: report.version,
        previous: serving,
        institutions: dataset.institutionCount,
        withdrawn: dataset.withdrawnCount,
        triples: report.triples,
        ms: Date.now() - started,
      },
      first ? 'dataset loaded' : 'reload finished',
    );
    this.service.metrics?.reload('done');
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
