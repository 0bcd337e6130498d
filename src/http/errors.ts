// The one place where errors become answers: HttpError, a named helper per status the service
// answers with (`badRequest(…)`, `notFound(…)`, `tooManyRequests(retryAfter, …)`), and the table
// from the domain's errors (store, renders, search, staff queries) to a status, its headers and the
// level it is logged at (`answerOf`). Nothing else constructs an HttpError (a lint rule).
import type { Config } from '../config/config';
import { RendersBusy } from '../documents/renderQueue';
import { SearchUnavailable } from '../search/searchHolder';
import { ClientGone, SearchBusy } from '../search/searchQueue';
import type { Withdrawn } from '../store/dataset';
import type { Past } from '../pages/errorPage';
import {
  CannotWrite,
  GRAPH_FORMATS,
  NoFormatAccepted,
  QueryAbandoned,
  QueryFailed,
  QueryTimeout,
  RESULT_FORMATS,
  StaffUnavailable,
} from '../store/staff';
import { QueryRefused } from '../store/staffQuery';
import { StoreClosed, StoreTimeout, StoreUnavailable } from '../store/store';

type Headers = Readonly<Record<string, string>>;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
    /** Links for the body of a 406 or 404 (the documents that do exist). */
    readonly links: readonly { href: string; label: string; type?: string }[] = [],
    /** What in the data made this answer: the operator is told it (a warning in the log). */
    cause?: Error,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'HttpError';
  }
}

export const notWellFormed = (text: string, why: string) =>
  new HttpError(404, `"${text}" is not a well-formed ISIL (${why}).`);

/** 301 (RFC 9110 §15.4.2): a case variant of an ISIL, or a withdrawn one that was replaced. */
export const movedPermanently = (
  location: string,
  why: string,
  headers: Readonly<Record<string, string>> = {},
) => new HttpError(301, why, { ...headers, Location: location });

/**
 * 410 (RFC 9110 §15.5.11): the ISIL was withdrawn and no live successor is known. The body says
 * so, names the institution where the data still does, and why its successor is not followed;
 * asked for as RDF, the handler answers with what the data holds about it instead (contract §5).
 */
export class Gone extends HttpError {
  constructor(
    readonly withdrawn: Withdrawn,
    headers: Readonly<Record<string, string>> = {},
    readonly past?: Past,
  ) {
    const { isil, name, successor } = withdrawn;
    const what = `The ISIL ${isil}${name === undefined ? '' : ` (${name})`} was withdrawn`;
    const why =
      successor.kind === 'unknown'
        ? `; the successor named for it, ${successor.named}, is not in this dataset.`
        : successor.kind === 'withdrawn'
          ? `; its successor ${successor.named} was withdrawn as well, and no live successor follows.`
          : '; no successor is known.';
    super(410, what + why, headers);
  }
}

export const gone = (withdrawn: Withdrawn, headers: Headers = {}, past?: Past) =>
  new Gone(withdrawn, headers, past);

/** 404 for a well-formed ISIL the history never knew: the pages say it in their language. */
export class UnknownIsil extends HttpError {
  constructor(readonly isil: string) {
    super(404, `No institution has the ISIL ${isil}.`);
  }
}

export const unknownIsil = (isil: string) => new UnknownIsil(isil);

/**
 * 410 for an ISIL the history knows and the version served lacks (deleted, or gone from the
 * withdrawn list): its past stays readable, through the TimeMap its `Link` names and its page
 * links.
 */
export class NoLongerServed extends HttpError {
  constructor(
    readonly isil: string,
    headers: Headers,
    readonly past?: Past,
  ) {
    super(
      410,
      `The ISIL ${isil} is no longer in this dataset; its past versions are listed by its TimeMap.`,
      headers,
    );
  }
}

export const noLongerServed = (isil: string, headers: Headers = {}, past?: Past) =>
  new NoLongerServed(isil, headers, past);

/** 410 for something else that was there and is no more (a page of the change feed retention dropped). */
export const removed = (message: string) => new HttpError(410, message);

/** The status helpers, in the order of their codes: each answer says why in `message`. */
export const badRequest = (message: string, headers: Headers = {}) =>
  new HttpError(400, message, headers);

export const unauthorized = (message: string, headers: Headers = {}) =>
  new HttpError(401, message, headers);

export const forbidden = (message: string, headers: Headers = {}) =>
  new HttpError(403, message, headers);

