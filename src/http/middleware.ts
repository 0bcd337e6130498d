// The middleware every request passes: request id, access log, the read-only method gate; CORS headers.
import type { NextFunction, Request, Response } from 'express';
import type { ServiceMetrics } from '../documents/service';
import type { Logger } from '../util/logger';
import { NO_ROUTE, ownMethods, routeFor, type Route } from './route';
import {
  ALLOW,
  ALLOW_WITH_POST,
  badRequest,
  httpVersionNotSupported,
  METHODS,
  methodNotAllowed,
  noHost,
} from './errors';

/**
 * HTTP contract §6: on every response, errors and redirects included. A browser script reads only
 * the CORS-safelisted response headers unless they are exposed (Fetch standard): these are the
 * others this service sends that a client acts on.
 */
export const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers':
    'Link, Location, Content-Location, ETag, Last-Modified, Vary, Dataset-Version, Retry-After, X-Request-Id, Content-Disposition, Allow, WWW-Authenticate, Results-Truncated, Memento-Datetime, Content-Profile',
} as const;

/**
 * The headers every answer carries: CORS and the request id. Writers pass them to `writeHead`
 * with their own, rather than `setHeader` them early: Node's `writeHead` takes its fast path
 * only when no header was set before it.
 */
export function commonHeaders(res: Response): Record<string, string> {
  return { 'X-Request-Id': res.locals.requestId as string, ...CORS };
}

const PREFLIGHT = {
  'Access-Control-Allow-Methods': ALLOW,
  'Access-Control-Allow-Headers':
    'Accept, Accept-Language, Accept-Datetime, Accept-Profile, If-None-Match, If-Modified-Since',
  'Access-Control-Max-Age': '86400',
  Allow: ALLOW,
  'Content-Length': '0',
} as const;

const SAFE_METHODS = new Set(METHODS);

/**
 * The CORS preflight of a route that takes a form POST too (OAI-PMH, reconciliation): a browser's
 * page may POST a request as a form.
 */
export function formPostPreflight(res: Response): void {
  res.writeHead(204, {
    ...commonHeaders(res),
    'Access-Control-Allow-Methods': ALLOW_WITH_POST,
    'Access-Control-Allow-Headers': 'Accept, Content-Type',
    'Access-Control-Max-Age': '86400',
    Allow: ALLOW_WITH_POST,
  });
  res.end();
}

/** RFC 9112 §3.2: a request with more than one Host field line is answered 400, any version. */
const twoHosts = () =>
  badRequest('A request carries one Host header, not several (RFC 9112 §3.2).');

/** A Host value: an IP literal or a reg-name, and an optional port (RFC 9112 §3.2, RFC 3986 §3.2.2). */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[\w.~!$&'()*+,;=%-]*)(?::\d*)?$/;
const badHost = () =>
  badRequest('The Host header names no host (RFC 9112 §3.2): a name or address, and a port.');

/**
 * RFC 9110 §15.6.6: a version Node's parser takes but this server does not speak (`HTTP/2.0`
 * sent as text, `HTTP/0.9`): 505, and the connection closed (nothing else can be read on it).
 */
export const versionNotSupported = () =>
  httpVersionNotSupported('This server speaks HTTP/1.1 and HTTP/1.0 only.', {
    Connection: 'close',
  });

/**
 * Whether the request has more than one Host field line. Node keeps the first and drops the
 * others from `req.headers`; `rawHeaders` has them all. Only names of four characters are
 * compared: a request pays a length test per header.
 */
function severalHosts(raw: readonly string[]): boolean {
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host' && ++hosts > 1) return true;
  }
  return false;
}

/** A request id given by a proxy is kept when it is short and plain; otherwise one is made. */
const GIVEN_ID = /^[\w.:-]{1,64}$/;

/**
 * The first middleware: request id and access log (and the metrics, by the label of the route of
 * `routes` that answers the path), a version other than HTTP/1.x refused (505), an HTTP/1.1
 * request without Host or any with two refused (400), then the read-only gate, where anything but
 * GET, HEAD and OPTIONS is 405 and OPTIONS is a CORS preflight (204), except on the routes that
 * answer methods of their own (the SPARQL endpoint, reconciliation).
 */
export function requestGate(logger: Logger, routes: readonly Route[], metrics?: ServiceMetrics) {
  let sequence = 0;
  const prefix = process.pid.toString(36);
  return (req: Request, res: Response, next: NextFunction): void => {
    const given = req.headers['x-request-id'];
    const id =
      typeof given === 'string' && GIVEN_ID.test(given)
        ? given
        : `${prefix}-${(++sequence).toString(36)}`;
    res.locals.requestId = id;
    if (metrics) {
      const started = process.hrtime.bigint();
      // Bytes written to the connection for this answer, its head included. Node keeps no count
      // of a body's bytes, and a head given to writeHead is not readable through getHeader.
      const socket = req.socket;
      const written = socket.bytesWritten;
      res.once('finish', () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const path = req.originalUrl.split('?', 1)[0]!;
        const label = routeFor(routes, path)?.label ?? NO_ROUTE;
        metrics.request(label, res.statusCode, seconds, socket.bytesWritten - written);
      });
    }
    if (logger.isLevelEnabled('info')) {
      const started = process.hrtime.bigint();
      res.once('finish', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        logger.info(
          {
            reqId: id,
            method: req.method,
            url: req.originalUrl.slice(0, 512),
            status: res.statusCode,
            ms,
          },
          'request',
        );
      });
    }
    if (req.httpVersionMajor !== 1) return next(versionNotSupported());
    if (req.httpVersionMinor === 1 && req.headers.host === undefined) return next(noHost());
    if (severalHosts(req.rawHeaders)) return next(twoHosts());
    if (req.headers.host !== undefined && !HOST.test(req.headers.host)) return next(badHost());
    // The SPARQL endpoint and reconciliation take POST, and answer their own 405 and preflight:
    // only looked at for what the gate would refuse or preflight, so that a GET pays nothing.
    if (req.method === 'OPTIONS' || !SAFE_METHODS.has(req.method)) {
      const route = routeFor(routes, req.path);
      if (route && ownMethods(route)) return next();
    }
    if (!SAFE_METHODS.has(req.method)) return next(methodNotAllowed());
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...commonHeaders(res), ...PREFLIGHT });
      res.end();
      return;
    }
    next();
  };
}
