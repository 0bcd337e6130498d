// The HTTP side of the process: the public server, the staff endpoint when SPARQL_USERS is set, the
// metrics; listens, loads the dataset through the reloader, and hands the signals to the lifecycle.
// src/main.ts imports it once the store's first load is under way (it takes about a second to load).
import { StaffAuth } from '../http/sparql/auth';
import { loadExamples } from '../http/sparql/editor';
import { UsersFileError } from '../http/sparql/users';
import type { Config } from '../config/config';
import type { Logger } from '../util/logger';
import { metricsServer } from './metrics';
import type { Adapters } from './adapters';
import { prepareBundled } from './prepareBundled';
import { configurationError } from './configurationError';
import { handleSignals } from './lifecycle';
import { startServer } from './listen';
import { Reloader } from './reloader';

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

/** Serves: the servers listen, the dataset is loaded (its first load may be under way already). */
export function serve(config: Config, logger: Logger, adapters: Adapters): void {
  const auth = staffAuth(config, logger);
  const { store, staff, follow, history } = adapters;
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
