// Writing answers: documents with their validators and content codings, redirects, and errors.
import { createHash } from 'node:crypto';
import accepts from 'accepts';
import type { NextFunction, Request, Response } from 'express';
import { FORMATS, type Format } from '../rdf/formats';
import type { Answer, Encoding, Representation } from '../documents/representation';
import type { Logger } from '../util/logger';
import { negotiateAmong } from './negotiate';
import { notModified } from './conditional';
import {
  answerOf,
  Gone,
  NoLongerServed,
  UnknownIsil,
  type AnswerContext,
  type HttpError,
} from './errors';
import { queryOf } from './deps';
import { pageLanguage, type PageLanguage } from '../pages/language';
import { errorPage, statusTitle } from '../pages/errorPage';
import { withdrawnPage } from '../pages/withdrawnPage';
import { commonHeaders, CORS } from './middleware';
import { pageHeaders } from './pageHeaders';
import { publicOrigin } from './publicOrigin';

/**
 * The 200 of a document: `own` headers (type, links, caching), then its validators, CORS and its
 * length, in that order. Made once per document, when it is rendered.
 */
export function documentAnswer(
  own: Readonly<Record<string, string>>,
  format: Format,
  // A page's words follow Accept-Language; the RDF documents' do not.
  vary = format.name === 'html' ? 'Accept-Encoding, Accept-Language' : 'Accept-Encoding',
): Answer {
  return {
    status: 200,
    headers: (document) => ({
      ...own,
      ETag: document.etag,
      'Last-Modified': document.lastModified.toUTCString(),
      Vary: vary,
      ...CORS,
      'Content-Length': String(document.body.length),
    }),
  };
}

/**
 * `headers`, made once for a document or a kind of redirect, with this request's id written in:
 * they are handed to `writeHead`, which reads them synchronously, so the next request may write
 * its own. A fresh copy per answer instead cost the cached `.ttl` and the 303 a noticeable part of
 * their throughput (docs/benchmark.md, "headers copied per answer").
 */
function withRequestId(headers: Record<string, string>, id: string): Record<string, string> {
  headers['X-Request-Id'] = id;
  return headers;
}

/**
 * A document: its prepared answer. A 200 is 304 when the client's validators match, else 200 in
 * the negotiated content coding (HEAD: no body); a 410 is answered as it is. This is the hot path:
 * it allocates nothing per request for a cached document in the identity coding.
 */
export function sendDocument(req: Request, res: Response, document: Representation): void {
  const id = res.locals.requestId as string;
  if (document.status !== 200) {
    res.writeHead(document.status, withRequestId(document.headers, id));
    res.end(document.body);
    return;
  }
  const encoding: Encoding = req.headers['accept-encoding']
    ? ((accepts(req).encoding(['br', 'gzip', 'identity']) || 'identity') as Encoding)
    : 'identity';
  const conditional =
    req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined;
  if (conditional && notModified(req.headers, document.etagIn(encoding), document.lastModified)) {
    if (encoding === 'identity') res.writeHead(304, withRequestId(document.notModified, id));
    else
      res.writeHead(304, {
        ...document.notModified,
        'X-Request-Id': id,
        ETag: document.etagIn(encoding),
      });
    res.end();
    return;
  }
  if (encoding === 'identity') {
    res.writeHead(200, withRequestId(document.headers, id));
    res.end(document.body);
    return;
  }
  const made = document.madeIn(encoding);
  if (made) sendEncoded(res, document, encoding, id, made);
  else
    document.bodyIn(encoding).then(
      (body) => sendEncoded(res, document, encoding, id, body),
      (error: unknown) => res.destroy(error as Error),
    );
}

/** A 200 in a content coding: the document's headers with the coding's ETag and length. */
function sendEncoded(
  res: Response,
  document: Representation,
  encoding: Encoding,
  id: string,
  body: Buffer,
): void {
  res.writeHead(200, {
    ...document.headers,
    'X-Request-Id': id,
    ETag: document.etagIn(encoding),
    'Content-Encoding': encoding,
    'Content-Length': String(body.length),
  });
  res.end(body);
}

/**
 * The headers of one kind of redirect, made once by its route (`constant`: those it always
 * sends): only `Location` and the request id are written per answer (see `withRequestId`).
 */
export class RedirectHeaders {
  readonly all: Record<string, string>;

  constructor(constant: Readonly<Record<string, string>>) {
    this.all = { 'X-Request-Id': '', ...CORS, Location: '', 'Content-Length': '0', ...constant };
  }
}

/** A redirect without a body (303 See Other, 302 Found). */
export function redirect(
  res: Response,
  status: 302 | 303,
  location: string,
  headers: RedirectHeaders,
): void {
  headers.all.Location = location;
  res.writeHead(status, withRequestId(headers.all, res.locals.requestId as string));
  res.end();
}

/**
 * How an error's body is written: as a page when negotiation picks HTML (no Accept, the full
 * wildcard, an HTML type), as an RFC 9457 problem for a JSON client (`application/json` or
 * `application/problem+json` preferred, or `format=json`), else as plain text (an RDF type, or a
 * type no document matches). JSON-LD keeps its plain text: it is the RDF clients' type.
 */
const ERROR_OFFERS = [
  ...FORMATS.map((f) => ({
    kind: f.name === 'html' ? ('html' as const) : ('text' as const),
    mediaType: f.mediaType,
    aliases: f.aliases.filter((a) => a !== 'application/json'),
  })),
  {
    kind: 'json' as const,
    mediaType: 'application/problem+json',
    aliases: ['application/json'],
  },
];

type ErrorStyle = 'html' | 'json' | 'text';

