// The one place that knows the store adapters: the store and the staff endpoint's store, chosen
// from the settings (STORE, SPARQL_USERS), and how a replica follows a store others load. Above
// this file, the process, the server and the app see the ports alone (src/store/store.ts,
// src/store/staff.ts); the lint refuses an adapter's import anywhere else above the port.
import type { Config, DatasetLoad } from '../config/config';
import { embeddedHistory } from '../store/embedded/embeddedHistory';
import { dataTime, derivedHistory } from '../history/derived';
import type { History } from '../history/model';
import type { Dataset } from '../store/dataset';
import type { LoadRequest } from '../load/loadSources';
import type { Logger } from '../util/logger';
import { StaffPool } from '../store/embedded/staffPool';
import { StoreThread } from '../store/embedded/storeThread';
import { remoteHistory } from '../store/remote/remoteHistory';
import { SparqlStore } from '../store/remote/sparqlStore';
import { RemoteStaff } from '../store/remote/staffRemote';
import type { StaffStore } from '../store/staff';
import type { Store } from '../store/store';

export interface Adapters {
  readonly store: Store<LoadRequest>;
  /** The staff endpoint's store, when SPARQL_USERS is set. */
  readonly staff: StaffStore<LoadRequest> | undefined;
  /**
   * With STORE_POLL_SECONDS, a replica looks at the version its remote store marks current and
   * calls `reload` when it is not the one `served` names: every replica switches without a signal
   * of its own. Does nothing for a store no one else loads. Returns what stops it.
   */
  follow(served: () => string | undefined, reload: () => void): () => void;
  /** The history a version opened is served with (docs/history.md). */
  history(load: DatasetLoad, dataset: Dataset): Promise<History>;
}

/**
 * The embedded store, in threads of its own, with the staff queries' pool of workers; or a remote
 * SPARQL endpoint, which the staff queries run on too (its adapter checks and scopes them first).
 */
export function adaptersFor(config: Config, logger: Logger): Adapters {
  const { store: settings, sparql } = config;
  const staffOn = sparql.users !== undefined;
  if (settings.kind === 'remote') {
    const { endpoint, user, password } = settings;
    const store = new SparqlStore(
      {
        endpoint,
        user,
        password,
        connections: settings.connections,
        deadlineMs: settings.timeoutMs,
      },
      config.baseIri,
    );
    const staff = staffOn
      ? new RemoteStaff({
          store: { endpoint, user, password },
          workers: sparql.workers,
          queue: sparql.queue,
          timeoutMs: sparql.timeoutMs,
        })
      : undefined;
    return {
      store,
      staff,
      follow: (served, reload) => poll(store, settings, served, reload),
      // The history the store keeps, up to the version opened; one the history never named (loaded
      // before the store kept history) is a history of its own.
      history: async (_load, dataset) =>
        (await remoteHistory(store.client, dataset.version, config.baseIri)) ??
        derivedHistory(dataset, dataTime(dataset, dataset.loadedAt)),
    };
  }
  // Without the thread of the store being served nothing uncached can be answered, so its end is
  // the process's (a supervisor starts it again). The thread of a store a reload replaced is
  // terminated once its queries are answered, and a failed load's thread fails that load only.
  const store = new StoreThread((error) => {
    logger.fatal({ err: error }, 'the store thread stopped');
    process.exit(1);
  });
  const staff = staffOn
    ? new StaffPool(sparql, {
        failed: (version, err) =>
          logger.error({ version, err }, 'the SPARQL workers could not load the version served'),
        replaced: (version, why) => logger.warn({ version, why }, 'a SPARQL worker was replaced'),
      })
    : undefined;
  return {
    store,
    staff,
    follow: () => () => undefined,
    history: (load, dataset) => embeddedHistory(config, load, dataset, logger),
  };
}

/** Every STORE_POLL_SECONDS (none when 0), the version the store marks current against the served. */
function poll(
  store: SparqlStore,
  { pollSeconds }: { readonly pollSeconds: number },
  served: () => string | undefined,
  reload: () => void,
): () => void {
  if (pollSeconds === 0) return () => undefined;
  const look = () => {
    const version = served();
    if (version === undefined) return;
    store.registry().then(
      ({ current }) => {
        if (current.version !== version) reload();
      },
      () => undefined, // the store is down: /readyz says so, and the next look tries again
    );
  };
  const timer = setInterval(look, pollSeconds * 1000).unref();
  return () => clearInterval(timer);
}
