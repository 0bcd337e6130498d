// The `scale` topology, started from the project's scripts with Debian's nginx and Varnish
// (test/servers/topology.ts, the configuration compose mounts): two replicas on one Virtuoso,
// the balancer, the cache. The contract's negotiation, formats, codings and conditional requests
// hold through the balancer and through the cache; the cache never gives Turtle to a browser or
// a gzip body to a client that did not ask for one; and a reload reaches the cache.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { startTopology, topologyInstalled, type Topology } from '../../servers/topology';
import { startVirtuoso, type Virtuoso } from '../../servers/virtuoso';
import {
  parseJsonLd,
  parseRdfXml,
  parseTurtle,
  BASE,
  DE_1A_RDF,
  tempDir,
  openDataset,
  sameGraph,
  testConfig,
  needsThirdParty,
  needsStore,
} from '../../support';
import { skipWithout } from '../../support/missing';

/** What Chromium sends for a page. */
const BROWSER =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8';

function record(isil: string, name: string): string {
  return `@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix wdrs: <http://www.w3.org/2007/05/powder-s#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<${BASE}/resource/organisations/${isil}> a foaf:Organization ; foaf:name "${name}" ;
  wdrs:describedby <${BASE}/data/organisations/${isil}> .
<${BASE}/data/organisations/${isil}> dcterms:modified "2024-01-02T03:04:05"^^xsd:dateTime .
`;
}

/**
 * A GET that follows nothing and keeps the body as the bytes sent (fetch would undo a content
 * coding); no `Accept-Encoding` unless `headers` has one.
 */
function get(url: string, headers: Record<string, string> = {}) {
  return new Promise<{
    status: number;
    headers: { get(name: string): string | null };
    bytes: Buffer;
    text: string;
  }>((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          const get = (name: string) => {
            const value = res.headers[name.toLowerCase()];
            return value === undefined ? null : String(value);
          };
          resolve({ status: res.statusCode ?? 0, headers: { get }, bytes, text: bytes.toString() });
        });
      })
      .on('error', reject);
  });
}

