// The staff SPARQL endpoint (docs/sparql.md): every status it answers, the protocol's
// dataset, each result format, the caps, the time limit and the query log, against the real app
// with the real pool of query workers and a real credentials file.
import assert from 'node:assert/strict';
import request from 'supertest';
import {
  parseJsonLd,
  parseRdfXml,
  parseTurtle,
  BASE,
  buildApp,
  DE_1A,
  REAL_DATA,
  sameGraph,
  needsThirdParty,
  needsStore,
} from '../../support';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { basic, buildStaffApp, poolReady, SMALL, STAFF, type StaffApp } from '../../staffSupport';
import { ADAPTERS, type Adapter } from '../../support';
import { loadSources } from '../../../src/load/loadSources';
import { StaffPool } from '../../../src/store/embedded/staffPool';
import { CUT_HEADER } from '../../../src/http/sparql/endpoint';
import { loadExamples } from '../../../src/http/sparql/editor';

const PICA_PLAIN = path.join(REAL_DATA, 'isil-directory_pica-plain_8-records.dat');
const COUNT_ALL = 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }';
const DE_1A_GRAPH = `${BASE}/data/organisations/DE-1a`;
/** Five scans of the store joined with nothing: 66^5 rows, far past any time limit. */
const RUNAWAY =
  'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n2 ?o }';

function bodyOf(res: request.Response): string {
  return typeof res.text === 'string' ? res.text : String(res.body);
}

function bytes(res: request.Response, done: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}

/**
 * The adapter the suite runs against now: set by the `before` of each adapter's suite, which runs
 * its tests before the next suite's `before`.
 */
let adapter: Adapter = 'embedded';

/** The embedded pool of `own`, for what only the embedded adapter has (worker threads). */
function embeddedPool(own: StaffApp): StaffPool | undefined {
  return own.pool instanceof StaffPool ? own.pool : undefined;
}

/** The id of the first worker thread of an embedded pool; undefined for the remote adapter. */
const firstWorker = (own: StaffApp) => embeddedPool(own)?.workers()[0]!.threadId;

/** `body` run on an app of its own with the settings of `env`, closed after. */
async function withOwnApp(
  env: Record<string, string>,
  body: (own: StaffApp) => Promise<void>,
): Promise<void> {
  const own = await buildStaffApp(SMALL, env, adapter);
  try {
    await body(own);
  } finally {
    await own.close();
  }
}

/** A staff GET of `query` on `app`. */
const staffGet = (app: StaffApp['app'], query: string) =>
  request(app).get('/sparql').query({ query }).set('Authorization', basic());

/** Sends the runaway query and waits until it runs; then `status` is its status to come. */
async function runaway(own: StaffApp): Promise<{ status: Promise<number> }> {
  const status = staffGet(own.app, RUNAWAY).then((r) => r.status);
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { status };
}

