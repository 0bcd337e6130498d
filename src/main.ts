// The process entry: reads the settings, starts the store and, when SPARQL_USERS is set, the staff
// endpoint's store, both chosen from the settings (src/process/adapters.ts), and sends the first
// load ahead; then the HTTP side (src/process/servers.ts) listens, serves the dataset once loaded,
// and hands the signals to the lifecycle. Its modules load while the store's thread loads.
import v8 from 'node:v8';
import {
  ConfigError,
  datasetLoad,
  loadConfig,
  type Config,
  type DatasetLoad,
} from './config/config';
import { createLogger } from './util/logger';
import { adaptersFor } from './process/adapters';
import { configurationError } from './process/configurationError';

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

/**
 * How far the heaps may grow past what a full collection kept. Left to V8, a thread's old
 * generation may grow to about four times its live size after a burst of renders, and is given back
 * only after a long idle time: 100% holds less RSS at the same rates (docs/benchmark.md,
 * "`HEAP_GROWING_PERCENT=100` against V8's own growth"). V8 reads the flag at each collection, so
 * set here, before the threads start, it binds them all; unlike `--max-old-space-size`, it leaves
 * every heap's limit (a worker's `resourceLimits`) as it is.
 */
function boundHeapGrowth(config: Config): void {
  if (config.heapGrowingPercent > 0)
    v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);
}

async function main(): Promise<void> {
  const config = settings();
  boundHeapGrowth(config);
  const logger = createLogger(config.logLevel);
  const adapters = adaptersFor(config, logger);
  // The first load starts now, in the store's thread, while the HTTP side's modules load here.
  const first = firstLoad(config);
  if (first) adapters.store.preload?.(first);
  const { serve } = await import('./process/servers.js');
  serve(config, logger, adapters);
}

/**
 * What the first load will be, when it can start before the server listens: the snapshot at
 * DATASET, or the bundled files when they are all there (not the demonstration data, which the
 * start may write first, nor a remote store's version).
 */
function firstLoad(config: Config): DatasetLoad | undefined {
  let load: DatasetLoad;
  try {
    load = datasetLoad(config);
  } catch {
    // DATASET gone since the settings were read: the reloader's first load says so.
    return undefined;
  }
  return load.remote || load.demonstration ? undefined : load;
}

if (require.main === module) void main();