describe('the scale topology: replicas, nginx, Varnish', function () {
  before(needsStore('remote'));
  before(function () {
    if (!topologyInstalled())
      skipWithout(this, 'nginx-light and varnish', 'sudo bash .ci/packages installs them');
  });
  before(needsThirdParty);
  this.timeout(180_000);
  let topology: Topology;
  let dir: string;
  let first: string;
  // A Virtuoso of its own: the shared one holds every earlier suite's versions, and the replicas'
  // reload must read the registry this suite writes, not wait behind theirs.
  let virtuoso: Virtuoso;
  before(async () => {
    virtuoso = await startVirtuoso();
    dir = tempDir();
    const config = testConfig();
    const bundled = DE_1A_RDF;
    const a = path.join(dir, 'a.ttl');
    // More institutions than one answer of ListRecords holds: a harvest takes tokens.
    const others = Array.from({ length: 120 }, (_, i) => record(`DE-T${i + 2}`, `Bibliothek ${i}`));
    fs.writeFileSync(a, [record('DE-T1', 'Bibliothek A'), ...others].join(''));
    first = (await openDataset([bundled, a], config, 'remote', virtuoso)).dataset.version;
    topology = await startTopology(2, {
      STORE: 'remote',
      SPARQL_ENDPOINT: virtuoso.endpoint,
      STORE_TIMEOUT_MS: '20000',
    });
  });
  after(async () => {
    await topology?.stop();
    await virtuoso?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const through of ['balancer', 'cache'] as const) {
    describe(`through the ${through}`, () => {
      const at = (p: string) => `${topology[through]}${p}`;

      it('answers 303 to the negotiated document for each client, whatever was asked before', async () => {
        const order: [string, string][] = [
          ['text/turtle', '/data/organisations/DE-1a.ttl'],
          [BROWSER, '/data/organisations/DE-1a.html'],
          ['application/ld+json', '/data/organisations/DE-1a.jsonld'],
          ['text/turtle', '/data/organisations/DE-1a.ttl'],
          [BROWSER, '/data/organisations/DE-1a.html'],
          ['application/rdf+xml', '/data/organisations/DE-1a.rdf'],
        ];
        for (const [accept, location] of order) {
          const res = await get(at('/resource/organisations/DE-1a'), { Accept: accept });
          assert.equal(res.status, 303, accept);
          // On the origin asked: the proxies pass the client's Host on.
          assert.equal(res.headers.get('location'), at(location), accept);
          assert.match(res.headers.get('vary') ?? '', /Accept/);
        }
      });

      it('never gives Turtle to a browser: the page it is sent to is HTML', async () => {
        await get(at('/resource/organisations/DE-1a'), { Accept: 'text/turtle' });
        const to = await get(at('/resource/organisations/DE-1a'), { Accept: BROWSER });
        const page = await get(to.headers.get('location')!, { Accept: BROWSER });
        assert.ok([200, 302].includes(page.status), String(page.status));
        if (page.status === 200) assert.match(page.headers.get('content-type')!, /^text\/html/);
      });

      it('serves each RDF format as the graph a replica serves', async () => {
        const direct = await get(`${topology.replicas[0]!.url}/data/organisations/DE-1a.nt`);
        const expected = parseTurtle(direct.text, 'application/n-triples');
        assert.ok(expected.length > 50);
        for (let turn = 0; turn < 2; turn++) {
          const ttl = await get(at('/data/organisations/DE-1a.ttl'));
          assert.ok(sameGraph(parseTurtle(ttl.text), expected), 'Turtle');
          const nt = await get(at('/data/organisations/DE-1a.nt'));
          assert.ok(
            sameGraph(parseTurtle(nt.text, 'application/n-triples'), expected),
            'N-Triples',
          );
          const rdf = await get(at('/data/organisations/DE-1a.rdf'));
          assert.ok(sameGraph(await parseRdfXml(rdf.text), expected), 'RDF/XML');
          const jsonld = await get(at('/data/organisations/DE-1a.jsonld'));
          assert.ok(sameGraph(await parseJsonLd(jsonld.text), expected), 'JSON-LD');
          assert.equal(ttl.headers.get('dataset-version'), first);
        }
      });

      it('gives a gzip body only to a client that asked for one', async () => {
        for (let turn = 0; turn < 2; turn++) {
          const plain = await get(at('/data/organisations/DE-1a.ttl'), {
            'Accept-Encoding': 'identity',
          });
          assert.equal(plain.headers.get('content-encoding'), null);
          assert.ok(plain.text.startsWith('@prefix'), 'plain Turtle');
          const zipped = await get(at('/data/organisations/DE-1a.ttl'), {
            'Accept-Encoding': 'gzip',
          });
          assert.equal(zipped.headers.get('content-encoding'), 'gzip');
          assert.equal(zlib.gunzipSync(zipped.bytes).toString(), plain.text);
        }
      });

      it('answers a conditional request with its ETag 304', async () => {
        const res = await get(at('/data/organisations/DE-1a.ttl'), { 'Accept-Encoding': 'gzip' });
        const etag = res.headers.get('etag')!;
        assert.ok(etag);
        const again = await get(at('/data/organisations/DE-1a.ttl'), {
          'Accept-Encoding': 'gzip',
          'If-None-Match': etag,
        });
        assert.equal(again.status, 304);
      });

      it('answers an unknown ISIL 404 and does not serve a 503 from the cache', async () => {
        assert.equal((await get(at('/data/organisations/DE-NOPE.ttl'))).status, 404);
        assert.equal((await get(at('/readyz'))).status, 200);
      });
    });
  }

  describe('Memento through the cache', () => {
    const memento = async () => {
      const gate = await get(`${topology.cache}/timegate/data/organisations/DE-1a.ttl`);
      assert.equal(gate.status, 302);
      const location = gate.headers.get('location')!;
      assert.ok(location.startsWith(`${topology.cache}/memento/`), location);
      return location;
    };

    it('keeps a memento past a second: it is immutable', async () => {
      const url = await memento();
      assert.equal((await get(url)).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const again = await get(url);
      assert.equal(again.headers.get('x-cache'), 'hit');
      assert.match(again.headers.get('cache-control')!, /immutable/);
    });

    it('passes a request with Accept-Datetime to the replicas', async () => {
      const gate = `${topology.cache}/timegate/data/organisations/DE-1a.ttl`;
      const date = { 'Accept-Datetime': 'Tue, 20 Mar 2001 20:35:00 GMT' };
      assert.equal((await get(gate, date)).status, 302);
      const again = await get(gate, date);
      assert.equal(again.status, 302);
      assert.equal(again.headers.get('x-cache'), 'miss');
    });
  });

  it("a harvest's parts, dealt round-robin to the replicas, follow each other's tokens", async () => {
    let query = 'verb=ListRecords&metadataPrefix=oai_dc';
    let parts = 0;
    for (;;) {
      const res = await get(`${topology.balancer}/oai?${query}`);
      assert.equal(res.status, 200);
      assert.doesNotMatch(res.text, /<error /, `part ${parts + 1}: ${res.text.slice(0, 400)}`);
      parts++;
      const token = /<resumptionToken[^>]*>([^<]+)<\/resumptionToken>/.exec(res.text)?.[1];
      if (!token) break;
      query = `verb=ListRecords&resumptionToken=${encodeURIComponent(token)}`;
    }
    assert.ok(parts >= 2, `${parts} parts`);
  });

  // In a describe of its own: mocha runs a suite's own tests before those of its inner suites.
  describe('a reload', () => {
    it('reaches the cache: a second after every replica switched, the new version is served', async () => {
      const cached = await get(`${topology.cache}/data/organisations/DE-T1.ttl`);
      assert.match(cached.text, /Bibliothek A"/);
      assert.equal(
        (await get(`${topology.cache}/data/organisations/DE-T1.ttl`)).headers.get('x-cache'),
        'hit',
      );
      const renamed = path.join(dir, 'a2.ttl');
      fs.writeFileSync(renamed, record('DE-T1', 'Bibliothek A, neu benannt'));
      const config = testConfig();
      const second = (await openDataset([DE_1A_RDF, renamed], config, 'remote', virtuoso)).dataset
        .version;
      assert.notEqual(second, first);
      topology.reload();
      // Waits for each replica's switch however long a loaded machine takes, and says which
      // replica never switched instead of failing on the cache's answer.
      for (const replica of topology.replicas) {
        let served: string | undefined;
        for (let i = 0; i < 1200 && served !== second; i++) {
          if (i > 0) await new Promise((resolve) => setTimeout(resolve, 50));
          served = (JSON.parse((await get(`${replica.url}/readyz`)).text) as { version?: string })
            .version;
        }
        assert.equal(served, second, `${replica.url} still serves ${served}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const fresh = await get(`${topology.cache}/data/organisations/DE-T1.ttl`);
      assert.match(fresh.text, /Bibliothek A, neu benannt/);
      assert.equal(fresh.headers.get('dataset-version'), second);
    });
  });
});
