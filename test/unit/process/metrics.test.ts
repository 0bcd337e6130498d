// The service's metrics (src/process/metrics.ts): answers counted under their route's label, a
// status a client cannot choose into a new label, staff outcomes folded, the dataset read off the
// service when scraped.
import assert from 'node:assert/strict';
import { Metrics } from '../../../src/process/metrics';
import { Service } from '../../../src/documents/service';
import { testConfig } from '../../support';

describe('Metrics', () => {
  let metrics: Metrics;
  let text: string;
  before(async () => {
    metrics = new Metrics(new Service(testConfig()));
    metrics.request('resource', 303, 0.001, 120);
    metrics.request('resource', 303, 0.002, 0);
    metrics.request('data', 999, 0.01, 10);
    metrics.reload('refused');
    metrics.sparqlQuery('cut at 1000', 0.2);
    metrics.sparqlQuery('timeout', 30);
    text = await metrics.registry.metrics();
  });
  const line = (name: string) =>
    text
      .split('\n')
      .find((l) => l.startsWith(name))
      ?.slice(name.length + 1);

  it('counts answers by route and status', () => {
    assert.equal(line('isil_ld_http_requests_total{route="resource",status="303"}'), '2');
  });

  it('labels a status outside 100-599 as other', () => {
    assert.equal(line('isil_ld_http_requests_total{route="data",status="other"}'), '1');
    assert.equal(line('isil_ld_http_requests_total{route="data",status="999"}'), undefined);
  });

  it('adds the bytes answered, and times every answer', () => {
    assert.equal(line('isil_ld_http_response_bytes_total{route="resource"}'), '120');
    assert.equal(line('isil_ld_http_request_duration_seconds_count{route="resource"}'), '2');
  });

  it('counts reloads by outcome', () => {
    assert.equal(line('isil_ld_reloads_total{outcome="refused"}'), '1');
  });

  it('folds every cut staff answer into one label', () => {
    assert.equal(line('isil_ld_sparql_queries_total{outcome="cut"}'), '1');
    assert.equal(line('isil_ld_sparql_queries_total{outcome="timeout"}'), '1');
    assert.equal(line('isil_ld_sparql_query_duration_seconds_count'), '2');
  });

  it('reads the dataset and the store off the service: none served yet, the store up', () => {
    assert.equal(line('isil_ld_dataset_institutions'), '0');
    assert.equal(line('isil_ld_store_available{store="embedded"}'), '1');
    assert.equal(line('isil_ld_document_cache_bytes'), '0');
  });
});