export const notFound = (message = 'No such resource.', headers: Headers = {}) =>
  new HttpError(404, message, headers);

/** The methods of this read-only service: the `Allow` of every 405 and of the CORS preflight. */
export const METHODS: readonly string[] = ['GET', 'HEAD', 'OPTIONS'];
export const ALLOW = METHODS.join(', ');
/** The methods of the routes that take a POST (the SPARQL endpoint, reconciliation). */
export const METHODS_WITH_POST: readonly string[] = ['GET', 'HEAD', 'POST', 'OPTIONS'];
export const ALLOW_WITH_POST = METHODS_WITH_POST.join(', ');

/** 405 with the `Allow` it needs (RFC 9110 §15.5.6): the read-only gate's unless told. */
export const methodNotAllowed = (
  allow = ALLOW,
  message = 'This service is read-only: GET, HEAD and OPTIONS only.',
) => new HttpError(405, message, { Allow: allow });

/** 406: `links` are the documents that do exist, listed in the body. */
export const notAcceptable = (
  message = 'None of the available documents matches the Accept header. Available:',
  links: HttpError['links'] = [],
  headers: Headers = {},
) => new HttpError(406, message, headers, links);

export const preconditionFailed = (message: string, headers: Headers = {}) =>
  new HttpError(412, message, headers);

export const contentTooLarge = (message: string, headers: Headers = {}) =>
  new HttpError(413, message, headers);

export const unsupportedMediaType = (message: string, headers: Headers = {}) =>
  new HttpError(415, message, headers);

export const rangeNotSatisfiable = (message: string, headers: Headers = {}) =>
  new HttpError(416, message, headers);

/** 429 (RFC 6585 §4): the client may ask again after `retryAfter` seconds. */
export const tooManyRequests = (retryAfter: number, message: string, headers: Headers = {}) =>
  new HttpError(429, message, { 'Retry-After': String(retryAfter), ...headers });

/** 499, nginx's "client closed request": nobody reads it, a status for the logs only. */
export const clientClosedRequest = (message: string) => new HttpError(499, message);

/** 503 (RFC 9110 §15.6.4): the client may ask again after `retryAfter` seconds. */
export const serviceUnavailable = (
  retryAfter: number,
  message: string,
  headers: Headers = {},
  cause?: Error,
) => new HttpError(503, message, { 'Retry-After': String(retryAfter), ...headers }, [], cause);

/** 505 (RFC 9110 §15.6.6). */
export const httpVersionNotSupported = (message: string, headers: Headers = {}) =>
  new HttpError(505, message, headers);

/**
 * 406 for a document whose format cannot carry the description (RDF/XML: a predicate with no XML
 * local name, a control character in a literal). RFC 9110 §15.5.7 defines 406 for negotiation;
 * here the media type was asked for by the document's extension (or chosen by the 303), and no
 * representation of it can be made: as the negotiation 406 does, it lists the documents that can.
 * `cause`, when given, is logged as a warning.
 */
export const cannotWrite = (
  format: string,
  why: string,
  links: HttpError['links'],
  cause?: Error,
) =>
  new HttpError(
    406,
    `This description cannot be written as ${format}: ${why}. Available:`,
    {},
    links,
    cause,
  );

/** RFC 9112 §3.2: a server answers 400 to an HTTP/1.1 request without exactly one Host field. */
export const noHost = () =>
  badRequest('An HTTP/1.1 request carries a Host header (RFC 9112 §3.2).');

/**
 * 503 when the renders of uncached documents are at their bound (src/renderQueue.ts): the client
 * may retry in a second (RFC 9110 §10.2.3); cached documents are still answered meanwhile.
 */
export const busy = () =>
  serviceUnavailable(1, 'The service is busy rendering other documents; try again in a second.');

/**
 * 503 when the remote store did not answer a document's query by its deadline (it is down, or
 * slow): documents already cached are still answered, and this one again once the store is back.
 * The cause is logged as a warning, not as a failure of the service.
 */
export const storeDown = (cause: Error) =>
  serviceUnavailable(
    5,
    'The store that holds the data does not answer now; try again shortly.',
    {},
    cause,
  );

export const notReady = () => serviceUnavailable(5, 'The dataset is not loaded yet.');

/**
 * How an error is logged: `silent` (the access log tells it), `info` (nothing failed), `warn`
 * (what in the data or a store made the answer: its cause), `error` (a failure nobody foresaw).
 */
