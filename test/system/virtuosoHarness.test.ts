// The Virtuoso the remote-store tests run against (test/servers/virtuoso.ts): a real server of
// its own on free ports, bulk-loaded, queried over SPARQL, stopped with nothing left behind.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parseTurtle, CONFORMANCE, sameGraph, needsThirdParty } from '../support';
import { startVirtuoso, virtuosoInstalled, type Virtuoso } from '../servers/virtuoso';
import { skipWithout } from '../support/missing';

const GRAPH = 'https://ld.zdb-services.de/data/organisations/DE-1a';

describe('the Virtuoso test server', function () {
  before(needsThirdParty);
  this.timeout(120_000);
  let virtuoso: Virtuoso;

  before(async function () {
    if (!virtuosoInstalled())
      skipWithout(this, 'virtuoso-opensource-7-bin', 'sudo bash .ci/packages installs it');
    virtuoso = await startVirtuoso();
  });

  after(() => virtuoso?.stop());

  it('bulk-loads N-Triples into a named graph and gives the same graph back over SPARQL', async () => {
    const source = path.join(CONFORMANCE, 'sparql11-protocol', 'data1.nt');
    virtuoso.load(source, GRAPH);
    const query = `CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <${GRAPH}> { ?s ?p ?o } }`;
    const res = await fetch(`${virtuoso.endpoint}?query=${encodeURIComponent(query)}`, {
      headers: { Accept: 'application/n-triples' },
    });
    assert.equal(res.status, 200);
    const served = parseTurtle(await res.text(), 'application/n-triples');
    const loaded = parseTurtle(fs.readFileSync(source, 'utf8'), 'application/n-triples');
    assert.ok(loaded.length > 0);
    assert.ok(sameGraph(served, loaded));
  });

  it('stops, and its folder is gone', async () => {
    const { dir, endpoint } = virtuoso;
    await virtuoso.stop();
    assert.ok(!fs.existsSync(dir));
    await assert.rejects(fetch(endpoint, { signal: AbortSignal.timeout(2000) }));
  });
});
