// The route table: every path the service answers, with its named handler, the section of
// docs/http-contract.md it implements, the methods it answers and the label its requests are counted
// under. The app mounts it, the method gate and the metrics read it (`routeFor`). The handlers are
// made from their dependencies (`RouteDeps`), here, once; none holds state between requests.
import { CONTEXT_PATH } from '../rdf/context';
import { DATA_PATH, DIRECTORY_PATH, RESOURCE_PATH } from '../rdf/iris';
import { data } from './data';
import type { RouteDeps, StaffDeps } from './deps';
import { healthz, readyz } from './health';
import { home } from './home';
import { page } from './isilPage';
import { context, shapes, SHAPES_PATH } from './published';
import { vocab } from './vocab';
import { VOCAB_PATH } from '../rdf/codeLists';
import { resource } from './resource';
import { SPARQL_PATH, sparqlElsewhere, sparqlEndpoint } from './sparql/endpoint';
import { METHODS, METHODS_WITH_POST } from './errors';
import type { Route } from './route';
import { servesPages } from '../pages/pageUrl';
import { assetFiles } from './assets';
import { search, suggest, SUGGEST_PATH } from './search';
import { SEARCH_PATH } from '../pages/searchPage';
import { reconciliation } from './reconcile';
import {
  robots,
  sitemap,
  SITEMAP_PATH,
  sitemaps,
  SITEMAPS_PATH,
  voidDescription,
  VOID_PATH,
} from './discovery';
import { dumps, DUMPS_PATH } from './dumps';
import { memento, timegate, timemap } from './memento';
import { MEMENTO_PATH, TIMEGATE_PATH, TIMEMAP_PATH } from '../rdf/iris';
import { oai, OAI_PATH, OAI_ROUTE } from './oai';
import { feed } from './feed';
import { FEED_PATH, RECONCILE_PATH } from '../rdf/iris';

type Entry = Omit<Route, 'methods'> & { readonly methods?: readonly string[] };
const read = (entry: Entry): Route => ({ methods: METHODS, ...entry });

const probes = (deps: RouteDeps): Route[] => [
  read({
    match: 'exact',
    path: '/healthz',
    handler: healthz,
    contract: 'docs/operations.md',
    label: 'healthz',
  }),
  read({
    match: 'exact',
    path: '/readyz',
    handler: readyz(deps),
    contract: 'docs/operations.md',
    label: 'readyz',
  }),
];

/** Memento (RFC 7089, docs/history.md): each document's TimeGate, TimeMap and mementos. */
const past = (deps: RouteDeps): Route[] =>
  (
    [
      [TIMEGATE_PATH, timegate, 'timegate'],
      [TIMEMAP_PATH, timemap, 'timemap'],
      [MEMENTO_PATH, memento, 'memento'],
    ] as const
  ).map(([path, handler, label]) =>
    read({
      match: 'prefix',
      path: `${path}/`,
      handler: handler(deps),
      contract: 'docs/history.md',
      label,
    }),
  );

/** The staff listener's table (SPARQL_LISTEN): the endpoint and the probes, nothing public. */
export function staffRouteTable(deps: RouteDeps & { staff: StaffDeps }): readonly Route[] {
  return [
    {
      match: 'prefix',
      path: `${SPARQL_PATH}/`,
      handler: sparqlEndpoint(deps.staff),
      contract: 'docs/sparql.md',
      label: 'sparql',
      methods: METHODS_WITH_POST,
    },
    ...probes(deps),
  ];
}

// The change feed (docs/history.md, "Following the change feed"): its root and its pages.
const feedRoutes = (deps: RouteDeps): Entry[] => [
  {
    match: 'prefix',
    path: `${FEED_PATH}/`,
    handler: feed(deps),
    contract: 'docs/history.md',
    label: 'feed',
  },
];

export function routeTable(deps: RouteDeps): readonly Route[] {
  const discovery = { contract: 'docs/discovery.md', label: 'discovery' } as const;
  const searching = { contract: 'docs/search.md' } as const;
  const model = { contract: 'docs/data.md' } as const;
  const entries: Entry[] = [
    {
      match: 'prefix',
      path: DATA_PATH,
      handler: data(deps),
      contract: '§3, §4, §5',
      label: 'data',
    },
    {
      match: 'prefix',
      path: RESOURCE_PATH,
      handler: resource(deps),
      contract: '§2, §5',
      label: 'resource',
    },
    // The agency's directory serves the pages unless none is configured: then this service does.
    ...(servesPages(deps.config)
      ? [
          {
            match: 'prefix',
            path: DIRECTORY_PATH,
            handler: page(deps),
            contract: '§4',
            label: 'isil',
          } as const,
        ]
      : []),
    ...past(deps),
    {
      match: 'exact',
      path: CONTEXT_PATH,
      handler: context(deps),
      contract: '§3',
      label: 'context',
    },
    { match: 'exact', path: SHAPES_PATH, handler: shapes(deps), ...model, label: 'shapes' },
    {
      match: 'prefix',
      path: `${VOCAB_PATH}/`,
      handler: vocab(deps),
      contract: 'docs/data-model.md',
      label: 'vocab',
    },
    ...probes(deps),
    { match: 'exact', path: '/', handler: home(deps), contract: '§1', label: 'home' },
    { match: 'exact', path: SEARCH_PATH, handler: search(deps), ...searching, label: 'search' },
    { match: 'exact', path: SUGGEST_PATH, handler: suggest(deps), ...searching, label: 'suggest' },
    { match: 'prefix', path: '/assets/', handler: assetFiles(), ...searching, label: 'assets' },
    { match: 'exact', path: VOID_PATH, handler: voidDescription(deps), ...discovery },
    { match: 'prefix', path: DUMPS_PATH, handler: dumps(deps), ...discovery, label: 'dumps' },
    { match: 'exact', path: '/robots.txt', handler: robots(deps), ...discovery },
    { match: 'exact', path: SITEMAP_PATH, handler: sitemap(deps), ...discovery },
    { match: 'prefix', path: SITEMAPS_PATH, handler: sitemaps(deps), ...discovery },
    {
      match: 'prefix',
      path: `${RECONCILE_PATH}/`,
      handler: reconciliation(deps),
      ...searching,
      label: 'reconcile',
      methods: METHODS_WITH_POST,
    },
    { match: 'prefix', path: `${OAI_PATH}/`, handler: oai(deps), ...OAI_ROUTE }, // OAI-PMH
    {
      match: 'prefix',
      path: `${SPARQL_PATH}/`,
      handler: deps.staff ? sparqlEndpoint(deps.staff) : sparqlElsewhere(deps.config),
      contract: 'docs/sparql.md',
      label: 'sparql',
      methods: METHODS_WITH_POST,
    },
  ];
  return [...entries, ...feedRoutes(deps)].map(read);
}
