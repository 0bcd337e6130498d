// The process entry: reads the settings, starts the store (the embedded one, in threads of its
// own) and, when SPARQL_USERS is set, the staff endpoint's pool of query workers; listens, loads
// the dataset, and hands the signals to the lifecycle (src/server/).
import v8 from 'node:v8';
import { ConfigError, datasetLoad, loadConfig, type Config } from './config';
import { StaffAuth } from './http/sparql/auth';
import { loadExamples } from './http/sparql/editor';
import { UsersFileError } from './http/sparql/users';
import { createLogger, type Logger } from './log';
import { prepareBundled } from './server/bundled';
import { handleSignals } from './server/lifecycle';
import { metricsServer } from './metrics';
import { startServer, type StaffParts } from './server/listen';
import { Reloader } from './server/reloader';
import type { Service } from './serving/service';
import { StaffPool } from './store/embedded/staffPool';
import { StoreThread } from './store/embedded/storeThread';
import { SparqlStore } from './store/remote/sparqlStore';
import { RemoteStaff } from './store/remote/staffRemote';
import type { Store } from './store/store';

/** One line and exit 2: the settings are wrong. */
function configurationError(message: string): never {
  process.stderr.write(`configuration error: ${message}\n`);
  process.exit(2);
}

/** The settings, or one line and exit 2 when they are wrong (a DATASET that cannot be served too). */
function settings(): Config {
  try {
    const config = loadConfig();
    // A DATASET the operator set that cannot be served (missing, a folder, a FIFO, a link in a
    // loop, empty) stops the process before it listens.
    datasetLoad(config);
    return config;
  } catch (error) {
    if (error instanceof ConfigError) configurationError(error.message);
    throw error;
  }
}

/** The staff endpoint's parts when SPARQL_USERS is set: a credentials file that cannot be read stops the start. */
function staffParts(
  config: Config,
  logger: Logger,
): (StaffParts & { staff: StaffPool | RemoteStaff }) | undefined {
  const { sparql } = config;
  if (sparql.users === undefined) return undefined;
  let auth: StaffAuth;
  try {
    const fields = { users: sparql.users };
    auth = new StaffAuth(sparql.users, sparql.maxFailures, {
      error: (message) => logger.error(fields, message),
      warn: (message) => logger.warn(fields, message),
    });
  } catch (error) {
    if (error instanceof UsersFileError) configurationError(`SPARQL_USERS: ${error.message}`);
    throw error;
  }
  const { store } = config;
  // With a remote store, the queries run there (its adapter checks and scopes them first).
  const staff =
    store.kind === 'remote'
      ? new RemoteStaff({
          store: { endpoint: store.endpoint, user: store.user, password: store.password },
          workers: sparql.workers,
          queue: sparql.queue,
          timeoutMs: sparql.timeoutMs,
        })
      : new StaffPool(sparql, {
          failed: (version, err) =>
            logger.error({ version, err }, 'the SPARQL workers could not load the version served'),
          replaced: (version, why) => logger.warn({ version, why }, 'a SPARQL worker was replaced'),
        });
  return { staff, auth, examples: loadExamples() };
}

/** The store the settings name: the embedded one in threads of its own, or a remote endpoint. */
function openStore(config: Config, logger: Logger): Store {
  const remote = config.store;
  if (remote.kind === 'remote')
    return new SparqlStore(
      {
        endpoint: remote.endpoint,
        user: remote.user,
        password: remote.password,
        connections: remote.connections,
        deadlineMs: remote.timeoutMs,
      },
      config.baseIri,
    );
  // Without the thread of the store being served nothing uncached can be answered, so its end is
  // the process's (a supervisor starts it again). The thread of a store a reload replaced is
  // terminated once its queries are answered, and a failed load's thread fails that load only.
  return new StoreThread((error) => {
    logger.fatal({ err: error }, 'the store thread stopped');
    process.exit(1);
  });
}

/**
 * With STORE_POLL_SECONDS, a replica looks at the version its remote store marks current and
 * reloads when it is not the one served: every replica switches without a signal of its own.
 */