function errorStyle(req: Request): ErrorStyle {
  if (queryOf(req).get('format') === 'json') return 'json';
  return negotiateAmong(req.headers.accept, ERROR_OFFERS)?.kind ?? 'text';
}

/** The path and query the error page's language switch links to: the request's, without `lang`. */
function selfOf(req: Request): string {
  const url = req.originalUrl.slice(0, 512);
  const query = url.indexOf('?');
  if (query < 0) return url;
  const params = new URLSearchParams(url.slice(query + 1));
  params.delete('lang');
  const rest = params.toString();
  return `${url.slice(0, query)}${rest ? `?${rest}` : ''}`;
}

/** The page of an error, in the reader's language. */
function errorHtml(http: HttpError, req: Request, language: PageLanguage): string {
  if (http instanceof Gone) return withdrawnPage(http.withdrawn, language, http.past);
  const about =
    http instanceof UnknownIsil
      ? { kind: 'unknown' as const, isil: http.isil }
      : http instanceof NoLongerServed
        ? { kind: 'deleted' as const, isil: http.isil }
        : undefined;
  const past = http instanceof NoLongerServed ? http.past : undefined;
  const { status, message, links } = http;
  return errorPage({ status, message, links, about, past }, language, selfOf(req));
}

/**
 * An RFC 9457 problem: its members, the links of a 404 or 406, and a 410's past, whose paths (as
 * the pages link them) are made URLs on `origin` (publicOrigin), as every URL a client fetches.
 */
function problem(http: HttpError, origin: string): string {
  const known = http instanceof Gone || http instanceof NoLongerServed ? http.past : undefined;
  const past = known && {
    timemap: `${origin}${known.timemap}`,
    latest: `${origin}${known.latest}`,
  };
  return `${JSON.stringify({
    type: 'about:blank',
    title: statusTitle(http.status, 'en'),
    status: http.status,
    detail: http.message,
    ...(http.links.length ? { links: http.links } : {}),
    ...(past ? { timemap: past.timemap, latestMemento: past.latest } : {}),
  })}\n`;
}

/** Set on `res.locals` by a route whose errors are written in its own format (OAI-PMH's XML). */
export interface OwnErrorBody {
  errorBody?: (http: HttpError) => { readonly type: string; readonly body: string };
}

/**
 * The one place where errors become responses, by `answerOf`'s table (errors.ts), in the style
 * `errorStyle` chooses (plain text for a page where the site's `pages` are not served: the staff
 * listener); no stack trace or internal path leaves the process.
 */
export function errorHandler(logger: Logger, context: AnswerContext, pages = true) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const { http, level, note } = answerOf(error, context);
    const url = req.originalUrl.slice(0, 512);
    if (level === 'info') logger.info({ url }, note ?? http.message);
    else if (level === 'warn') logger.warn({ err: http.cause, url }, note ?? http.message);
    else if (level === 'error') logger.error({ err: error, url }, note ?? 'request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const { status, message, links } = http;
    const chosen = errorStyle(req);
    const style = chosen === 'html' && !pages ? 'text' : chosen;
    let body: string;
    let own: Record<string, string>;
    const written = (res.locals as OwnErrorBody).errorBody?.(http);
    if (written) {
      body = written.body;
      own = { 'Content-Type': written.type };
    } else if (style === 'html') {
      const language = pageLanguage(queryOf(req), req.headers['accept-language']);
      body = errorHtml(http, req, language);
      own = {
        ...pageHeaders(),
        'Content-Type': 'text/html;charset=utf-8',
        'Content-Language': language.lang,
      };
    } else if (style === 'json') {
      body = problem(http, publicOrigin(req));
      own = { 'Content-Type': 'application/problem+json' };
    } else {
      body = `${message}\n${links.map((l) => `${l.href} (${l.type ?? l.label})\n`).join('')}`;
      own = { 'Content-Type': 'text/plain;charset=utf-8' };
    }
    const headers: Record<string, string> = {
      ...commonHeaders(res),
      ...own,
      'Content-Length': String(Buffer.byteLength(body)),
      // The style follows Accept, a page's words Accept-Language.
      Vary: 'Accept, Accept-Language',
      ...http.headers,
    };
    headers['Cache-Control'] ??=
      status === 404 || status === 406 ? 'public, max-age=60' : 'no-store';
    res.writeHead(status, headers);
    res.end(body);
  };
}

/** A body the service makes itself (a page, a search answer, VoID), with a strong ETag of it. */
export interface Made {
  /** Text, or bytes already encoded (a CSV made in the search index's thread). */
  readonly body: string | Uint8Array;
  readonly etag: string;
}

export const made = (body: string): Made => ({
  body,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
});

/**
 * `answer`: 304 when the client's validators match, else `status` (HEAD: no body). `headers` are
 * the answer's own (type, caching, Vary); the CORS headers, the request id and the ETag are added.
 */
export function sendMade(
  req: Request,
  res: Response,
  answer: Made,
  headers: Record<string, string>,
  lastModified?: Date,
  status = 200,
): void {
  const all = {
    ...commonHeaders(res),
    ...headers,
    ETag: answer.etag,
    ...(lastModified ? { 'Last-Modified': lastModified.toUTCString() } : {}),
  };
  // Without a Last-Modified of its own, If-Modified-Since says nothing about this answer.
  const asked = lastModified ? req.headers : { 'if-none-match': req.headers['if-none-match'] };
  if (notModified(asked, answer.etag, lastModified ?? new Date(0))) {
    res.writeHead(304, all);
    res.end();
    return;
  }
  res.writeHead(status, { ...all, 'Content-Length': String(Buffer.byteLength(answer.body)) });
  res.end(req.method === 'HEAD' ? undefined : answer.body);
}
