// The embedded store in the calling thread: the loader's own `loadSources`, behind the store port.
// For tests and command-line tools; the server keeps its stores in threads of their own
// (storeThread.ts), so that loading and querying never hold the thread that answers HTTP.
import { loadSources } from '../../load/loadSources';
import type { Store, StoreHealth } from '../store';

const EMBEDDED: StoreHealth = Object.freeze({ kind: 'embedded', state: 'available' });

export const inProcessStore: Store = {
  open: ({ sources, options }) => loadSources(sources, options),
  close: async () => undefined,
  health: () => EMBEDDED,
};