for (const suite of ADAPTERS)
  describe(`the staff SPARQL endpoint (${suite} store)`, function () {
    before(needsStore(suite));
    before(needsThirdParty);
    this.timeout(60_000);
    let staff: StaffApp;
    before(async () => {
      adapter = suite;
      staff = await buildStaffApp(SMALL, {}, suite);
    });
    /** A test of what the embedded adapter alone has (its worker threads); not run for the remote. */
    const embeddedIt = suite === 'embedded' ? it : () => undefined;
    after(() => staff.close());

    const ask = (query: string, accept = 'application/sparql-results+json') =>
      request(staff.app)
        .get('/sparql')
        .query({ query })
        .set('Authorization', basic())
        .set('Accept', accept);

    describe('the protocol', () => {
      it('answers a query by GET, by form POST and by direct POST alike', async () => {
        const get = await ask(COUNT_ALL).expect(200);
        const form = await request(staff.app)
          .post('/sparql')
          .set('Authorization', basic())
          .type('form')
          .send({ query: COUNT_ALL })
          .expect(200);
        const direct = await request(staff.app)
          .post('/sparql')
          .set('Authorization', basic())
          .set('Content-Type', 'application/sparql-query')
          .send(COUNT_ALL)
          .expect(200);
        const counts = [get, form, direct].map(
          (r) => JSON.parse(bodyOf(r)).results.bindings[0].n.value,
        );
        assert.equal(new Set(counts).size, 1);
        assert.equal(get.headers['content-type'], 'application/sparql-results+json;charset=utf-8');
        assert.equal(get.headers['dataset-version'], staff.version);
        assert.equal(get.headers['cache-control'], 'private, no-store');
      });

      it('takes the union of every graph as the default graph: the whole dataset', async () => {
        const res = await ask(COUNT_ALL).expect(200);
        const n = Number(JSON.parse(res.text).results.bindings[0].n.value);
        assert.equal(n, staff.service.current!.dataset.tripleCount);
      });

      it('takes default-graph-uri as the default graph, and an unknown graph as an empty one', async () => {
        const one = await request(staff.app)
          .get('/sparql')
          .query({ query: COUNT_ALL, 'default-graph-uri': DE_1A_GRAPH })
          .set('Authorization', basic())
          .expect(200);
        const inOne = Number(JSON.parse(one.text).results.bindings[0].n.value);
        assert.ok(inOne > 0 && inOne < staff.service.current!.dataset.tripleCount + 1);
        const unknown = await request(staff.app)
          .get('/sparql')
          .query({ query: COUNT_ALL, 'default-graph-uri': 'http://example.org/no-such-graph' })
          .set('Authorization', basic())
          .expect(200);
        assert.equal(JSON.parse(unknown.text).results.bindings[0].n.value, '0');
      });

      it('takes named-graph-uri as the named graphs, the default graph then empty', async () => {
        const res = await request(staff.app)
          .get('/sparql')
          .query({
            query: 'SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }',
            'named-graph-uri': DE_1A_GRAPH,
          })
          .set('Authorization', basic())
          .expect(200);
        const graphs = JSON.parse(res.text).results.bindings.map(
          (b: { g: { value: string } }) => b.g.value,
        );
        assert.deepEqual(graphs, [DE_1A_GRAPH]);
        const dflt = await request(staff.app)
          .get('/sparql')
          .query({ query: COUNT_ALL, 'named-graph-uri': DE_1A_GRAPH })
          .set('Authorization', basic())
          .expect(200);
        assert.equal(JSON.parse(dflt.text).results.bindings[0].n.value, '0');
      });

      it("keeps a query's own FROM when the protocol names no dataset", async () => {
        const res = await ask(
          `SELECT (COUNT(*) AS ?n) FROM <http://example.org/none> WHERE { ?s ?p ?o }`,
        ).expect(200);
        assert.equal(JSON.parse(res.text).results.bindings[0].n.value, '0');
      });
    });

    describe('result formats', () => {
      const SELECT = `SELECT ?name WHERE { <${DE_1A}> <http://xmlns.com/foaf/0.1/name> ?name }`;
      it('writes SELECT results as JSON, XML, CSV and TSV', async () => {
        const json = JSON.parse((await ask(SELECT).expect(200)).text);
        assert.deepEqual(json.head.vars, ['name']);
        const name = json.results.bindings[0].name.value as string;
        assert.match(name, /Staatsbibliothek/);
        const xml = await ask(SELECT, 'application/sparql-results+xml').expect(200);
        assert.match(xml.headers['content-type']!, /^application\/sparql-results\+xml/);
        assert.ok(xml.text.includes(`<binding name="name"><literal>${name}</literal></binding>`));
        const csv = await ask(SELECT, 'text/csv').expect(200);
        assert.equal(
          csv.text,
          `name\r\n${/[",\r\n]/.test(name) ? `"${name.replace(/"/g, '""')}"` : name}\r\n`,
        );
        const tsv = await ask(SELECT, 'text/tab-separated-values').expect(200);
        assert.equal(tsv.text, `?name\n${JSON.stringify(name)}\n`);
      });

      it('writes ASK results as JSON and XML', async () => {
        const json = await ask(`ASK { <${DE_1A}> ?p ?o }`).expect(200);
        assert.deepEqual(JSON.parse(json.text), { head: {}, boolean: true });
        const xml = await ask(
          'ASK { <http://example.org/nothing> ?p ?o }',
          'application/sparql-results+xml',
        ).expect(200);
        assert.match(xml.text, /<boolean>false<\/boolean>/);
      });

      it('writes CONSTRUCT results as Turtle, N-Triples, RDF/XML and JSON-LD, each the graph /data serves', async () => {
        const public_ = await request((await buildApp(SMALL, {}, adapter)).app)
          .get('/data/organisations/DE-1a.nt')
          .expect(200);
        const expected = parseTurtle(public_.text, 'application/n-triples');
        const query = `CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <${DE_1A_GRAPH}> { ?s ?p ?o } }`;
        const turtle = await ask(query, 'text/turtle').expect(200);
        assert.ok(sameGraph(parseTurtle(turtle.text), expected), 'Turtle');
        const nt = await ask(query, 'application/n-triples').expect(200);
        assert.ok(sameGraph(parseTurtle(nt.text, 'application/n-triples'), expected), 'N-Triples');
        const rdf = await ask(query, 'application/rdf+xml').buffer(true).parse(bytes).expect(200);
        assert.ok(
          sameGraph(await parseRdfXml((rdf.body as Buffer).toString()), expected),
          'RDF/XML',
        );
        const jsonld = await ask(query, 'application/ld+json')
          .buffer(true)
          .parse(bytes)
          .expect(200);
        assert.ok(
          sameGraph(await parseJsonLd((jsonld.body as Buffer).toString()), expected),
          'JSON-LD',
        );
      });

      it('answers DESCRIBE as a graph', async () => {
        const res = await ask(`DESCRIBE <${DE_1A}>`, 'application/n-triples').expect(200);
        assert.ok(parseTurtle(res.text, 'application/n-triples').length > 0);
      });

      it('answers 406 with the formats of the query form when none is acceptable', async () => {
        const res = await ask('ASK {}', 'text/csv').expect(406);
        assert.match(res.text, /application\/sparql-results\+json/);
        assert.doesNotMatch(res.text, /text\/turtle/);
        await ask('CONSTRUCT WHERE { ?s ?p ?o }', 'application/sparql-results+json').expect(406);
      });
    });

    describe('refusals', () => {
      it('answers 400 for a syntax error, with its line and column', async () => {
        const res = await ask('SELECT * WHERE {\n  ?s ?p }').expect(400);
        assert.match(res.text, /line 2, column 9/);
      });

      it('answers 400 for two query parameters, a body that is not UTF-8, or a graph that is no IRI', async () => {
        await request(staff.app)
          .get('/sparql?query=ASK%7B%7D&query=ASK%7B%7D')
          .set('Authorization', basic())
          .expect(400);
        const latin1 = Buffer.from('ASK { ?s ?p "Gr\xfcn" }', 'latin1');
        const res = await request(staff.app)
          .post('/sparql')
          .set('Authorization', basic())
          .set('Content-Type', 'application/sparql-query')
          .send(latin1)
          .expect(400);
        assert.match(res.text, /UTF-8/);
        await request(staff.app)
          .post('/sparql')
          .set('Authorization', basic())
          .set('Content-Type', 'application/sparql-query; charset=UTF-16')
          .send(Buffer.from('ASK {}', 'utf16le'))
          .expect(400);
        await request(staff.app)
          .get('/sparql?query=ASK%7B%7D&default-graph-uri=not%20an%20iri')
          .set('Authorization', basic())
          .expect(400);
        await request(staff.app)
          .get('/sparql?query=ASK%7B%7D%ZZ')
          .set('Authorization', basic())
          .expect(400);
      });

      it('answers 403 for any update, sent as query, as update, or as an update body', async () => {
        for (const update of [
          'INSERT DATA { <a:s> <a:p> <a:o> }',
          'CLEAR ALL',
          'DROP GRAPH <a:g>',
          'LOAD <http://example.org/x>',
        ]) {
          const res = await ask(update).expect(403);
          assert.match(res.text, /read-only/);
        }
        await request(staff.app)
          .get('/sparql')
          .query({ update: 'CLEAR ALL' })
          .set('Authorization', basic())
          .expect(403);
        await request(staff.app)
          .post('/sparql')
          .set('Authorization', basic())
          .type('form')
          .send({ update: 'CLEAR ALL' })
          .expect(403);
        await request(staff.app)
          .post('/sparql')
          .set('Authorization', basic())
          .set('Content-Type', 'application/sparql-update')
          .send('CLEAR ALL')
          .expect(403);
        assert.equal(
          JSON.parse((await ask(COUNT_ALL)).text).results.bindings[0].n.value,
          String(staff.service.current!.dataset.tripleCount),
        );
      });

      it('answers 403 for SERVICE, however deep', async () => {
        const res = await ask(
          'SELECT * WHERE { OPTIONAL { { SERVICE <http://example.org/sparql> { ?s ?p ?o } } } }',
        ).expect(403);
        assert.match(res.text, /SERVICE/);
      });

      it('answers 415 for a body of another type, 405 for another method, 413 for a body too large', async () => {
        const res = await request(staff.app)
          .post('/sparql')
          .set('Authorization', basic())
          .set('Content-Type', 'text/plain')
          .send('ASK {}')
          .expect(415);
        assert.match(res.text, /application\/sparql-query/);
        const put = await request(staff.app)
          .put('/sparql')
          .set('Authorization', basic())
          .expect(405);
        assert.equal(put.headers.allow, 'GET, HEAD, POST, OPTIONS');
        await request(staff.app)
          .post('/sparql')
          .set('Authorization', basic())
          .set('Content-Type', 'application/sparql-query')
          .send(`ASK {} # ${'x'.repeat(1024 * 1024)}`)
          .expect(413);
      });

      it('takes a client that closes before its body is whole for no failure of its own', async () => {
        const server = staff.app.listen(0, '127.0.0.1');
        try {
          await new Promise((resolve) => server.once('listening', resolve));
          const { port } = server.address() as AddressInfo;
          const before = staff.log.length;
          await new Promise<void>((resolve) => {
            const socket = net.connect(port, '127.0.0.1', () => {
              socket.write(
                `POST /sparql HTTP/1.1\r\nHost: x\r\nAuthorization: ${basic()}\r\nContent-Type: application/sparql-query\r\nContent-Length: 100\r\n\r\nASK {}`,
              );
              setTimeout(() => socket.destroy(), 200);
            });
            socket.on('close', () => resolve());
            socket.on('error', () => undefined);
          });
          await new Promise((resolve) => setTimeout(resolve, 200));
          const failures = staff.log.slice(before).filter((l) => (l.level as number) >= 50);
          assert.deepEqual(failures, []);
          await staffGet(staff.app, 'ASK {}').expect(200);
        } finally {
          server.close();
        }
      });

      it('answers 400 when the store cannot run what parsed (a function it does not know)', async () => {
        const res = await ask('SELECT (<http://example.org/f>(1) AS ?x) WHERE {}').expect(400);
        assert.match(res.text, /cannot run/);
      });
    });

    describe('who may ask', () => {
      it('answers 401 with a Basic challenge without credentials or with wrong ones', async () => {
        for (const header of [
          undefined,
          basic(STAFF.name, 'wrong'),
          basic('mallory', STAFF.password),
          'Bearer x',
        ]) {
          const req = request(staff.app).get('/sparql').query({ query: 'ASK {}' });
          const res = await (header ? req.set('Authorization', header) : req).expect(401);
          assert.match(res.headers['www-authenticate']!, /^Basic realm="[^"]+"/);
          assert.equal(res.headers['cache-control'], 'no-store');
        }
      });

      it('serves the Service Description to anyone, with sd:endpoint the URL asked', async () => {
        const res = await request(staff.app)
          .get('/sparql')
          .set('Host', 'staff.example:8081')
          .set('Accept', 'text/turtle')
          .expect(200);
        const quads = parseTurtle(res.text);
        const endpoint = quads.find(
          (q) => q.predicate.value === 'http://www.w3.org/ns/sparql-service-description#endpoint',
        );
        assert.equal(endpoint?.object.value, 'http://staff.example:8081/sparql');
        assert.ok(
          quads.some(
            (q) =>
              q.object.value ===
              'http://www.w3.org/ns/sparql-service-description#UnionDefaultGraph',
          ),
        );
        assert.ok(
          quads.some(
            (q) =>
              q.predicate.value === 'http://rdfs.org/ns/void#triples' &&
              q.object.value === String(staff.service.current!.dataset.tripleCount),
          ),
        );
      });

      it('serves the query editor to staff only, every tab an example, nothing from another host', async () => {
        await request(staff.app).get('/sparql').set('Accept', 'text/html').expect(401);
        const res = await request(staff.app)
          .get('/sparql')
          .set('Accept', 'text/html')
          .set('Authorization', basic())
          .expect(200);
        assert.doesNotMatch(res.text, /(src|href)="(https?:)?\/\//);
        assert.match(res.text, /Institutions in a city/);
        const js = await request(staff.app)
          .get('/sparql/editor/yasgui.min.js')
          .set('Authorization', basic())
          .expect(200);
        assert.match(js.headers['content-type']!, /javascript/);
        await request(staff.app).get('/sparql/editor/yasgui.min.js').expect(401);
        await request(staff.app)
          .get('/sparql/editor/../../package.json')
          .set('Authorization', basic())
          .expect(404);
      });

      it('answers 429 to an address after ten wrong passwords in a minute, even with the right one', async () => {
        await withOwnApp({ SPARQL_MAX_FAILURES: '3' }, async (own) => {
          for (let i = 0; i < 3; i++)
            await request(own.app)
              .get('/sparql?query=ASK%7B%7D')
              .set('Authorization', basic(STAFF.name, `guess ${i}`))
              .expect(401);
          const res = await request(own.app)
            .get('/sparql?query=ASK%7B%7D')
            .set('Authorization', basic())
            .expect(429);
          assert.ok(Number(res.headers['retry-after']) > 0);
        });
      });
    });

    describe('limits', () => {
      it('cuts an answer at the row cap and says so in Results-Truncated', async () => {
        await withOwnApp({ SPARQL_MAX_ROWS: '5' }, async (own) => {
          const res = await request(own.app)
            .get('/sparql')
            .query({ query: 'SELECT * WHERE { ?s ?p ?o }' })
            .set('Authorization', basic())
            .expect(200);
          assert.equal(JSON.parse(res.text).results.bindings.length, 5);
          assert.equal(res.headers[CUT_HEADER.toLowerCase()], 'rows; limit=5');
          const graph = await request(own.app)
            .get('/sparql')
            .query({ query: 'CONSTRUCT WHERE { ?s ?p ?o }' })
            .set('Authorization', basic())
            .set('Accept', 'application/n-triples')
            .expect(200);
          assert.equal(parseTurtle(graph.text, 'application/n-triples').length, 5);
          const whole = await request(own.app)
            .get('/sparql')
            .query({ query: 'SELECT * WHERE { ?s ?p ?o } LIMIT 3' })
            .set('Authorization', basic())
            .expect(200);
          assert.equal(whole.headers[CUT_HEADER.toLowerCase()], undefined);
        });
      });

      it('cuts an answer at the byte cap, still a whole document', async () => {
        await withOwnApp({ SPARQL_MAX_RESULT_BYTES: '2048' }, async (own) => {
          const res = await request(own.app)
            .get('/sparql')
            .query({ query: 'SELECT * WHERE { ?s ?p ?o }' })
            .set('Authorization', basic())
            .expect(200);
          assert.ok(Buffer.byteLength(res.text) <= 2048);
          assert.ok(JSON.parse(res.text).results.bindings.length > 0);
          assert.equal(res.headers[CUT_HEADER.toLowerCase()], 'bytes; limit=2048');
          const xml = await request(own.app)
            .get('/sparql')
            .query({ query: 'CONSTRUCT WHERE { ?s ?p ?o }' })
            .set('Authorization', basic())
            .set('Accept', 'application/rdf+xml')
            .buffer(true)
            .parse(bytes)
            .expect(200);
          assert.ok((xml.body as Buffer).length <= 2048);
          assert.ok((await parseRdfXml((xml.body as Buffer).toString())).length > 0);
        });
      });

      it('stops a query past the time limit for real (503 naming it), and the next query is answered', async () => {
        // The limit leaves the next query room for a fresh worker to start on a busy machine (at
        // 500 ms, a load average of 11 had it time out too).
        await withOwnApp({ SPARQL_TIMEOUT_MS: '2000', SPARQL_WORKERS: '1' }, async (own) => {
          const before = firstWorker(own);
          const res = await request(own.app)
            .get('/sparql')
            .query({ query: RUNAWAY })
            .set('Authorization', basic())
            .expect(503);
          assert.match(res.text, /2000 ms/);
          assert.ok(Number(res.headers['retry-after']) >= 1);
          // The fresh worker loads the dataset first: on a busy machine that can take past the
          // limit, and the answer is then the defined 503 "loading" with Retry-After, which a
          // client follows. It is answered once the worker is up.
          let next = await staffGet(own.app, 'ASK {}');
          for (let tries = 0; next.status === 503 && tries < 5; tries++) {
            assert.match(next.text, /loading/, 'only a loading worker may answer 503 here');
            await new Promise((r) => setTimeout(r, Number(next.headers['retry-after']) * 1000));
            next = await staffGet(own.app, 'ASK {}');
          }
          assert.equal(next.status, 200, next.text);
          if (before !== undefined) assert.notEqual(firstWorker(own), before, 'a fresh worker');
          const line = own.log.find((l) => l.msg === 'sparql query' && l.outcome === 'timeout');
          assert.ok(line, 'the query log says timeout');
        });
      });

      it('parses a query in its worker: one that takes minutes to parse holds neither the public path nor past the limit', async () => {
        await withOwnApp({ SPARQL_TIMEOUT_MS: '1500', SPARQL_WORKERS: '1' }, async (own) => {
          // Nested 20,000 deep: sparqljs took 321 s on it (measured), then ran out of stack.
          const nested = `SELECT * WHERE ${'{ '.repeat(20_000)}?s ?p ?o${' }'.repeat(20_000)}`;
          const slow = request(own.app)
            .post('/sparql')
            .set('Authorization', basic())
            .set('Content-Type', 'application/sparql-query')
            .send(nested)
            .then((r) => r);
          await new Promise((resolve) => setTimeout(resolve, 300));
          const started = performance.now();
          await request(own.app).get('/data/organisations/DE-1a.ttl').expect(200);
          assert.ok(performance.now() - started < 500, 'the public path answers meanwhile');
          const res = await slow;
          assert.equal(res.status, 503);
          assert.match(res.text, /1500 ms/);
        });
      });

      it('stops the query of a client that went away, freeing its worker at once', async () => {
        const own = await buildStaffApp(
          SMALL,
          { SPARQL_TIMEOUT_MS: '30000', SPARQL_WORKERS: '1' },
          adapter,
        );
        const server = own.app.listen(0, '127.0.0.1');
        try {
          await new Promise((resolve) => server.once('listening', resolve));
          const { port } = server.address() as AddressInfo;
          const before = firstWorker(own);
          const client = http.request({
            host: '127.0.0.1',
            port,
            method: 'GET',
            path: `/sparql?query=${encodeURIComponent(RUNAWAY)}`,
            headers: { Authorization: basic() },
          });
          client.on('error', () => undefined);
          client.end();
          await new Promise((resolve) => setTimeout(resolve, 300));
          client.destroy();
          const started = Date.now();
          await request(own.app)
            .get('/sparql')
            .query({ query: 'ASK {}' })
            .set('Authorization', basic())
            .expect(200);
          assert.ok(Date.now() - started < 15_000, 'not behind the abandoned query');
          if (before !== undefined) assert.notEqual(firstWorker(own), before);
          for (let i = 0; i < 50 && !own.log.some((l) => l.outcome === 'abandoned'); i++)
            await new Promise((resolve) => setTimeout(resolve, 20));
          assert.ok(own.log.some((l) => l.msg === 'sparql query' && l.outcome === 'abandoned'));
        } finally {
          server.close();
          await own.close();
        }
      });

      it('answers 429 with Retry-After past the queries one user may have in flight', async () => {
        await withOwnApp({ SPARQL_TIMEOUT_MS: '1500', SPARQL_PER_USER: '1' }, async (own) => {
          const slow = await runaway(own);
          const res = await staffGet(own.app, 'ASK {}').expect(429);
          assert.equal(res.headers['retry-after'], '1');
          assert.equal(await slow.status, 503);
        });
      });

      it('answers 503 with Retry-After when every worker is busy and the queue is full', async () => {
        await withOwnApp(
          {
            SPARQL_TIMEOUT_MS: '1500',
            SPARQL_WORKERS: '1',
            SPARQL_QUEUE: '0',
            SPARQL_PER_USER: '5',
          },
          async (own) => {
            const slow = await runaway(own);
            const res = await staffGet(own.app, 'ASK {}').expect(503);
            assert.ok(Number(res.headers['retry-after']) >= 1);
            assert.match(res.text, /busy/);
            assert.equal(await slow.status, 503);
          },
        );
      });

      embeddedIt(
        'replaces a worker whose memory grew past the bound, between queries',
        async () => {
          await withOwnApp(
            {
              SPARQL_WORKER_MEMORY_MB: '64',
              SPARQL_WORKERS: '1',
            },
            async (own) => {
              const before = firstWorker(own)!;
              await request(own.app)
                .get('/sparql')
                .query({ query: 'ASK {}' })
                .set('Authorization', basic())
                .expect(200);
              assert.deepEqual(
                embeddedPool(own)!
                  .workers()
                  .map((w) => w.threadId),
                [before],
                'a fresh worker under the bound stays',
              );
              const big = 'SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } LIMIT 30000';
              await request(own.app)
                .get('/sparql')
                .query({ query: big })
                .set('Authorization', basic())
                .expect(200);
              const after = embeddedPool(own)!
                .workers()
                .map((w) => w.threadId);
              assert.ok(
                !after.includes(before),
                'the worker past the bound was ended after its answer',
              );
            },
          );
        },
      );
    });

    describe('versions', () => {
      embeddedIt(
        'a reload: a query in flight ends on its version, the next runs on the new one in fresh workers',
        async () => {
          await withOwnApp({ SPARQL_WORKERS: '1' }, async (own) => {
            const old = embeddedPool(own)!
              .workers()
              .map((w) => w.threadId);
            const slow = request(own.app)
              .get('/sparql')
              .query({ query: 'SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } LIMIT 30000' })
              .set('Authorization', basic())
              .set('Accept', 'text/tab-separated-values')
              .then((r) => r);
            await new Promise((resolve) => setTimeout(resolve, 50));
            const sources = [PICA_PLAIN];
            const { dataset } = await loadSources(sources, { baseIri: BASE });
            const triplesSaid = async () =>
              parseTurtle(
                (await request(own.app).get('/sparql').set('Accept', 'text/turtle').expect(200))
                  .text,
              ).find((q) => q.predicate.value === 'http://rdfs.org/ns/void#triples')?.object.value;
            assert.equal(await triplesSaid(), String(own.service.current!.dataset.tripleCount));
            own.service.use(dataset);
            // The Service Description written for the old version is not given for the new one.
            assert.equal(await triplesSaid(), String(dataset.tripleCount));
            const pool = embeddedPool(own)!;
            pool.serve({ sources, options: { baseIri: BASE } }, dataset.version);
            const finished = await slow;
            assert.equal(finished.status, 200);
            assert.equal(
              finished.headers['dataset-version'],
              own.version,
              'the version it started on',
            );
            await poolReady(pool, dataset.version);
            const next = await request(own.app)
              .get('/sparql')
              .query({ query: COUNT_ALL })
              .set('Authorization', basic())
              .expect(200);
            assert.equal(next.headers['dataset-version'], dataset.version);
            assert.equal(
              JSON.parse(next.text).results.bindings[0].n.value,
              String(dataset.tripleCount),
            );
            for (let i = 0; i < 100 && pool.workers().some((w) => old.includes(w.threadId)); i++)
              await new Promise((resolve) => setTimeout(resolve, 20));
            assert.ok(
              !pool.workers().some((w) => old.includes(w.threadId)),
              'the old workers ended',
            );
          });
        },
      );

      embeddedIt(
        'a version replaced before its first worker is ready starts no more workers of its own',
        async () => {
          const options = { baseIri: BASE };
          const first = await loadSources(SMALL, options);
          const second = await loadSources([PICA_PLAIN], options);
          const pool = new StaffPool({
            workers: 2,
            timeoutMs: 30_000,
            workerMemoryBytes: 2 ** 31,
            queue: 4,
          });
          try {
            pool.serve({ sources: SMALL, options }, first.dataset.version);
            pool.serve({ sources: [PICA_PLAIN], options }, second.dataset.version);
            let most = 0;
            const watch = setInterval(() => {
              const old = pool.workers().filter((w) => w.version === first.dataset.version).length;
              most = Math.max(most, old);
            }, 5);
            await poolReady(pool, second.dataset.version);
            await new Promise((resolve) => setTimeout(resolve, 1000));
            clearInterval(watch);
            assert.equal(most, 1, 'only the first worker of the replaced version');
            assert.ok(pool.workers().every((w) => w.version === second.dataset.version));
          } finally {
            await pool.close();
          }
        },
      );

      embeddedIt(
        "answers 503 saying why when the sources changed between the public load and the workers' (no other data served)",
        async () => {
          let failedWith: (error: Error) => void = () => undefined;
          const failed = new Promise<Error>((resolve) => (failedWith = resolve));
          const pool = new StaffPool(
            { workers: 1, timeoutMs: 30_000, workerMemoryBytes: 2 ** 31, queue: 4 },
            { failed: (_version, error) => failedWith(error), replaced: () => undefined },
          );
          try {
            // The version the public side served, which the sources no longer read as.
            pool.serve({ sources: SMALL, options: { baseIri: BASE } }, '000000000000');
            assert.match((await failed).message, /sources changed since version 000000000000/);
            await assert.rejects(
              pool.query({
                text: 'ASK {}',
                accept: undefined,
                defaultGraphs: [],
                namedGraphs: [],
                base: 'http://x/sparql',
                maxRows: 10,
                maxBytes: 1000,
              }),
              (error: Error) =>
                error.name === 'StaffUnavailable' &&
                /could not be loaded: the sources changed/.test(error.message),
            );
            assert.deepEqual(pool.workers(), []);
          } finally {
            await pool.close();
          }
        },
      );

      it('is off without SPARQL_USERS: /sparql answers 404 saying how to turn it on', async () => {
        const { app } = await buildApp(SMALL, {}, adapter);
        const res = await request(app).get('/sparql').query({ query: 'ASK {}' }).expect(404);
        assert.match(res.text, /SPARQL_USERS/);
        assert.match(res.text, /sparql-user/);
        await request(app).post('/sparql').type('form').send({ query: 'ASK {}' }).expect(404);
      });
    });

    describe('the query log and the workers', () => {
      it('logs user, a hash of the query, duration, rows and outcome, and never the password', async () => {
        await ask(COUNT_ALL).expect(200);
        await request(staff.app)
          .get('/sparql')
          .query({ query: 'ASK {}' })
          .set('Authorization', basic(STAFF.name, 'not-the-password'))
          .expect(401);
        const line = [...staff.log]
          .reverse()
          .find((l) => l.msg === 'sparql query' && l.outcome === 'answered');
        assert.ok(line);
        assert.equal(line.user, STAFF.name);
        assert.match(String(line.query), /^[0-9a-f]{16}$/);
        assert.equal(line.rows, 1);
        assert.equal(typeof line.ms, 'number');
        assert.ok(!staff.logText().includes(STAFF.password));
        assert.ok(!staff.logText().includes('not-the-password'));
        assert.ok(!staff.logText().includes('scrypt$'));
      });

      it('logs every refused request as refused with its status, the protocol refusals too', async () => {
        // An update sent as `update=` or as an application/sparql-update body wrote no line.
        const post = (type: string, body: string | object) =>
          request(staff.app).post('/sparql').set('Authorization', basic()).type(type).send(body);
        const refusals: [number, () => request.Test][] = [
          [403, () => staffGet(staff.app, 'CLEAR ALL')],
          [
            403,
            () =>
              request(staff.app).get('/sparql?update=CLEAR%20ALL').set('Authorization', basic()),
          ],
          [403, () => post('form', { update: 'CLEAR ALL' })],
          [403, () => post('application/sparql-update', 'CLEAR ALL')],
          [415, () => post('text/plain', 'ASK {}')],
          [
            400,
            () =>
              request(staff.app)
                .get('/sparql?query=ASK%7B%7D&query=ASK%7B%7D')
                .set('Authorization', basic()),
          ],
          [413, () => post('application/sparql-query', `ASK {} # ${'x'.repeat(1024 * 1024)}`)],
        ];
        for (const [status, send] of refusals) {
          const before = staff.log.length;
          await send().expect(status);
          const lines = staff.log.slice(before).filter((l) => l.msg === 'sparql query');
          assert.equal(lines.length, 1, `${status}: ${JSON.stringify(staff.log.slice(before))}`);
          assert.equal(lines[0]!.outcome, 'refused');
          assert.equal(lines[0]!.status, status);
          assert.equal(lines[0]!.user, STAFF.name);
        }
      });

      embeddedIt('runs its workers at the lowest CPU priority, shown in /readyz', async () => {
        const ready = await request(staff.app).get('/readyz').expect(200);
        const workers = ready.body.sparql.workers as { priority: number; state: string }[];
        assert.equal(workers.length, 2);
        if (process.platform === 'linux') for (const w of workers) assert.equal(w.priority, 19);
        const os = await import('node:os');
        assert.equal(os.getPriority(0), 0, 'the HTTP thread keeps its priority');
      });
    });
  });

