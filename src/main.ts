// The process entry: reads the settings, starts the store and, when SPARQL_USERS is set, the staff
// endpoint's store, both chosen from the settings (src/server/adapters.ts); listens, loads the
// dataset, and hands the signals to the lifecycle (src/server/).
import v8 from 'node:v8';
import { ConfigError, datasetLoad, loadConfig, type Config } from './config';
import { StaffAuth } from './http/sparql/auth';
import { loadExamples } from './http/sparql/editor';
import { UsersFileError } from './http/sparql/users';
import { createLogger, type Logger } from './log';
import { prepareBundled } from './server/bundled';
import { handleSignals } from './server/lifecycle';
import { metricsServer } from './metrics';
import { adaptersFor } from './server/adapters';
import { startServer } from './server/listen';
import { Reloader } from './server/reloader';

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

/** The staff logins when SPARQL_USERS is set: a credentials file that cannot be read stops the start. */
function staffAuth(config: Config, logger: Logger): StaffAuth | undefined {
  const { sparql } = config;
  if (sparql.users === undefined) return undefined;
  try {
    const fields = { users: sparql.users };
    return new StaffAuth(sparql.users, sparql.maxFailures, {
      error: (message) => logger.error(fields, message),
      warn: (message) => logger.warn(fields, message),
    });
  } catch (error) {
    if (error instanceof UsersFileError) configurationError(`SPARQL_USERS: ${error.message}`);
    throw error;
  }
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
  const auth = staffAuth(config, logger);
  const { store, staff, follow, history } = adaptersFor(config, logger);
  const parts = auth && staff && { staff, auth, examples: loadExamples() };
  const { server, service, staffServer } = startServer(config, logger, {
    storeHealth: () => store.health(),
    staff: parts,
  });
  // Each version served is loaded by the staff workers too, after the public side serves it.
  const reloader = new Reloader(
    service,
    logger,
    store,
    (load, version) => staff?.serve(load, version),
    history,
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
  follow(
    () => service.current?.dataset.version,
    () => void reloader.reload(),
  );
  handleSignals({
    config,
    logger,
    server,
    service,
    store,
    reloader,
    staffServer,
    staff,
    ...(metrics ? { metricsServer: metrics } : {}),
    // npm gives the script it runs: `npm start` (or `start:dist`) execs the server, which is then
    // npm's child. Other scripts' children (`npm test`'s servers) inherit the variable too.
    startedByNpm: /\bsrc\/main\.[jt]s\b/.test(process.env.npm_lifecycle_script ?? ''),
  });
}

if (require.main === module) main();
