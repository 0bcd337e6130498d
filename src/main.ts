// The process entry: reads the settings, starts the store (the embedded one, in threads of its
// own), listens, loads the dataset, and hands the signals to the lifecycle (src/server/).
import { ConfigError, datasetLoad, loadConfig, type Config } from './config';
import { createLogger } from './log';
import { handleSignals } from './server/lifecycle';
import { startServer } from './server/listen';
import { Reloader } from './server/reloader';
import { StoreThread } from './store/embedded/storeThread';

/** The settings, or one line and exit 2 when they are wrong (a DATASET that cannot be served too). */
function settings(): Config {
  try {
    const config = loadConfig();
    // A DATASET the operator set that cannot be served (missing, a folder, a FIFO, a link in a
    // loop, empty) stops the process before it listens.
    datasetLoad(config);
    return config;
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

function main(): void {
  const config = settings();
  const logger = createLogger(config.logLevel);
  // Without the thread of the store being served nothing uncached can be answered, so its end is
  // the process's (a supervisor starts it again). The thread of a store a reload replaced is
  // terminated once its queries are answered, and a failed load's thread fails that load only.
  const store = new StoreThread((error) => {
    logger.fatal({ err: error }, 'the store thread stopped');
    process.exit(1);
  });
  const { server, service } = startServer(config, logger);
  const reloader = new Reloader(service, logger, store);
  // Listen first, so /healthz answers and /readyz says 503 while the dataset loads.
  server.listen(config.port, config.host, () => {
    logger.info({ address: server.address() }, 'listening');
    reloader.start().catch((error: unknown) => {
      logger.fatal({ err: error }, 'the dataset could not be loaded');
      process.exit(1);
    });
  });
  server.on('error', (error) => {
    logger.fatal({ err: error }, 'the server could not listen');
    process.exit(1);
  });
  handleSignals({ config, logger, server, service, store, reloader });
}

if (require.main === module) main();
