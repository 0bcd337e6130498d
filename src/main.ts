// The process entry: starts the store's thread first, then the server (src/server.ts).
import { StoreThread } from './store/storeThread';

if (require.main === module) {
  // The thread boots and loads Oxigraph and the loader (about 110 ms) while this one loads the
  // server's modules (Express, jsonld, n3: about 190 ms), instead of after: the first load, and
  // so /readyz, comes about 150 ms sooner. Until the server has a logger, the thread's end is
  // told on stderr; it ends the process either way.
  let onExit = (error: Error): void => {
    process.stderr.write(`the store thread stopped: ${error.stack ?? error.message}\n`);
    process.exit(1);
  };
  const storeThread = new StoreThread((error) => onExit(error));
  // Required here, not imported above: an import would load the server's modules first.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const server = require('./server') as typeof import('./server');
  server.main(storeThread, (handler) => (onExit = handler));
}