for (const suite of ADAPTERS)
  describe(`the staff listener over DE-1a and its links (${suite} store)`, function () {
    before(needsStore(suite));
    before(needsThirdParty);
    this.timeout(60_000);
    /** DE-1a with its links: the links graph holds two triples about it. */
    const sources = [...SMALL, path.join(REAL_DATA, 'wikidata_isil-lookup_2023-09.tsv')];
    let staff: StaffApp;
    before(async () => {
      staff = await buildStaffApp(sources, {}, suite);
    });
    after(() => staff.close());

    it('answers errors on the staff listener as text: the site’s pages are not there', async () => {
      const res = await request(staff.staffApp)
        .get('/isil/DE-1a')
        .set('Accept', 'text/html')
        .expect(404);
      assert.equal(res.headers['content-type'], 'text/plain;charset=utf-8');
    });

    it('09 returns the description /data/ serves, with the links graph’s triples', async () => {
      const example = loadExamples().find((e) => e.name === '09-one-description')!;
      const answer = await request(staff.app)
        .get('/sparql')
        .query({ query: example.text })
        .set('Authorization', basic())
        .set('Accept', 'application/n-triples')
        .expect(200);
      const served = await request((await buildApp(sources, {}, suite)).app)
        .get('/data/organisations/DE-1a.nt')
        .expect(200);
      const expected = parseTurtle(served.text, 'application/n-triples');
      // The links graph's two: Wikidata's item and the GND record it names.
      for (const target of [
        'http://www.wikidata.org/entity/Q170109',
        'https://d-nb.info/gnd/5036103-X',
      ])
        assert.ok(
          expected.some((q) => q.object.value === target),
          target,
        );
      assert.ok(sameGraph(parseTurtle(answer.text, 'application/n-triples'), expected));
    });
  });
