// What a route of the table (routes.ts) is, and which route answers a path: read by the table,
// the method gate and the metrics (middleware.ts).
import { METHODS } from './errors';
import type { RequestHandler } from 'express';

export interface Route {
  /** `prefix`: the path and everything below it, the handler seeing the rest raw (an ISIL may
   * hold `/`); `exact`: the path alone. */
  readonly match: 'prefix' | 'exact';
  readonly path: string;
  readonly handler: RequestHandler;
  /** Where HTTP-CONTRACT.md (or the manual) says what it answers. */
  readonly contract: string;
  /** The `route` label of its requests in the metrics: one of a handful, whatever the path. */
  readonly label: string;
  /**
   * The methods it answers. `METHODS` (GET, HEAD, OPTIONS): the gate refuses the others with 405
   * and answers OPTIONS as a CORS preflight. Any other list: the handler answers its own methods,
   * 405 and preflight (a prefix route: an exact route is mounted for GET and HEAD only).
   */
  readonly methods: readonly string[];
}

/** The label of the requests no route answers (404). */
export const NO_ROUTE = 'other';

/** Whether the route answers `path` (as Express mounts it: a prefix with or without its `/`). */
export function answers(route: Route, path: string): boolean {
  return route.match === 'exact'
    ? path === route.path
    : path.startsWith(route.path) || path === route.path.slice(0, -1);
}

/** The route that answers `path`, or undefined (404). */
export const routeFor = (routes: readonly Route[], path: string): Route | undefined =>
  routes.find((route) => answers(route, path));

/** Whether the handler answers its own methods (the gate lets every method through to it). */
export const ownMethods = (route: Route): boolean =>
  route.methods.length !== METHODS.length || route.methods.some((m, i) => m !== METHODS[i]);