export type LogLevel = 'silent' | 'info' | 'warn' | 'error';

/** An error's answer, and how it is logged (`note`: the log line's message, else the answer's). */
export interface Answer {
  readonly http: HttpError;
  readonly level: LogLevel;
  readonly note?: string;
}

/** What the table's answers read from the settings. */
export type AnswerContext = Pick<Config, 'sparql'>;

interface Row<E extends Error> {
  readonly error: abstract new (...args: never[]) => E;
  readonly answer: (error: E, context: AnswerContext) => HttpError;
  readonly level?: LogLevel;
  readonly note?: string;
}

const row = <E extends Error>(
  error: Row<E>['error'],
  answer: Row<E>['answer'],
  level?: LogLevel,
  note?: string,
): Row<Error> => ({ error, answer, level, note }) as unknown as Row<Error>;

/** A refusal of the moment, which no cache should keep. */
export const NO_STORE = { 'Cache-Control': 'no-store' };

/** The domain's errors and their answers: the one table from an error to a status. */
const TABLE: readonly Row<Error>[] = [
  // The process is stopping and closed the store's thread under a request in flight (its client
  // is gone by then, or the grace period is over): nothing failed.
  row(
    StoreClosed,
    () => serviceUnavailable(5, 'The service is stopping.'),
    'info',
    'request abandoned: stopping',
  ),
  // Overload is no failure of the request: 503 with Retry-After, and the access log tells it.
  row(RendersBusy, busy),
  // The remote store is down or slow: the document cannot be made now, and will be again once
  // the store answers (the client's next try, or the cache's).
  row(StoreUnavailable, storeDown),
  row(StoreTimeout, storeDown),
  // The search index of the version served is not built yet, or built again after its thread failed.
  row(SearchUnavailable, (e) => serviceUnavailable(5, e.message)),
  // The search queue is full: the client's own share (429) or everyone's (503).
  row(SearchBusy, (e) =>
    e.perClient
      ? tooManyRequests(1, e.message, NO_STORE)
      : serviceUnavailable(1, e.message, NO_STORE),
  ),
  // A question dropped because its client left: nobody reads the answer, the log says 499.
  row(ClientGone, () => clientClosedRequest('The client went away.')),
  // A staff query's failures (src/http/sparql/endpoint.ts logs each with its outcome).
  row(QueryTimeout, (e, { sparql }) =>
    serviceUnavailable(
      Math.ceil(sparql.timeoutMs / 1000),
      e.message || `The query ran longer than ${sparql.timeoutMs} ms and was stopped.`,
    ),
  ),
  row(StaffUnavailable, (e) => serviceUnavailable(e.retryAfter, e.message)),
  row(CannotWrite, (e) =>
    notAcceptable(
      `${e.message}. Ask for another format: ${GRAPH_FORMATS.filter((f) => f.kind !== 'rdf')
        .map((f) => f.mediaType)
        .join(', ')}.`,
    ),
  ),
  row(QueryAbandoned, (e) => clientClosedRequest(e.message)),
  row(QueryRefused, (e) => new HttpError(e.status, e.message)),
  row(NoFormatAccepted, (e) =>
    notAcceptable(
      undefined,
      RESULT_FORMATS[e.form].map((f) => ({ href: f.mediaType, label: f.label, type: f.mediaType })),
    ),
  ),
  row(QueryFailed, (e) => badRequest(`The store cannot run this query: ${e.message}`)),
];

function isClientError(error: unknown): error is { status: number } {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * The answer to `error`: an HttpError as it is (a warning when it names a cause), a domain error
 * by the table, a client error of a library (its `status`) as a bare 4xx, anything else 500.
 */
export function answerOf(error: unknown, context: AnswerContext): Answer {
  if (error instanceof HttpError)
    return { http: error, level: error.cause instanceof Error ? 'warn' : 'silent' };
  for (const { error: type, answer, level, note } of TABLE)
    if (error instanceof type) {
      const http = answer(error, context);
      return {
        http,
        level: level ?? (http.cause instanceof Error ? 'warn' : 'silent'),
        ...(note === undefined ? {} : { note }),
      };
    }
  if (isClientError(error))
    return { http: new HttpError(error.status, 'Bad request.'), level: 'silent' };
  return { http: new HttpError(500, 'Internal error.'), level: 'error' };
}
