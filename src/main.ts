// The process entry: reads the settings, starts the store (the embedded one, in threads of its
// own) and, when SPARQL_USERS is set, the staff endpoint's pool of query workers; listens, loads
// the dataset, and hands the signals to the lifecycle (src/server/).
import { ConfigError, datasetLoad, loadConfig, type Config } from './config';
import { StaffAuth } from './http/sparql/auth';
import { loadExamples } from './http/sparql/editor';
import { UsersFileError } from './http/sparql/users';
import { createLogger, type Logger } from './log';
import { handleSignals } from './server/lifecycle';
import { startServer, type StaffParts } from './server/listen';
import { Reloader } from './server/reloader';
import { StaffPool } from './store/embedded/staffPool';
import { StoreThread } from './store/embedded/storeThread';

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
): (StaffParts & { staff: StaffPool }) | undefined {
  const { sparql } = config;
  if (sparql.users === undefined) return undefined;
  let auth: StaffAuth;
  try {
    auth = new StaffAuth(sparql.users, sparql.maxFailures, (message) => logger.error(message));
  } catch (error) {
    if (error instanceof UsersFileError) configurationError(`SPARQL_USERS: ${error.message}`);
    throw error;
  }
  if (auth.userCount === 0)
    logger.warn(
      { users: sparql.users },
      'the SPARQL credentials file names no user: nobody can log in (npm run sparql-user -- add NAME)',
    );
  const staff = new StaffPool(sparql, {
    failed: (version, err) =>
      logger.error({ version, err }, 'the SPARQL workers could not load the version served'),
    replaced: (version, why) => logger.warn({ version, why }, 'a SPARQL worker was replaced'),
  });
  return { staff, auth, examples: loadExamples() };
}

function main(): void {
  const config = settings();
  const logger = createLogger(config.logLevel);
  const parts = staffParts(config, logger);
  // Without the thread of the store being served nothing uncached can be answered, so its end is
  // the process's (a supervisor starts it again). The thread of a store a reload replaced is
  // terminated once its queries are answered, and a failed load's thread fails that load only.
  const store = new StoreThread((error) => {
    logger.fatal({ err: error }, 'the store thread stopped');
    process.exit(1);
  });
  const { server, service, staffServer } = startServer(config, logger, parts);
  // Each version served is loaded by the staff workers too, after the public side serves it.
  const reloader = new Reloader(service, logger, store, ({ sources, options }, version) =>
    parts?.staff.serve({ sources, options, version }),
  );
  const failed = (what: string) => (error: Error) => {
    logger.fatal({ err: error }, `the ${what} could not listen`);
    process.exit(1);
  };
  // Listen first, so /healthz answers and /readyz says 503 while the dataset loads.
  server.listen(config.port, config.host, () => {
    logger.info({ address: server.address() }, 'listening');
    reloader.start().catch((error: unknown) => {
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
  handleSignals({
    config,
    logger,
    server,
    service,
    store,
    reloader,
    staffServer,
    staff: parts?.staff,
  });
}

if (require.main === module) main();
