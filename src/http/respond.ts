// Writing answers: documents with their validators and content codings, redirects, and errors.
import { createHash } from 'node:crypto';
import accepts from 'accepts';
import type { NextFunction, Request, Response } from 'express';
import {
  encodedBody,
  encodedEtag,
  type DocumentCache,
  type Encoding,
  type Rendered,
} from '../serving/documents';
import type { Institution } from '../store/dataset';
import type { Logger } from '../log';
import type { Format } from '../rdf/formats';
import { escapeHtml } from '../serving/page';
import { negotiate } from './negotiate';
import { notModified } from '../serving/conditional';
import { answerOf, Gone, type AnswerContext } from './errors';
import { queryOf } from './deps';
import { pageLanguage } from '../serving/html/language';
import { withdrawnPage } from '../serving/html/withdrawnPage';
import { commonHeaders, CORS } from './middleware';
import { pageHeaders } from './pageHeaders';

interface PreparedHeaders {
  /**
   * The 200 of the identity coding, and the 304: built once per cached document. Only the request
   * id is written into them per request (`withRequestId`).
   */
  readonly ok: Record<string, string>;
  readonly notModified: Record<string, string>;
  /** Every ETag of the document, one per content coding: any of them revalidates. */
  readonly etags: readonly string[];
}

const prepared = new WeakMap<Rendered, PreparedHeaders>();

/** Builds a document's own headers; called once per cached document, not per request. */
export type HeaderBuilder = (
  institution: Institution | undefined,
  format: Format,
) => Record<string, string>;

/**
 * A document's headers. The 304's and the list of ETags are made on first use: an uncached
 * document (the cache off, or evicted) is mostly answered once, with a 200.
 */
class Prepared implements PreparedHeaders {
  readonly ok: Record<string, string>;
  private not: Record<string, string> | undefined;
  private tags: readonly string[] | undefined;

  constructor(
    private readonly rendered: Rendered,
    all: Readonly<Record<string, string>>,
  ) {
    this.ok = { ...all, 'Content-Length': String(rendered.body.length) };
  }

  get notModified(): Record<string, string> {
    if (!this.not) {
      // Copied without the headers of a body rather than `delete`d from a copy: an object that
      // lost properties is kept as a hash table by V8, slower for writeHead to walk on every 304.
      // `X-Request-Id` is copied too, in its place (see `withRequestId`).
      const not: Record<string, string> = {};
      for (const [name, value] of Object.entries(this.ok))
        if (!BODY_HEADERS.has(name)) not[name] = value;
      this.not = not;
    }
    return this.not;
  }

  get etags(): readonly string[] {
    const { rendered } = this;
    return (this.tags ??= [
      rendered.etag,
      encodedEtag(rendered, 'br'),
      encodedEtag(rendered, 'gzip'),
    ]);
  }
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

/** What a 304 leaves out: the headers that describe a body. */
const BODY_HEADERS = new Set(['Content-Type', 'Content-Disposition', 'Content-Length']);

function prepare(
  rendered: Rendered,
  headers: HeaderBuilder,
  institution: Institution | undefined,
  format: Format,
): PreparedHeaders {
  let p = prepared.get(rendered);
  if (!p) {
    const validators = {
      ETag: rendered.etag,
      'Last-Modified': rendered.lastModified.toUTCString(),
      // A page's words follow Accept-Language (issue 18); the RDF documents' do not.
      Vary: format.name === 'html' ? 'Accept-Encoding, Accept-Language' : 'Accept-Encoding',
    };
    p = new Prepared(rendered, { ...headers(institution, format), ...validators, ...CORS });
    prepared.set(rendered, p);
  }
  return p;
}

/**
 * A rendered document: 304 when the client's validators match, else 200 (HEAD: no body). The
 * headers are made once per document (`headers` is called only then): this is the hot path, so
 * it allocates nothing per request for a cached document in the identity coding.
 */
export function sendDocument(
  req: Request,
  res: Response,
  rendered: Rendered,
  headers: HeaderBuilder,
  institution: Institution | undefined,
  format: Format,
  cache?: DocumentCache,
): void {
  const p = prepare(rendered, headers, institution, format);
  const id = res.locals.requestId as string;
  const encoding: Encoding = req.headers['accept-encoding']
    ? ((accepts(req).encoding(['br', 'gzip', 'identity']) || 'identity') as Encoding)
    : 'identity';
  const conditional =
    req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined;
  if (conditional && notModified(req.headers, p.etags, rendered.lastModified)) {
    if (encoding === 'identity') res.writeHead(304, withRequestId(p.notModified, id));
    else
      res.writeHead(304, {
        ...p.notModified,
        'X-Request-Id': id,
        ETag: encodedEtag(rendered, encoding),
      });
    res.end();
    return;
  }
  if (encoding === 'identity') {
    res.writeHead(200, withRequestId(p.ok, id));
    res.end(rendered.body);
    return;
  }
  const body = encodedBody(rendered, encoding, cache);
  res.writeHead(200, {
    ...p.ok,
    'X-Request-Id': id,
    ETag: encodedEtag(rendered, encoding),
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
    if (http instanceof Gone && negotiate(req.headers.accept)?.name === 'html') {
      // A withdrawn ISIL's own page, in the reader's language (issue 18).
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
      body = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${status}</title></head><body><h1>${status}</h1><p>${escapeHtml(message)}</p>${list}</body></html>\n`;
    } else {
      type = 'text/plain;charset=utf-8';
      body = `${message}\n${links.map((l) => `${l.href} (${l.type ?? l.label})\n`).join('')}`;
    }
    const headers: Record<string, string> = {
      ...commonHeaders(res),
      ...(type === 'text/plain;charset=utf-8' ? {} : pageHeaders()),
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
  readonly body: string;
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
