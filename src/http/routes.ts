// The route table: every path the service answers, with its named handler and the section of
// docs/http-contract.md it implements. The handlers are made from their dependencies (`RouteDeps`),
// here, once; none holds state between requests.
import type { RequestHandler } from 'express';
import { CONTEXT_PATH } from '../rdf/context';
import { DATA_PATH, DIRECTORY_PATH, RESOURCE_PATH } from '../rdf/iris';
import { data } from './data';
import type { RouteDeps } from './deps';
import type { StaffDeps } from './sparql/endpoint';
import { healthz, readyz } from './health';
import { home } from './home';
import { page } from './page';
import { context, shapes, SHAPES_PATH } from './published';
import { resource } from './resource';
import { SPARQL_PATH, sparqlElsewhere, sparqlEndpoint } from './sparql/endpoint';
import { assetFiles } from './assets';
import { search, SEARCH_PATH, suggest, SUGGEST_PATH } from './search';
import { RECONCILE_PATH, reconciliation } from './reconcile';
import { discovery, SITEMAP_PATH, SITEMAPS_PATH, VOID_PATH } from './discovery';
import { dumps, DUMPS_PATH } from './dumps';

export interface Route {
  /** `prefix`: the path and everything below it, the handler seeing the rest raw (an ISIL may
   * hold `/`); `exact`: the path alone. GET and HEAD either way (the gate refuses the rest), but
   * for the SPARQL endpoint, which answers its own methods. */
  readonly match: 'prefix' | 'exact';
  readonly path: string;
  readonly handler: RequestHandler;
  /** Where docs/http-contract.md (or the manual) says what it answers. */
  readonly contract: string;
}

/** The staff listener's table (SPARQL_LISTEN): the endpoint and the probes, nothing public. */
export function staffRouteTable(deps: RouteDeps & { staff: StaffDeps }): readonly Route[] {
  return [
    {
      match: 'prefix',
      path: `${SPARQL_PATH}/`,
      handler: sparqlEndpoint(deps.staff),
      contract: 'docs/sparql.md',
    },
    { match: 'exact', path: '/healthz', handler: healthz, contract: 'docs/operations.md' },
    { match: 'exact', path: '/readyz', handler: readyz(deps), contract: 'docs/operations.md' },
  ];
}

export function routeTable(deps: RouteDeps): readonly Route[] {
  const found = discovery(deps);
  const routes: Route[] = [
    { match: 'prefix', path: DATA_PATH, handler: data(deps), contract: '§3, §4, §5' },
    { match: 'prefix', path: RESOURCE_PATH, handler: resource(deps), contract: '§2, §5' },
    { match: 'exact', path: CONTEXT_PATH, handler: context(deps), contract: '§3' },
    { match: 'exact', path: SHAPES_PATH, handler: shapes(deps), contract: 'docs/data.md' },
    { match: 'exact', path: '/healthz', handler: healthz, contract: 'docs/operations.md' },
    { match: 'exact', path: '/readyz', handler: readyz(deps), contract: 'docs/operations.md' },
    { match: 'exact', path: '/', handler: home(deps), contract: '§1' },
    { match: 'exact', path: SEARCH_PATH, handler: search(deps), contract: 'docs/search.md' },
    { match: 'exact', path: SUGGEST_PATH, handler: suggest(deps), contract: 'docs/search.md' },
    { match: 'prefix', path: '/assets/', handler: assetFiles(), contract: 'docs/search.md' },
    { match: 'exact', path: VOID_PATH, handler: found.void, contract: 'docs/discovery.md' },
    { match: 'prefix', path: DUMPS_PATH, handler: dumps(deps), contract: 'docs/discovery.md' },
    { match: 'exact', path: '/robots.txt', handler: found.robots, contract: 'docs/discovery.md' },
    { match: 'exact', path: SITEMAP_PATH, handler: found.sitemap, contract: 'docs/discovery.md' },
    {
      match: 'prefix',
      path: SITEMAPS_PATH,
      handler: found.sitemaps,
      contract: 'docs/discovery.md',
    },
    {
      match: 'prefix',
      path: `${RECONCILE_PATH}/`,
      handler: reconciliation(deps),
      contract: 'docs/search.md',
    },
    {
      match: 'prefix',
      path: `${SPARQL_PATH}/`,
      handler: deps.staff ? sparqlEndpoint(deps.staff) : sparqlElsewhere(deps.config),
      contract: 'docs/sparql.md',
    },
  ];
  // The agency's directory serves the pages unless none is configured: then this service does.
  if (deps.config.isilDirectoryUrl === '')
    routes.splice(2, 0, {
      match: 'prefix',
      path: DIRECTORY_PATH,
      handler: page(deps),
      contract: '§4',
    });
  return routes;
}
