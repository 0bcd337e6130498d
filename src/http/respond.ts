// Writing answers: documents with their validators and content codings, redirects, and errors.
import { createHash } from 'node:crypto';
import accepts from 'accepts';
import type { NextFunction, Request, Response } from 'express';
import type { Format } from '../rdf/formats';
import type { Answer, Encoding, Representation } from '../serving/representation';
import type { Logger } from '../log';
import { escapeHtml } from '../serving/html/escape';
import { negotiate } from './negotiate';
import { notModified } from './conditional';
import { answerOf, Gone, type AnswerContext, type HttpError } from './errors';
import { queryOf } from './deps';
import { pageLanguage } from '../serving/html/language';
import { withdrawnPage } from '../serving/html/withdrawnPage';
import { ICON_LINK } from '../serving/html/layout';
import { commonHeaders, CORS } from './middleware';
import { pageHeaders } from './pageHeaders';

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
 * its own. A fresh copy per answer instead (15 headers) cost the cached `.ttl` about 10% and the
 * 303 about 20% of their throughput (wrk, 50 connections, old and new build by turns).
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
  if (conditional && notModified(req.headers, document.etags, document.lastModified)) {
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
  const body = document.bodyIn(encoding);
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
 * The one place where errors become responses, by `answerOf`'s table (errors.ts): an HTML page
 * when negotiation picks HTML (no Accept, the full wildcard, an HTML type), plain text for an RDF
 * type or a type no document matches; no stack trace or internal path leaves the process.
 */
/** Set on `res.locals` by a route whose errors are written in its own format (OAI-PMH's XML). */
export interface OwnErrorBody {
  errorBody?: (http: HttpError) => { readonly type: string; readonly body: string };
}

export function errorHandler(logger: Logger, context: AnswerContext) {
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
    let body: string;
    let type: string;
    const own = (res.locals as OwnErrorBody).errorBody?.(http);
    if (own) ({ type, body } = own);
    else if (http instanceof Gone && negotiate(req.headers.accept)?.name === 'html') {
      // A withdrawn ISIL's own page, in the reader's language.
      type = 'text/html;charset=utf-8';
      body = withdrawnPage(
        http.withdrawn,
        pageLanguage(queryOf(req), req.headers['accept-language']),
      );
    } else if (negotiate(req.headers.accept)?.name === 'html') {
      type = 'text/html;charset=utf-8';
      const list = links.length
        ? `<ul>${links.map((l) => `<li><a href="${escapeHtml(l.href)}"${l.type ? ` type="${l.type}"` : ''}>${escapeHtml(l.label)}</a></li>`).join('')}</ul>`
        : '';
      body = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${status}</title>${ICON_LINK}</head><body><h1>${status}</h1><p>${escapeHtml(message)}</p>${list}</body></html>\n`;
    } else {
      type = 'text/plain;charset=utf-8';
      body = `${message}\n${links.map((l) => `${l.href} (${l.type ?? l.label})\n`).join('')}`;
    }
    const headers: Record<string, string> = {
      ...commonHeaders(res),
      ...(type === 'text/html;charset=utf-8' ? pageHeaders() : {}),
      'Content-Type': type,
      'Content-Length': String(Buffer.byteLength(body)),
      Vary: http instanceof Gone ? 'Accept, Accept-Language' : 'Accept',
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
  if (notModified(asked, [answer.etag], lastModified ?? new Date(0))) {
    res.writeHead(304, all);
    res.end();
    return;
  }
  res.writeHead(status, { ...all, 'Content-Length': String(Buffer.byteLength(answer.body)) });
  res.end(req.method === 'HEAD' ? undefined : answer.body);
}
