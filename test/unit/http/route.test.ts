// Which route of the table answers a path (src/http/route.ts): the label the metrics count a
// request under, and whether the gate lets every method through to the route's own handler.
import assert from 'node:assert/strict';
import { NO_ROUTE, ownMethods, routeFor } from '../../../src/http/route';
import { routeTable } from '../../../src/http/routes';
import { Service } from '../../../src/documents/service';
import { testConfig } from '../../support';

const table = (env: Record<string, string> = {}) => {
  const config = testConfig(env);
  return routeTable({ service: new Service(config), config });
};
const labelOf = (path: string, routes = table()) => routeFor(routes, path)?.label ?? NO_ROUTE;

describe('the route answering a path', () => {
  it('counts requests by a handful of labels, whatever the path', () => {
    for (const [path, label] of <[string, string][]>[
      ['/resource/organisations/DE-1a', 'resource'],
      ['/data/organisations/DE-1a.ttl', 'data'],
      ['/data/organisations', 'data'],
      ['/isil/DE-1a', 'isil'],
      ['/context.jsonld', 'context'],
      ['/shapes.ttl', 'shapes'],
      ['/sparql', 'sparql'],
      ['/sparql/editor/yasgui.js', 'sparql'],
      ['/readyz', 'readyz'],
      ['/healthz', 'healthz'],
      ['/', 'home'],
      ['/search', 'search'],
      ['/search/suggest', 'suggest'],
      ['/assets/search.css', 'assets'],
      ['/reconcile', 'reconcile'],
      ['/reconcile/suggest/entity', 'reconcile'],
      ['/oai', 'oai'],
      ['/.well-known/void', 'discovery'],
      ['/robots.txt', 'discovery'],
      ['/sitemap.xml', 'discovery'],
      ['/sitemaps/1.xml', 'discovery'],
      ['/dumps/', 'dumps'],
      ['/search/x', NO_ROUTE],
      ['/sparqlx', NO_ROUTE],
      ['/resource/x', NO_ROUTE],
      [`/${'x'.repeat(5000)}`, NO_ROUTE],
      ['http://example.org/data/x', NO_ROUTE],
    ])
      assert.equal(labelOf(path), label, path);
  });

  it('counts the pages as no route when the agency directory serves them', () => {
    const routes = table({ ISIL_DIRECTORY_URL: 'https://sigel.staatsbibliothek-berlin.de' });
    assert.equal(labelOf('/isil/DE-1a', routes), NO_ROUTE);
  });

  it('lets every method through only to the SPARQL endpoint, reconciliation and OAI-PMH', () => {
    assert.deepEqual(
      table()
        .filter(ownMethods)
        .map((r) => [r.path, r.methods.join(', ')]),
      [
        ['/reconcile/', 'GET, HEAD, POST, OPTIONS'],
        ['/oai/', 'GET, HEAD, POST, OPTIONS'],
        ['/sparql/', 'GET, HEAD, POST, OPTIONS'],
      ],
    );
  });
});
