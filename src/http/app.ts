// Builds the Express app: the route table. Handlers throw HttpErrors; errorHandler answers them.
import express from 'express';
import type { Logger } from '../log';
import { DATA_PATH, DIRECTORY_PATH, RESOURCE_PATH } from '../rdf/iris';
import { CONTEXT_PATH } from '../rdf/jsonld';
import type { Service } from '../service';
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

export function createApp({ service, logger }: AppDeps): express.Express {
  const { config } = service;
  const handle = handlers(service, config);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('query parser', false);

  app.use(requestGate(logger));

  // The hot routes first: Express tries the table in order.
  app.use(mount(DATA_PATH), handle.data);
  app.use(mount(RESOURCE_PATH), handle.resource);
  if (config.isilDirectoryUrl === '') app.use(mount(DIRECTORY_PATH), handle.page);
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
