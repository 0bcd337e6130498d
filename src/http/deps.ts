// What the route handlers are given: the service (the dataset being served, its documents) and the
// settings. Passed to each handler's factory; no handler keeps state of its own between requests.
import type { Request } from 'express';
import type { Config } from '../config/config';
import type { Documents } from '../documents/documents';
import type { Service } from '../documents/service';
import type { StaffStore } from '../store/staff';
import type { Logger } from '../util/logger';
import type { StaffAuth } from './sparql/auth';
import type { Example } from './sparql/editor';
import type { SearchHolder, Searched } from '../search/searchHolder';
import type { Asker } from '../search/searchQueue';
import { notReady } from './errors';

/** What the staff endpoint's handlers are given (src/http/sparql/endpoint.ts). */
export interface StaffDeps {
  readonly service: Service;
  readonly config: Config;
  readonly staff: StaffStore;
  readonly auth: StaffAuth;
  readonly logger: Logger;
  readonly examples: readonly Example[];
}

export interface RouteDeps {
  readonly service: Service;
  readonly config: Config;
  /** The staff SPARQL endpoint on this listener, or undefined: `/sparql` answers 404 saying why. */
  readonly staff?: StaffDeps;
  /** How long a bulk export waits for a client that reads nothing (src/http/searchExport.ts). */
  readonly exportStallMs?: number;
}

/**
 * The header that names the dataset a document was rendered from (its version, as `/readyz` shows
 * it). Without an `X-` prefix: RFC 6648 §3 advises against it for new fields.
 */
export const DATASET_VERSION = 'Dataset-Version';

/** `Cache-Control` of everything the dataset answers (documents, redirects, 410s). */
export const cacheControl = (config: Config) => `public, max-age=${config.maxAge}`;

/** The documents of the dataset being served: taken once, so that a request sees one dataset. */
export function currentDocuments(service: Service): Documents {
  const documents = service.current;
  if (!documents) throw notReady();
  return documents;
}

/**
 * What `parseurl` parses with `url.parse` rather than by itself: `req.path` is asked then. Node's
 * parser refuses whitespace and raw non-ASCII bytes in a target (400), so in practice this is `#`.
 */
const UNUSUAL_TARGET = /[#\s\u00a0\ufeff]/;

/**
 * The path below the route's mount point, without the query and without its leading `/`: what
 * `req.path` gives, read off `req.url` instead of parsing the URL a second time (the router parsed
 * it before the mount cut the prefix off). A target in absolute form, or one `parseurl` would hand
 * to `url.parse`, is read through `req.path`, which finds no path at all in what a mount leaves of
 * `x://h/data/organisations` (`x://h`): that is the empty path.
 */
export function pathBelow(req: Request): string {
  const url = req.url;
  if (url.charCodeAt(0) !== 0x2f || UNUSUAL_TARGET.test(url)) return (req.path ?? '/').slice(1);
  const query = url.indexOf('?');
  return query < 0 ? url.slice(1) : url.slice(1, query);
}

/** The query string, read once (the app's own query parser is off). */
export function queryOf(req: Request): URLSearchParams {
  const at = req.originalUrl.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : req.originalUrl.slice(at + 1));
}

/**
 * Who asks the search index: the client's address (behind a proxy, the proxy's: every client
 * shares it) and a signal aborted once the client has gone, so that its questions are dropped.
 */
export function askerOf(req: Request): Asker {
  const controller = new AbortController();
  const res = req.res;
  if (req.socket.destroyed) controller.abort();
  else
    res?.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
  return { client: req.socket.remoteAddress ?? 'unknown', signal: controller.signal };
}

/**
 * Asks the search index of the version served (search, suggest, reconciliation, previews); until
 * the first is built, or while it is built again after its thread failed, it throws
 * `SearchUnavailable` (503 with Retry-After), a full queue `SearchBusy` (429 when the client's own
 * share is full, else 503, with Retry-After), and a question dropped because its client left
 * `ClientGone` (logged as 499, as nginx does: nobody reads the answer); errors.ts maps each.
 * Asking starts the build of the version served if it has not begun.
 */
export function searching<T>(
  service: Service,
  ask: (search: SearchHolder) => Promise<Searched<T>>,
): Promise<Searched<T>> {
  void service.search.ensure();
  return ask(service.search);
}
