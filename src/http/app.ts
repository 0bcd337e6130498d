// Builds the Express app from the route table (routes.ts): the request gate first, then each
// route, then 404 for anything else. Handlers throw HttpErrors; errorHandler answers them.
import express from 'express';
import type { Logger } from '../log';
import type { Service } from '../serving/service';
import { notFound } from './errors';
import { requestGate } from './middleware';
import { errorHandler } from './respond';
import { routeTable } from './routes';

export interface AppDeps {
  readonly service: Service;
  readonly logger: Logger;
}

export function createApp({ service, logger }: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('query parser', false);
  app.use(requestGate(logger));
  for (const route of routeTable({ service, config: service.config })) {
    // A prefix is mounted without its last `/`: the handler sees the rest of the path raw.
    if (route.match === 'prefix') app.use(route.path.slice(0, -1), route.handler);
    else app.get(route.path, route.handler);
  }
  app.use((req) => {
    throw notFound(`Nothing is published at ${req.path.slice(0, 128)}.`);
  });
  app.use(errorHandler(logger));
  return app;
}
