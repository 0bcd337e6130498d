// One error class per HTTP status the service answers with, and small helpers to make them.
import type { Withdrawn } from '../store/dataset';

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

export const unknownIsil = (isil: string) =>
  new HttpError(404, `No institution has the ISIL ${isil}.`);

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

export const gone = (withdrawn: Withdrawn, headers: Readonly<Record<string, string>> = {}) =>
  new Gone(withdrawn, headers);

export const notFound = (what = 'No such resource.') => new HttpError(404, what);

export const notAcceptable = (links: HttpError['links']) =>
  new HttpError(
    406,
    'None of the available documents matches the Accept header. Available:',
    {},
    links,
  );

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

/** The methods of this read-only service: the `Allow` of every 405 and of the CORS preflight. */
export const METHODS: readonly string[] = ['GET', 'HEAD', 'OPTIONS'];
export const ALLOW = METHODS.join(', ');

export const methodNotAllowed = () =>
  new HttpError(405, 'This service is read-only: GET, HEAD and OPTIONS only.', { Allow: ALLOW });

/** RFC 9112 §3.2: a server answers 400 to an HTTP/1.1 request without exactly one Host field. */
export const noHost = () =>
  new HttpError(400, 'An HTTP/1.1 request carries a Host header (RFC 9112 §3.2).');

/**
 * 503 when the renders of uncached documents are at their bound (src/renderQueue.ts): the client
 * may retry in a second (RFC 9110 §10.2.3); cached documents are still answered meanwhile.
 */
export const busy = () =>
  new HttpError(503, 'The service is busy rendering other documents; try again in a second.', {
    'Retry-After': '1',
  });

/**
 * 503 when the remote store did not answer a document's query by its deadline (it is down, or
 * slow): documents already cached are still answered, and this one again once the store is back.
 * The cause is logged as a warning, not as a failure of the service.
 */
export const storeDown = (cause: Error) =>
  new HttpError(
    503,
    'The store that holds the data does not answer now; try again shortly.',
    { 'Retry-After': '5' },
    [],
    cause,
  );

export const notReady = () =>
  new HttpError(503, 'The dataset is not loaded yet.', { 'Retry-After': '5' });
