// The embedded store in the calling thread: the loader's own `loadSources` (through the cache of
// the served sources' snapshot, `loadServed`), behind the store port.
// For tests and command-line tools; the server keeps its stores in threads of their own
// (storeThread.ts), so that loading and querying never hold the thread that answers HTTP.
import type { LoadRequest } from '../../load/loadSources';
import { loadServed } from '../../load/servedSnapshot';
import type { Store, StoreHealth } from '../store';

const EMBEDDED: StoreHealth = Object.freeze({ kind: 'embedded', state: 'available' });

export const inProcessStore: Store<LoadRequest> = {
  open: async ({ sources, options }) => ({
    dataset: (await loadServed(sources, options)).dataset,
  }),
  close: async () => undefined,
  health: () => EMBEDDED,
};
