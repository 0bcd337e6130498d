// The query operation of the SPARQL 1.1 Protocol (§2.1): a query by GET, by form POST or as the
// body of a POST, with the dataset it names. What does not follow the protocol is answered here,
// before anything is parsed or run: 400, 403 (an update), 405, 413, 415.
import type { Request } from 'express';
import { ALLOW_WITH_POST, badRequest, forbidden, unsupportedMediaType } from '../errors';
import { requestBody } from '../body';
import { READ_ONLY } from '../../store/staffQuery';

/** What the endpoint answers: its route's methods (routes.ts), as an `Allow` value. */
export const SPARQL_METHODS = ALLOW_WITH_POST;

/** A protocol request: the query (undefined when none was sent) and the dataset it names. */
export interface ProtocolRequest {
  readonly query: string | undefined;
  readonly defaultGraphs: readonly string[];
  readonly namedGraphs: readonly string[];
}

const FORM = 'application/x-www-form-urlencoded';
const QUERY = 'application/sparql-query';
const UPDATE = 'application/sparql-update';

const readOnly = () => forbidden(READ_ONLY, { 'Cache-Control': 'no-store' });

/** UTF-8 text, or 400: the protocol has the query in UTF-8 and nothing else. */
function utf8(bytes: Buffer, what: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw badRequest(`The ${what} is not UTF-8: the SPARQL Protocol sends queries in UTF-8 only.`);
  }
}

/** The media type of Content-Type, lower case, and its charset parameter. */
function contentType(header: string | undefined): { type: string; charset?: string } | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const [type = '', ...params] = header.split(';');
  const charset = params
    .map((p) => /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(p)?.[1])
    .find((c) => c !== undefined);
  return {
    type: type.trim().toLowerCase(),
    ...(charset ? { charset: charset.toLowerCase() } : {}),
  };
}

/** Every value of each parameter of a query string or form body (application/x-www-form-urlencoded). */
function parameters(text: string): URLSearchParams {
  // URLSearchParams decodes a malformed %-escape as it stands, and bytes that are not UTF-8 as
  // U+FFFD: the text is checked for both first, so that a mangled query is refused, never run.
  if (/%(?![0-9A-Fa-f]{2})/.test(text)) throw badRequest('A parameter has a malformed %-escape.');
  try {
    decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw badRequest(
      'A parameter is not UTF-8 once %-decoded: the SPARQL Protocol uses UTF-8 only.',
    );
  }
  return new URLSearchParams(text);
}

function onlyOne(values: readonly string[], name: string): string | undefined {
  if (values.length > 1)
    throw badRequest(
      `The request has ${values.length} ${name} parameters; the SPARQL Protocol allows one.`,
    );
  return values[0];
}

/** Reads the protocol request; throws an HttpError for one the protocol does not allow. */
export async function readProtocol(req: Request, maxBody: number): Promise<ProtocolRequest> {
  const target = req.originalUrl;
  const mark = target.indexOf('?');
  const inUrl = parameters(mark < 0 ? '' : target.slice(mark + 1));
  let inBody: URLSearchParams | undefined;
  let direct: string | undefined;
  if (req.method === 'POST') {
    const type = contentType(req.headers['content-type']);
    if (type?.type === UPDATE) throw readOnly();
    if (type?.type !== FORM && type?.type !== QUERY)
      throw unsupportedMediaType(
        `A query is POSTed as ${FORM} (query=…) or as ${QUERY}; ${type === undefined ? 'this request has no Content-Type' : `not as ${type.type}`}.`,
        { Accept: `${FORM}, ${QUERY}`, 'Cache-Control': 'no-store' },
      );
    if (type.charset !== undefined && type.charset !== 'utf-8' && type.charset !== 'utf8')
      throw badRequest(
        `The body is ${type.charset}: the SPARQL Protocol sends queries in UTF-8 only.`,
      );
    const bytes = await requestBody(req, maxBody, 'SPARQL_MAX_BODY_BYTES');
    if (type.type === QUERY) direct = utf8(bytes, 'query');
    else inBody = parameters(utf8(bytes, 'form body'));
    if (type.type === QUERY && inUrl.has('query'))
      throw badRequest(
        'The query is in the body; the URL must not carry a query parameter as well.',
      );
  }
  const all = (name: string) => [...inUrl.getAll(name), ...(inBody?.getAll(name) ?? [])];
  if (all('update').length > 0 || all('using-graph-uri').length > 0) throw readOnly();
  const query = direct ?? onlyOne(all('query'), 'query');
  return {
    query,
    defaultGraphs: all('default-graph-uri'),
    namedGraphs: all('named-graph-uri'),
  };
}
