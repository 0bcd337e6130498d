// Builds the Express app: the route table, and the one place where errors become responses.
import crypto from 'node:crypto';
import accepts from 'accepts';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { DocumentCache, Documents, Encoding, Rendered } from '../documents';
import { encodedBody, encodedEtag } from '../documents';
import type { Logger } from '../log';
import { escapeHtml } from '../page';
import type { Service } from '../service';
import { FORMATS, formatByExtension, formatByName, type Format } from '../rdf/formats';
import { DATA_PATH, DIRECTORY_PATH, documentPath, RESOURCE_PATH } from '../rdf/iris';
import { isilDefect, type Isil } from '../rdf/isil';
import { CONTEXT_PATH, contextDocument } from '../rdf/jsonld';
import { CC0 } from '../rdf/namespaces';
import { negotiate } from '../rdf/negotiate';
import { notModified } from './conditional';
import { HttpError, methodNotAllowed, notAcceptable, notFound, notReady, notWellFormed, unknownIsil } from './errors';

export interface AppDeps {
  readonly service: Service;
  readonly logger: Logger;
}

/** At most this much of a rejected path is echoed in an error body. */
const ECHO_LIMIT = 64;

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Link, Location, Content-Location, ETag, Last-Modified, Vary',
} as const;

const PREFLIGHT = {
  'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': 'Accept, Accept-Language, If-None-Match, If-Modified-Since',
  'Access-Control-Max-Age': '86400',
} as const;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What a request names: an ISIL as it was spelled, checked, and what the path had after it. */
function isilFromPath(raw: string): Isil {
  const text = raw.startsWith('/') ? raw.slice(1) : raw;
  const echo = text.length > ECHO_LIMIT ? `${text.slice(0, ECHO_LIMIT)}…` : text;
  // Every ISIL character may stand in a path as it is, so an ISIL is never percent-encoded;
  // a `%` is an encoded slash, NUL, dot or something else that is no part of an ISIL.
  if (text.includes('%')) throw notWellFormed(echo, 'percent-encoded characters are not part of an ISIL');
  const defect = isilDefect(text);
  if (defect !== undefined) throw notWellFormed(echo, defect);
  return text as Isil;
}

function current(service: Service): Documents {
  const documents = service.current;
  if (!documents) throw notReady();
  return documents;
}