function pollStore(config: Config, store: Store, reloader: Reloader, service: Service): void {
  const { store: settings } = config;
  if (settings.kind !== 'remote' || settings.pollSeconds === 0 || !(store instanceof SparqlStore))
    return;
  const look = () => {
    const served = service.current?.dataset.version;
    if (served === undefined) return;
    store.registry().then(
      ({ current }) => {
        if (current.version !== served) void reloader.reload();
      },
      () => undefined, // the store is down: /readyz says so, and the next look tries again
    );
  };
  setInterval(look, settings.pollSeconds * 1000).unref();
}

/**
 * How far the heaps may grow past what a full collection kept. Left to V8, a thread's old
 * generation may grow to about four times its live size after a burst of renders, and is given
 * back only after some 30 s idle: the bench's warm phase held 684-714 MB of RSS, and 582-621 MB
 * with 100%, at the same uncached rate and a cached one 3% lower, inside the noise
 * (docs/benchmark.md). V8 reads the flag at each collection, so set here, before the threads
 * start, it binds them all; unlike `--max-old-space-size`, it leaves every heap's limit (a
 * worker's `resourceLimits`) as it is.
 */
function boundHeapGrowth(config: Config): void {
  if (config.heapGrowingPercent > 0)
    v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);
}

function main(): void {
  const config = settings();
  boundHeapGrowth(config);
  const logger = createLogger(config.logLevel);
  const parts = staffParts(config, logger);
  const store = openStore(config, logger);
  const { server, service, staffServer } = startServer(config, logger, parts);
  service.storeHealth = () => store.health();
  // Each version served is loaded by the staff workers too, after the public side serves it.
  const reloader = new Reloader(service, logger, store, ({ sources, options }, version) =>
    parts?.staff instanceof RemoteStaff
      ? parts.staff.serve(version)
      : parts?.staff.serve({ sources, options, version }),
  );
  const failed = (what: string) => (error: Error) => {
    logger.fatal({ err: error }, `the ${what} could not listen`);
    process.exit(1);
  };
  // Listen first, so /healthz answers and /readyz says 503 while the dataset loads.
  server.listen(config.port, config.host, () => {
    // The pid to signal (SIGHUP, SIGTERM): the server's own, not that of npm or a shell before it.
    logger.info(
      { address: server.address(), pid: process.pid, maxConnections: config.maxConnections },
      'listening',
    );
    prepareBundled(config, logger)
      .then(() => reloader.start())
      .catch((error: unknown) => {
        logger.fatal({ err: error }, 'the dataset could not be loaded');
        process.exit(1);
      });
  });
  server.on('error', failed('server'));
  const listen = config.sparql.listen;
  if (staffServer && listen) {
    staffServer.listen(listen.port, listen.host, () =>
      logger.info({ address: staffServer.address() }, 'the staff SPARQL endpoint is listening'),
    );
    staffServer.on('error', failed('staff SPARQL listener'));
  }
  if (parts)
    logger.info(
      { users: config.sparql.users, workers: config.sparql.workers },
      'the staff SPARQL endpoint is on',
    );
  const metrics = service.metrics && config.metricsListen && metricsServer(service.metrics);
  if (metrics && config.metricsListen) {
    const { port, host } = config.metricsListen;
    metrics.listen(port, host, () =>
      logger.info({ address: metrics.address() }, 'the metrics are listening at /metrics'),
    );
    metrics.on('error', failed('metrics listener'));
  }
  pollStore(config, store, reloader, service);
  handleSignals({
    config,
    logger,
    server,
    service,
    store,
    reloader,
    staffServer,
    staff: parts?.staff,
    ...(metrics ? { metricsServer: metrics } : {}),
    // npm gives the script it runs: `npm start` (or `start:dist`) execs the server, which is then
    // npm's child. Other scripts' children (`npm test`'s servers) inherit the variable too.
    startedByNpm: /\bsrc\/main\.[jt]s\b/.test(process.env.npm_lifecycle_script ?? ''),
  });
}

if (require.main === module) main();
