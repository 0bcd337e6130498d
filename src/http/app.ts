// Builds the Express app from the route table (routes.ts): the request gate first (it reads the
// table's methods and labels), then each route, then 404 for anything else. Handlers throw;
// errorHandler answers by the error table (errors.ts).
import express from 'express';
import type { Config } from '../config/config';
import type { Logger } from '../util/logger';
import type { Service, ServiceMetrics } from '../documents/service';
import { notFound } from './errors';
import { requestGate } from './middleware';
import { useOriginSettings } from './publicOrigin';
import { errorHandler } from './respond';
import type { Route } from './route';
import { routeTable, staffRouteTable } from './routes';
import type { StaffDeps } from './deps';

export interface AppDeps {
  readonly service: Service;
  readonly logger: Logger;
  /** The staff SPARQL endpoint when it is on this listener. */
  readonly staff?: StaffDeps;
  /** How long a bulk export waits for a client that reads nothing (EXPORT_STALL_MS; tests lower it). */
  readonly exportStallMs?: number;
}

/** The public app: every route of the table (the staff endpoint only when `staff` is given). */
export function createApp({ service, logger, staff, exportStallMs }: AppDeps): express.Express {
  return appOf(
    logger,
    service.config,
    routeTable({
      service,
      config: service.config,
      ...(staff ? { staff } : {}),
      ...(exportStallMs === undefined ? {} : { exportStallMs }),
    }),
    service.metrics,
  );
}

/** The staff listener's app (SPARQL_LISTEN): the endpoint and the probes. */
export function createStaffApp({
  service,
  logger,
  staff,
}: AppDeps & { staff: StaffDeps }): express.Express {
  return appOf(
    logger,
    service.config,
    staffRouteTable({ service, config: service.config, staff }),
    service.metrics,
    // The site's pages, their stylesheet and links are not on this listener.
    false,
  );
}

function appOf(
  logger: Logger,
  config: Config,
  routes: readonly Route[],
  metrics?: ServiceMetrics,
  pages = true,
): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('query parser', false);
  useOriginSettings(app, config);
  app.use(requestGate(logger, routes, metrics));
  for (const route of routes) {
    // A prefix is mounted without its last `/`: the handler sees the rest of the path raw.
    if (route.match === 'prefix') app.use(route.path.slice(0, -1), route.handler);
    else app.get(route.path, route.handler);
  }
  app.use((req) => {
    throw notFound(`Nothing is published at ${req.path.slice(0, 128)}.`);
  });
  app.use(errorHandler(logger, config, pages));
  return app;
}
