// The route table (src/http/routes.ts): every path the service answers, each with a named handler
// and the part of the contract it implements; the directory pages only when no directory is set.
import assert from 'node:assert/strict';
import { routeTable, staffRouteTable } from '../../../src/http/routes';
import type { StaffDeps } from '../../../src/http/deps';
import { Service } from '../../../src/documents/service';
import { testConfig } from '../../support';

const table = (env: Record<string, string> = {}) => {
  const config = testConfig(env);
  return routeTable({ service: new Service(config), config });
};

describe('the route table', () => {
  it('lists every path of the contract, the prefixes with their trailing slash', () => {
    assert.deepEqual(
      table().map((r) => [r.match, r.path]),
      [
        ['prefix', '/data/organisations/'],
        ['prefix', '/resource/organisations/'],
        ['prefix', '/isil/'],
        ['prefix', '/timegate/'],
        ['prefix', '/timemap/'],
        ['prefix', '/memento/'],
        ['exact', '/context.jsonld'],
        ['exact', '/shapes.ttl'],
        ['prefix', '/profiles/'],
        ['prefix', '/vocab/'],
        ['exact', '/healthz'],
        ['exact', '/readyz'],
        ['exact', '/'],
        ['exact', '/search'],
        ['exact', '/search/suggest'],
        ['prefix', '/assets/'],
        ['exact', '/.well-known/void'],
        ['prefix', '/dumps/'],
        ['exact', '/robots.txt'],
        ['exact', '/sitemap.xml'],
        ['prefix', '/sitemaps/'],
        ['prefix', '/reconcile/'],
        ['prefix', '/oai/'],
        ['prefix', '/sparql/'],
        ['prefix', '/feed/'],
      ],
    );
  });

  it('names each handler, once, and says where its behaviour is specified', () => {
    const routes = table();
    const names = routes.map((r) => r.handler.name);
    assert.deepEqual(names, [
      'data',
      'resource',
      'page',
      'timegate',
      'timemap',
      'memento',
      'context',
      'shapes',
      'profiles',
      'vocab',
      'healthz',
      'readyz',
      'home',
      'search',
      'suggest',
      'asset',
      'voidDescription',
      'dumps',
      'robots',
      'sitemap',
      'sitemaps',
      'reconciliation',
      'oai',
      'sparqlOff',
      'feed',
    ]);
    for (const route of routes) assert.match(route.contract, /^(§\d(, §\d)*|docs\/[\w-]+\.md)$/);
  });

  it('gives each route the label it is counted under and the methods it answers', () => {
    assert.deepEqual(
      table().map((r) => [r.path, r.label, r.methods.join(', ')]),
      [
        ['/data/organisations/', 'data', 'GET, HEAD, OPTIONS'],
        ['/resource/organisations/', 'resource', 'GET, HEAD, OPTIONS'],
        ['/isil/', 'isil', 'GET, HEAD, OPTIONS'],
        ['/timegate/', 'timegate', 'GET, HEAD, OPTIONS'],
        ['/timemap/', 'timemap', 'GET, HEAD, OPTIONS'],
        ['/memento/', 'memento', 'GET, HEAD, OPTIONS'],
        ['/context.jsonld', 'context', 'GET, HEAD, OPTIONS'],
        ['/shapes.ttl', 'shapes', 'GET, HEAD, OPTIONS'],
        ['/profiles/', 'profiles', 'GET, HEAD, OPTIONS'],
        ['/vocab/', 'vocab', 'GET, HEAD, OPTIONS'],
        ['/healthz', 'healthz', 'GET, HEAD, OPTIONS'],
        ['/readyz', 'readyz', 'GET, HEAD, OPTIONS'],
        ['/', 'home', 'GET, HEAD, OPTIONS'],
        ['/search', 'search', 'GET, HEAD, OPTIONS'],
        ['/search/suggest', 'suggest', 'GET, HEAD, OPTIONS'],
        ['/assets/', 'assets', 'GET, HEAD, OPTIONS'],
        ['/.well-known/void', 'discovery', 'GET, HEAD, OPTIONS'],
        ['/dumps/', 'dumps', 'GET, HEAD, OPTIONS'],
        ['/robots.txt', 'discovery', 'GET, HEAD, OPTIONS'],
        ['/sitemap.xml', 'discovery', 'GET, HEAD, OPTIONS'],
        ['/sitemaps/', 'discovery', 'GET, HEAD, OPTIONS'],
        ['/reconcile/', 'reconcile', 'GET, HEAD, POST, OPTIONS'],
        ['/oai/', 'oai', 'GET, HEAD, POST, OPTIONS'],
        ['/sparql/', 'sparql', 'GET, HEAD, POST, OPTIONS'],
        ['/feed/', 'feed', 'GET, HEAD, OPTIONS'],
      ],
    );
  });

  it('has the staff listener answer the endpoint and the probes, nothing public', () => {
    const config = testConfig();
    const service = new Service(config);
    // What the handlers read when the table is built: no pool, no credentials are used here.
    const staff = { service, config, examples: [] } as unknown as StaffDeps;
    const routes = staffRouteTable({ service, config, staff });
    assert.deepEqual(
      routes.map((r) => [r.path, r.handler.name]),
      [
        ['/sparql/', 'sparqlRoute'],
        ['/healthz', 'healthz'],
        ['/readyz', 'readyz'],
      ],
    );
  });

  it('serves the institution pages itself only when no directory is configured', () => {
    const paths = table({ ISIL_DIRECTORY_URL: 'https://sigel.staatsbibliothek-berlin.de' }).map(
      (r) => r.path,
    );
    assert.ok(!paths.includes('/isil/'));
  });
});