export function createApp({ service, logger }: AppDeps): express.Express {
  const { config } = service;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('query parser', false);

  const cacheControl = `public, max-age=${config.maxAge}`;
  const directory = config.isilDirectoryUrl;
  let sequence = 0;

  // Request id, access log and CORS headers, for every response (errors and redirects included).
  app.use((req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && /^[\w.:-]{1,64}$/.test(given) ? given : `${process.pid.toString(36)}-${(++sequence).toString(36)}`;
    const started = process.hrtime.bigint();
    res.setHeader('X-Request-Id', id);
    res.setHeader('Access-Control-Allow-Origin', CORS['Access-Control-Allow-Origin']);
    res.setHeader('Access-Control-Expose-Headers', CORS['Access-Control-Expose-Headers']);
    if (logger.isLevelEnabled('info')) {
      res.once('finish', () => {
        logger.info({ reqId: id, method: req.method, url: req.originalUrl.slice(0, 512), status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'request');
      });
    }
    next();
  });

  // Read-only: anything but GET, HEAD and OPTIONS is 405; OPTIONS is a CORS preflight.
  app.use((req, res, next) => {
    if (!SAFE_METHODS.has(req.method)) return next(methodNotAllowed());
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...PREFLIGHT, Allow: 'GET, HEAD, OPTIONS', 'Content-Length': '0' });
      res.end();
      return;
    }
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'alive' });
  });

  app.get('/readyz', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const documents = service.current;
    if (!documents) {
      res.status(503).json({ status: 'loading' });
      return;
    }
    const { dataset } = documents;
    res.json({ status: 'ready', institutions: dataset.institutionCount, triples: dataset.tripleCount, version: dataset.version, loadedAt: dataset.loadedAt.toISOString() });
  });

  const context = Buffer.from(contextDocument());
  const contextRendered: Rendered = { body: context, etag: `"${crypto.createHash('sha256').update(context).digest('base64url').slice(0, 27)}"`, lastModified: new Date(), encoded: {} };
  app.get(CONTEXT_PATH, (req, res) => {
    send(req, res, contextRendered, { 'Content-Type': 'application/ld+json', 'Cache-Control': cacheControl, Link: `<${CC0}>; rel="license"` });
  });

  app.get('/', (req, res) => {
    const documents = current(service);
    const example = documents.dataset.institutions().next().value;
    const body = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>ISIL Linked Data</title></head><body><h1>ISIL Linked Data</h1><p>The address data of ${documents.dataset.institutionCount} libraries, archives and museums, identified by ISIL, as Linked Data (FOAF and vCard) under <a rel="license" href="${CC0}">CC0 1.0</a>.</p>${example ? `<p>For example: <a href="${escapeHtml(RESOURCE_PATH + example.isil)}">${escapeHtml(example.name ?? example.isil)}</a>.</p>` : ''}<p>JSON-LD context: <a href="${CONTEXT_PATH}">${CONTEXT_PATH}</a>.</p></body></html>\n`;
    res.setHeader('Cache-Control', cacheControl);
    res.type('html').send(body);
  });

  /** Finds the institution or throws the answer for an ISIL that is not a plain hit (contract §5). */
  const institutionOr301 = (req: Request, documents: Documents, isil: Isil, rebuild: (canonical: string) => string) => {
    const found = documents.dataset.lookup(isil);
    if (found.kind === 'found') return found.institution;
    if (found.kind === 'other-case') {
      const query = req.originalUrl.indexOf('?');
      const location = rebuild(found.isil) + (query >= 0 ? req.originalUrl.slice(query) : '');
      throw new HttpError(301, `The canonical spelling of this ISIL is ${found.isil}.`, { Location: location, 'Cache-Control': cacheControl });
    }
    throw unknownIsil(isil);
  };

  const seeOther = (req: Request, res: Response, isil: Isil) => {
    const format = negotiate(req.headers.accept);
    if (!format) {
      throw notAcceptable(FORMATS.map((f) => ({ href: documentPath(isil, f.ext), label: f.label, type: f.mediaType })));
    }
    res.writeHead(303, { Location: documentPath(isil, format.ext), 'Content-Length': '0', Vary: 'Accept', 'Cache-Control': cacheControl });
    res.end();
  };

  app.use(RESOURCE_PATH.slice(0, -1), (req, res) => {
    const documents = current(service);
    const isil = isilFromPath(req.path);
    const institution = institutionOr301(req, documents, isil, (c) => `${RESOURCE_PATH}${c}`);
    seeOther(req, res, institution.isil);
  });

  app.use(DATA_PATH.slice(0, -1), async (req, res) => {
    const documents = current(service);
    const raw = req.path;
    const dot = raw.lastIndexOf('.');
    if (dot < 0) {
      const isil = isilFromPath(raw);
      const institution = institutionOr301(req, documents, isil, (c) => `${DATA_PATH}${c}`);
      seeOther(req, res, institution.isil);
      return;
    }
    const isil = isilFromPath(raw.slice(0, dot));
    const format = formatByExtension(raw.slice(dot + 1));
    if (!format) throw notFound(`No document of that kind: the extensions are ${FORMATS.map((f) => `.${f.ext}`).join(', ')}.`);
    const institution = institutionOr301(req, documents, isil, (c) => documentPath(c, format.ext));
    if (format.name === 'html') {
      const target = `${directory}${DIRECTORY_PATH}${institution.isil}`;
      res.writeHead(302, { Location: target, 'Content-Length': '0', 'Content-Type': 'text/html', 'Cache-Control': cacheControl });
      res.end();
      return;
    }
    const rendered = await documents.get(institution, format.name);
    send(req, res, rendered, {
      'Content-Type': format.contentType,
      'Content-Location': documentPath(institution.isil, format.ext),
      'Content-Disposition': `inline; filename="${institution.isil.replace(/[/:]/g, '_')}.${format.ext}"`,
      Link: linkHeader(institution.isil, format),
      'Cache-Control': cacheControl,
    }, documents.cache);
  });

  if (directory === '') {
    app.use(DIRECTORY_PATH.slice(0, -1), async (req, res) => {
      const documents = current(service);
      const isil = isilFromPath(req.path);
      const institution = institutionOr301(req, documents, isil, (c) => `${DIRECTORY_PATH}${c}`);
      const rendered = await documents.get(institution, 'html');
      send(req, res, rendered, {
        'Content-Type': formatByName('html').contentType,
        Link: linkHeader(institution.isil, formatByName('html')),
        'Cache-Control': cacheControl,
      }, documents.cache);
    });
  }

  app.use((req) => {
    throw notFound(`Nothing is published at ${req.path.slice(0, ECHO_LIMIT * 2)}.`);
  });

  // The one place where errors become responses: no stack trace or internal path leaves.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const http = error instanceof HttpError ? error : undefined;
    const status = http?.status ?? (isClientError(error) ? (error as { status: number }).status : 500);
    if (!http && status >= 500) logger.error({ err: error, url: req.originalUrl.slice(0, 512) }, 'request failed');
    const message = http?.message ?? (status >= 500 ? 'Internal error.' : 'Bad request.');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const wantsHtml = negotiate(req.headers.accept)?.name === 'html';
    const links = http?.links ?? [];
    let body: string;
    let type: string;
    if (wantsHtml) {
      type = 'text/html;charset=utf-8';
      const list = links.length ? `<ul>${links.map((l) => `<li><a href="${escapeHtml(l.href)}"${l.type ? ` type="${l.type}"` : ''}>${escapeHtml(l.label)}</a></li>`).join('')}</ul>` : '';
      body = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${status}</title></head><body><h1>${status}</h1><p>${escapeHtml(message)}</p>${list}</body></html>\n`;
    } else {
      type = 'text/plain;charset=utf-8';
      body = `${message}\n${links.map((l) => `${l.href} (${l.type ?? l.label})\n`).join('')}`;
    }
    const headers: Record<string, string> = { 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), Vary: 'Accept', ...http?.headers };
    if (!headers['Cache-Control']) headers['Cache-Control'] = status === 404 || status === 406 ? 'public, max-age=60' : 'no-store';
    res.writeHead(status, headers);
    res.end(body);
  });

  return app;

  function linkHeader(isil: string, self: Format): string {
    const alternates = FORMATS.filter((f) => f !== self).map((f) => `<${documentPath(isil, f.ext)}>; rel="alternate"; type="${f.mediaType}"`);
    return [`<${CC0}>; rel="license"`, ...alternates].join(', ');
  }
}

function isClientError(error: unknown): boolean {
  const status = (error as { status?: unknown })?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}


/** Sends a rendered document: content coding, validators, 304 or 200 (HEAD sends no body). */
function send(req: Request, res: Response, rendered: Rendered, headers: Record<string, string>, cache?: DocumentCache): void {
  const encoding: Encoding = req.headers['accept-encoding'] ? ((accepts(req).encoding(['br', 'gzip', 'identity']) || 'identity') as Encoding) : 'identity';
  const etag = encodedEtag(rendered, encoding);
  const all: Record<string, string> = { ...headers, ETag: etag, 'Last-Modified': rendered.lastModified.toUTCString(), Vary: 'Accept-Encoding' };
  if (notModified(req.headers, [rendered.etag, encodedEtag(rendered, 'br'), encodedEtag(rendered, 'gzip')], rendered.lastModified)) {
    delete all['Content-Type'];
    delete all['Content-Disposition'];
    res.writeHead(304, all);
    res.end();
    return;
  }
  const body = encodedBody(rendered, encoding, cache);
  if (encoding !== 'identity') all['Content-Encoding'] = encoding;
  all['Content-Length'] = String(body.length);
  res.writeHead(200, all);
  res.end(body);
}

