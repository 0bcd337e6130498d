// The process entry: starts the store's thread and its first load, then the server (src/server.ts).
import { ConfigError, datasetLoad, loadConfig } from './config';
import { StoreThread } from './store/embedded/storeThread';

if (require.main === module) {
  // The thread boots, loads Oxigraph and the loader (about 110 ms) and starts the first load while
  // this one loads the server's modules (Express, jsonld, n3: about 190 ms), instead of after:
  // /readyz comes about 0.3 s sooner. Until the server has a logger, the end of a thread that
  // holds a store in use is told on stderr; it ends the process either way.
  let onExit = (error: Error): void => {
    process.stderr.write(`the store thread stopped: ${error.stack ?? error.message}\n`);
    process.exit(1);
  };
  const storeThread = new StoreThread((error) => onExit(error));
  // The first load is sent at once, so that the thread loads while this one loads the server's
  // modules. A configuration refused here is the server's to report, with its message.
  try {
    const { sources, options } = datasetLoad(loadConfig());
    storeThread.begin(sources, options);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
  }
  // Required here, not imported above: an import would load the server's modules first.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const server = require('./server/server') as typeof import('./server/server');
  server.main(storeThread, (handler) => (onExit = handler));
}
