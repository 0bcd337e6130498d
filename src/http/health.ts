// The operator's probes: `GET /healthz` (the process answers) and `GET /readyz` (a dataset is
// served and searched: its size, version, when it was loaded, and how the last reload ended; 503
// while loading).
import type { RequestHandler } from 'express';
import type { RouteDeps } from './deps';
import { commonHeaders } from './middleware';

/** What /readyz says of the demonstration dataset. */
const DEMONSTRATION_NOTE =
  "generated demonstration data, not the agency's: npm run fetch-data (or THIRD_PARTY_DIR) fetches the real data, then a reload serves it";

export const healthz: RequestHandler = function healthz(_req, res) {
  res.set({ ...commonHeaders(res), 'Cache-Control': 'no-store' });
  res.json({ status: 'alive' });
};

export function readyz({ service, staff }: RouteDeps): RequestHandler {
  return function readyz(_req, res) {
    res.set({ ...commonHeaders(res), 'Cache-Control': 'no-store' });
    const documents = service.current;
    // The last reload's outcome, accepted or refused with why: a refused one leaves the data
    // served as it was, so the service stays ready and the operator reads here what happened.
    const lastReload = service.lastReload ?? null;
    // Ready means every public route answers: search too, once its first index is built.
    if (!documents || service.search.firstBuilding) {
      res.status(503).json({
        status: 'loading',
        lastReload,
        store: service.storeHealth(),
        ...(documents ? { search: service.search.state } : {}),
      });
      return;
    }
    const { dataset } = documents;
    res.json({
      status: 'ready',
      institutions: dataset.institutionCount,
      withdrawn: dataset.withdrawnCount,
      triples: dataset.tripleCount,
      version: dataset.version,
      // Served because the bundled real data is missing: not the agency's data.
      ...(service.demonstration ? { demonstration: DEMONSTRATION_NOTE } : {}),
      loadedAt: dataset.loadedAt.toISOString(),
      lastReload,
      // A replica whose remote store is lost stays ready: its cached documents are still served,
      // and a balancer that dropped every replica at once would serve nothing.
      store: service.storeHealth(),
      // Made in the background for each version, after it is ready: what is done so far.
      search: service.search.state,
      dumps: service.dumps.state,
      ...(staff ? { sparql: { workers: staff.staff.workers() } } : {}),
    });
  };
}
