// The remote store's HTTP client (src/store/remote/sparqlClient.ts) against a real Virtuoso: an
// answer, the client's deadline honoured, the store's own time limit a time-out, a refusal not
// retried, and a store that is down failing within the deadline instead of hanging.
import assert from 'node:assert/strict';
import {
  SparqlClient,
  StoreRefused,
  StoreTimeout,
  StoreUnavailable,
} from '../../src/store/remote/sparqlClient';
import { VIRTUOSO_GRAPH_INDEX } from '../../src/store/remote/sparqlStore';
import { startVirtuoso, virtuosoInstalled, type Virtuoso } from '../servers/virtuoso';
import { skipWithout } from '../support/missing';

/** Four scans of Virtuoso's own graphs joined with nothing: far past any deadline here. */
const RUNAWAY =
  'SELECT ?a WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l } ORDER BY ?c ?f ?i ?l LIMIT 1';

describe('the remote store client against Virtuoso', function () {
  this.timeout(120_000);
  let virtuoso: Virtuoso;
  let client: SparqlClient;

  before(async function () {
    if (!virtuosoInstalled())
      skipWithout(this, 'virtuoso-opensource-7-bin', 'sudo bash .ci/packages installs it');
    virtuoso = await startVirtuoso(60_000, 2);
    client = new SparqlClient({ endpoint: virtuoso.endpoint, connections: 4, deadlineMs: 10_000 });
  });

  after(async () => {
    client?.close();
    await virtuoso?.stop();
  });

  it('answers a query, over connections it keeps', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        client.query('ASK { ?s ?p ?o }', 'application/sparql-results+json'),
      ),
    );
    for (const answer of answers) {
      assert.match(answer.contentType, /json/);
      assert.ok(answer.body.length > 0);
    }
  });

  it('knows Virtuoso by its answers, and Virtuoso takes the graph index pragma it is sent', async () => {
    const fresh = new SparqlClient({
      endpoint: virtuoso.endpoint,
      connections: 1,
      deadlineMs: 10_000,
    });
    try {
      assert.equal(fresh.isVirtuoso, false, 'nothing is known before an answer');
      await fresh.query('ASK {}', 'application/sparql-results+json');
      assert.equal(fresh.isVirtuoso, true);
      const { body } = await fresh.query(
        `${VIRTUOSO_GRAPH_INDEX}CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <urn:nothing> { ?s ?p ?o } }`,
        'application/n-triples',
      );
      assert.equal(body.trim().replace(/^#.*$/gm, '').trim(), '');
    } finally {
      fresh.close();
    }
  });

  it('honours its deadline: a slow query fails with StoreTimeout when it passes', async () => {
    const started = Date.now();
    await assert.rejects(
      client.query(RUNAWAY, 'application/sparql-results+json', 400),
      StoreTimeout,
    );
    const took = Date.now() - started;
    assert.ok(took >= 350 && took < 1500, `${took} ms`);
  });

  it("takes the store's own time limit for a time-out, never a result", async () => {
    await assert.rejects(
      client.query(RUNAWAY, 'application/sparql-results+json', 30_000),
      (error: Error) => error instanceof StoreTimeout && /own time limit/.test(error.message),
    );
  });

  it('does not retry a query the store refuses (400)', async () => {
    await assert.rejects(
      client.query('SELECT WHERE {', 'application/sparql-results+json'),
      (error: Error) => error instanceof StoreRefused && error.status === 400,
    );
  });

  it('fails within its deadline with StoreUnavailable when the store is down', async () => {
    const endpoint = virtuoso.endpoint;
    await virtuoso.stop();
    const down = new SparqlClient({ endpoint, connections: 2, deadlineMs: 1000 });
    const started = Date.now();
    await assert.rejects(down.query('ASK {}', 'application/sparql-results+json'), StoreUnavailable);
    const took = Date.now() - started;
    assert.ok(took < 1500, `${took} ms`);
    down.close();
    // A long deadline (a loader's, for its big writes) tries a store it cannot reach only as
    // long as its retry time, so a mistyped endpoint is reported in seconds.
    const loader = new SparqlClient({
      endpoint,
      connections: 2,
      deadlineMs: 600_000,
      retryMs: 500,
    });
    const then = Date.now();
    await assert.rejects(
      loader.query('ASK {}', 'application/sparql-results+json'),
      (error: Error) =>
        error instanceof StoreUnavailable && /cannot be reached/.test(error.message),
    );
    assert.ok(Date.now() - then < 1500, `${Date.now() - then} ms`);
    loader.close();
  });
});
