// Builds the Express app: the route table. Handlers throw HttpErrors; errorHandler answers them.
import express from 'express';
import type { Logger } from '../log';
import { DATA_PATH, DIRECTORY_PATH, RESOURCE_PATH } from '../rdf/iris';
import { CONTEXT_PATH } from '../rdf/context';
import type { Service } from '../serving/service';
import { notFound } from './errors';
import { handlers, SHAPES_PATH } from './handlers';
import { requestGate } from './middleware';
import { errorHandler } from './respond';

export interface AppDeps {
  readonly service: Service;
  readonly logger: Logger;
}

/** Mount points take the rest of the path raw: an ISIL may contain `/`. */
const mount = (path: string) => path.slice(0, -1);

/**
 * The hot routes in one router layer, each as a mount would serve it (the handler sees the path
 * below its prefix, raw, and the URL is restored after): a request in origin form whose path
 * starts with a prefix goes straight to its handler. Express matches every mount path with a
 * pattern of its own and parses the URL again after trimming it; for a cached document that was
 * about 2% of the request (A/B in one process, alternating, cached `.ttl` at 50 connections:
 * 8,217–8,283 against 8,388–8,427 requests a second). The handlers answer or throw; none passes a
 * request on (the mounts behind would serve it a second time).
 */
function byPrefix(routes: readonly [string, express.RequestHandler][]): express.RequestHandler {
  return (req, res, next) => {
    const url = req.url;
    for (const [prefix, handler] of routes) {
      if (!url.startsWith(prefix)) continue;
      req.url = url.slice(prefix.length - 1);
      req.baseUrl = prefix.slice(0, -1);
      const done = (error?: unknown) => {
        req.url = url;
        req.baseUrl = '';
        next(error);
      };
      try {
        const result: unknown = handler(req, res, done);
        if (result instanceof Promise) return result.catch(done);
      } catch (error) {
        done(error);
      }
      return;
    }
    next();
  };
}

export function createApp({ service, logger }: AppDeps): express.Express {
  const { config } = service;
  const handle = handlers(service, config);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('query parser', false);

  // The hot routes first: Express tries the table in order.
  const hot: [string, express.RequestHandler][] = [
    [DATA_PATH, handle.data],
    [RESOURCE_PATH, handle.resource],
  ];
  if (config.isilDirectoryUrl === '') hot.push([DIRECTORY_PATH, handle.page]);
  // The gate and the hot routes in one router layer: Express's walk from one layer to the next
  // (matching, parameters, the path trimmed and restored) is paid once instead of twice.
  app.use(requestGate(logger, byPrefix(hot)));
  // The same routes as mounts, for what `byPrefix` leaves (a request target in absolute form).
  for (const [path, handler] of hot) app.use(mount(path), handler);
  app.get(CONTEXT_PATH, handle.context);
  app.get(SHAPES_PATH, handle.shapes);
  app.get('/healthz', handle.healthz);
  app.get('/readyz', handle.readyz);
  app.get('/', handle.home);

  app.use((req) => {
    throw notFound(`Nothing is published at ${req.path.slice(0, 128)}.`);
  });
  app.use(errorHandler(logger));
  return app;
}
