// Loads the dataset and swaps it in: the first load at start, and every reload (SIGHUP) after it.
import { datasetLoad } from './config';
import type { Logger } from './log';
import type { Service } from './service';
import { LoadError } from '../loader/loadError';
import type { LoadOptions, LoadReport } from '../loader/loadSources';
import type { Dataset } from './dataset';
import { StoreThreadClosed } from './store/storeThread';

/**
 * How a dataset is loaded: in the store's thread (`StoreThread.load`, the server) or in this one
 * (`loadSources`, tests). Passed in rather than imported here, so that the HTTP thread does not
 * load the loader and Oxigraph's WebAssembly, which only the store's thread uses.
 */
export type DatasetLoader = (
  sources: readonly string[],
  options: LoadOptions,
) => Promise<{ dataset: Dataset; report: LoadReport }>;

/** Loads the dataset and serves it: what the process does at start. */
export function loadInto(service: Service, logger: Logger, load: DatasetLoader): Promise<void> {
  return new Reloader(service, logger, load).start();
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

  constructor(
    private readonly service: Service,
    private readonly logger: Logger,
    private readonly loadDataset: DatasetLoader,
  ) {}

  /**
   * The first load: its failure is the caller's (the process cannot serve without data); one
   * abandoned because the process stops resolves, with nothing served.
   */
  start(): Promise<void> {
    this.started = true;
    this.running = this.load(true).then(
      () => this.settle(),
      (error: unknown) => {
        this.running = undefined;
        throw error;
      },
    );
    return this.running;
  }

  /** SIGHUP: reloads now, or once more after the load that runs; never rejects. */
  reload(): Promise<void> {
    // Before the process's first load began (a SIGHUP while the server starts to listen): a reload
    // after it, as during it. Loading now would take the load src/main.ts sent early, and the
    // first load would then run beside it.
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
    this.running = this.load(false).then(() => this.settle());
    return this.running;
  }

  /** Runs the reloads asked for meanwhile, then lets the next SIGHUP start one. */
  private async settle(): Promise<void> {
    while (this.again) {
      this.again = false;
      await this.load(false);
    }
    this.running = undefined;
  }

  private async load(first: boolean): Promise<void> {
    const { service, logger } = this;
    const { config } = service;
    const { sources, options } = datasetLoad(config);
    const serving = service.current?.dataset.version;
    const started = Date.now();
    if (!first) logger.info({ sources, serving }, 'reload started');
    let loaded: Awaited<ReturnType<DatasetLoader>>;
    try {
      loaded = await this.loadDataset(sources, options);
    } catch (error) {
      if (error instanceof StoreThreadClosed) {
        // The process is stopping and closed the store's thread: the load was abandoned, nothing
        // failed, first load or not.
        logger.info({ serving }, `${first ? 'load' : 'reload'} abandoned: stopping`);
        return;
      }
      if (first) throw error;
      const why =
        error instanceof LoadError
          ? { file: error.file, line: error.line, column: error.column, reason: error.reason }
          : { err: error };
      logger.error({ ...why, serving, ms: Date.now() - started }, 'reload failed');
      return;
    }
    const { dataset, report } = loaded;
    for (const w of report.warnings) logger.warn({ kind: w.kind, subject: w.subject }, w.message);
    service.use(dataset);
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
  }
}
