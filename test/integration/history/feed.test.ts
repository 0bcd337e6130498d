// The change feed over HTTP (docs/history.md, "Following the change feed"): the stream's root, its
// pages and members against the history they are a view of, the formats compared as graphs, the
// caching contract, retention's 410, and what a hostile client gets.
import assert from 'node:assert/strict';
import http from 'node:http';
import { Parser, type Quad } from 'n3';
import request from 'supertest';
import type { Express } from 'express';
import type { History, HistoryEvent } from '../../../src/history/model';
import { parseNTriples } from '../../../src/rdf/ntriples';
import { FEED_PAGE_SIZE } from '../../../src/documents/feedLayout';
import { FEED_RENDERS_IN_FLIGHT, FEED_RENDERS_WAITING } from '../../../src/documents/feedPages';
import { asTriples, parseJsonLd, sameGraph } from '../../support';
import {
  HISTORY_BASE,
  registryVersions,
  VERSION_TIMES,
  writeHistory,
  type HistoryFixture,
  HISTORY_APPS,
} from '../../support/history';

const LDES = 'https://w3id.org/ldes#';
const TREE = 'https://w3id.org/tree#';
const AS = 'https://www.w3.org/ns/activitystreams#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
/** The host the tests ask: the feed's own IRIs resolve under it. */
const HOST = 'feed.test';
const ORIGIN = `http://${HOST}`;
const STREAM = `${ORIGIN}/feed#stream`;
const REFERENCE_CLIENT_ACCEPT =
  'application/n-quads,application/trig;q=0.95,application/ld+json;q=0.9,application/n-triples;q=0.8,text/turtle;q=0.6';

/** The app serving a fixture with its history: one function, so that each adapter is one call. */
type FeedApp = (fixture: HistoryFixture, env?: Record<string, string>) => Promise<FeedServed>;
interface FeedServed {
  readonly app: Express;
  readonly history: History;
}
const FEED_APPS: readonly [string, FeedApp][] = HISTORY_APPS;

const get = (app: Express, path: string, accept = 'application/trig') =>
  request(app).get(path).set('Host', HOST).set('Accept', accept);

const parse = (text: string, format: string, path: string): Quad[] =>
  new Parser({ format, baseIRI: `${ORIGIN}${path}` }).parse(text);

const objects = (quads: readonly Quad[], s: string, p: string) =>
  quads.filter((q) => q.subject.value === s && q.predicate.value === p).map((q) => q.object);

/** The pages a node links, in the order of its relations. */
function linked(quads: readonly Quad[], node: string): string[] {
  const pages = objects(quads, node, `${TREE}relation`).flatMap((r) =>
    objects(quads, r.value, `${TREE}node`).map((n) => n.value),
  );
  return [...new Set(pages)];
}

/** A page of a crawl: its answer, its quads, and the nodes that link it. */
interface Crawled {
  readonly res: request.Response;
  readonly quads: Quad[];
  readonly from: string[];
}

/** Every page reachable from the root, following each node's relations, in the order found. */
async function crawl(app: Express, rootQuads: readonly Quad[]): Promise<Map<string, Crawled>> {
  const found = new Map<string, Crawled>();
  const queue: [string, string][] = linked(rootQuads, `${ORIGIN}/feed`).map((p) => [p, '/feed']);
  for (let at = 0; at < queue.length; at++) {
    const [page, from] = queue[at]!;
    const path = new URL(page).pathname;
    const seen = found.get(path);
    if (seen) {
      seen.from.push(from);
      continue;
    }
    const res = await get(app, path);
    assert.equal(res.status, 200, path);
    const quads = parse(res.text, 'application/trig', path);
    found.set(path, { res, quads, from: [from] });
    for (const next of linked(quads, `${ORIGIN}${path}`)) queue.push([next, path]);
  }
  return found;
}

/** The bounds the relations from `node` to `target` state, as seconds: [≥, <] (≤ t is < t + 1). */
function bounds(quads: readonly Quad[], node: string, target: string): [number, number] {
  const out: [number, number] = [-Infinity, Infinity];
  for (const r of objects(quads, node, `${TREE}relation`)) {
    if (objects(quads, r.value, `${TREE}node`)[0]?.value !== target) continue;
    const type = objects(quads, r.value, RDF_TYPE)[0]!.value;
    const time = Date.parse(objects(quads, r.value, `${TREE}value`)[0]!.value) / 1000;
    if (type === `${TREE}GreaterThanOrEqualToRelation`) out[0] = time;
    else if (type === `${TREE}LessThanOrEqualToRelation`) out[1] = time + 1;
  }
  return out;
}

const kindOf: Record<HistoryEvent['kind'], string> = {
  created: `${AS}Create`,
  updated: `${AS}Update`,
  withdrawn: `${AS}Delete`,
  deleted: `${AS}Delete`,
};

const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');

for (const [adapter, feedApp] of FEED_APPS)
  describe(`The change feed (${adapter})`, function () {
    this.timeout(120_000);
    let served: FeedServed;
    let root: request.Response;
    let rootQuads: Quad[];
    let pagePaths: string[];
    /** Each page's answer and quads, by path. */
    const pages = new Map<string, Crawled>();

    before(async () => {
      served = await feedApp(await writeHistory());
      root = await get(served.app, '/feed');
      rootQuads = parse(root.text, 'application/trig', '/feed');
      for (const [path, page] of await crawl(served.app, rootQuads)) pages.set(path, page);
      pagePaths = [...pages.keys()];
    });

    let every: Quad[] | undefined;
    const allQuads = () => (every ??= [...pages.values()].flatMap((p) => p.quads));
    const members = () => allQuads().filter((q) => q.predicate.value === `${TREE}member`);
    /** The activities by institution and time, and each one's payload. */
    let activities: Map<string, string[]> | undefined;
    let graphs: Map<string, Quad[]> | undefined;
    const memberOf = (event: HistoryEvent) => {
      if (!activities) {
        const published = new Map(
          allQuads()
            .filter((q) => q.predicate.value === `${AS}published`)
            .map((q) => [q.subject.value, q.object.value]),
        );
        activities = new Map();
        for (const q of allQuads().filter((x) => x.predicate.value === `${AS}object`)) {
          const key = `${q.object.value} ${published.get(q.subject.value)}`;
          activities.set(key, [...(activities.get(key) ?? []), q.subject.value]);
        }
      }
      const key = `${HISTORY_BASE}/resource/organisations/${event.isil} ${iso(event.time)}`;
      const found = activities.get(key) ?? [];
      assert.equal(
        found.length,
        1,
        `one activity for ${event.kind} ${event.isil} at ${event.time}`,
      );
      return found[0]!;
    };
    const payloadOf = (activity: string) => {
      if (!graphs) {
        graphs = new Map();
        for (const q of allQuads())
          if (q.graph.termType === 'NamedNode')
            graphs.set(q.graph.value, [...(graphs.get(q.graph.value) ?? []), q]);
      }
      return graphs.get(activity) ?? [];
    };

    describe('the root', () => {
      it('is TriG when nothing is asked', async () => {
        const res = await request(served.app).get('/feed').set('Host', HOST);
        assert.equal(res.headers['content-type'], 'application/trig;charset=UTF-8');
      });
      it('is TriG for the reference client, which prefers N-Quads a little', async () => {
        const res = await get(served.app, '/feed', REFERENCE_CLIENT_ACCEPT);
        assert.equal(res.headers['content-type'], 'application/trig;charset=UTF-8');
      });
      it('states an ldes:EventStream, typed once (a tree:Collection by the LDES vocabulary)', () => {
        const types = objects(rootQuads, STREAM, RDF_TYPE).map((t) => t.value);
        assert.deepEqual(types, [`${LDES}EventStream`]);
      });
      it("states its members' shape, a sh:NodeShape", () => {
        const shapes = objects(rootQuads, STREAM, `${TREE}shape`);
        assert.equal(shapes.length, 1);
        assert.deepEqual(
          objects(rootQuads, shapes[0]!.value, RDF_TYPE).map((t) => t.value),
          ['http://www.w3.org/ns/shacl#NodeShape'],
        );
      });
      it('conforms to the LDES specification', () => {
        assert.deepEqual(
          objects(rootQuads, STREAM, 'http://purl.org/dc/terms/conformsTo').map((o) => o.value),
          ['https://w3id.org/ldes/specification'],
        );
      });
      it('states the timestamp, version-of paths and polling interval once each', () => {
        assert.deepEqual(
          objects(rootQuads, STREAM, `${LDES}timestampPath`).map((o) => o.value),
          [`${AS}published`],
        );
        assert.deepEqual(
          objects(rootQuads, STREAM, `${LDES}versionOfPath`).map((o) => o.value),
          [`${AS}object`],
        );
        const polling = objects(rootQuads, STREAM, `${LDES}pollingInterval`);
        assert.equal(polling.length, 1);
        assert.ok(Number(polling[0]!.value) > 0);
      });
      it('states on its view, when the log keeps every version, that every member since the first is kept', () => {
        const [policy, ...more] = objects(rootQuads, `${ORIGIN}/feed`, `${LDES}retentionPolicy`);
        assert.ok(policy);
        assert.equal(more.length, 0);
        assert.deepEqual(
          objects(rootQuads, policy.value, RDF_TYPE).map((o) => o.value),
          [`${LDES}PointInTimePolicy`],
        );
        const [since] = objects(rootQuads, policy.value, `${LDES}pointInTime`);
        assert.equal(new Date(since!.value).getTime() / 1000, VERSION_TIMES[0]);
      });
      it('has exactly one view: itself', () => {
        assert.deepEqual(
          objects(rootQuads, STREAM, `${TREE}view`).map((o) => o.value),
          [`${ORIGIN}/feed`],
        );
      });
      it('links a page for each version (five versions of few changes)', () => {
        assert.deepEqual(
          pagePaths,
          VERSION_TIMES.map((t) => `/feed/${iso(t).replace(/[-:TZ]/g, '')}/1`),
        );
      });
      it('bounds each link by as:published, ≥ and ≤ the version time', () => {
        const relations = objects(rootQuads, `${ORIGIN}/feed`, `${TREE}relation`);
        assert.equal(relations.length, 2 * VERSION_TIMES.length);
        for (const r of relations) {
          assert.deepEqual(
            objects(rootQuads, r.value, `${TREE}path`).map((o) => o.value),
            [`${AS}published`],
          );
          const type = objects(rootQuads, r.value, RDF_TYPE)[0]!.value;
          const value = objects(rootQuads, r.value, `${TREE}value`)[0]!;
          assert.equal((value as { datatype: { value: string } }).datatype.value, `${XSD}dateTime`);
          const node = objects(rootQuads, r.value, `${TREE}node`)[0]!.value;
          const time = Date.parse(value.value) / 1000;
          const version = VERSION_TIMES.find((t) => node.includes(iso(t).replace(/[-:TZ]/g, '')))!;
          assert.ok(
            [`${TREE}GreaterThanOrEqualToRelation`, `${TREE}LessThanOrEqualToRelation`].includes(
              type,
            ),
            type,
          );
          assert.equal(time, version);
        }
      });
      it('is not immutable', () => {
        assert.doesNotMatch(String(root.headers['cache-control']), /immutable/);
        assert.deepEqual(objects(rootQuads, `${ORIGIN}/feed`, `${LDES}immutable`), []);
      });
    });

    describe('the members', () => {
      it('are the events of the history, each once', () => {
        assert.equal(members().length, served.history.size);
        assert.equal(new Set(members().map((q) => q.object.value)).size, served.history.size);
      });
      it('are members of the stream the root names', () => {
        assert.ok(members().every((q) => q.subject.value === STREAM));
      });
      it('are as:Create, as:Update and as:Delete by the kind of the event', () => {
        for (const event of served.history.all()) {
          const types = objects(allQuads(), memberOf(event), RDF_TYPE).map((t) => t.value);
          assert.deepEqual(types, [kindOf[event.kind]], `${event.kind} ${event.isil}`);
        }
      });
      it('carry the event time as an xsd:dateTime in UTC', () => {
        for (const q of allQuads().filter((x) => x.predicate.value === `${AS}published`)) {
          assert.equal(
            (q.object as { datatype: { value: string } }).datatype.value,
            `${XSD}dateTime`,
          );
          assert.match(q.object.value, /Z$/);
        }
      });
      it('hold a creation or an update with the description it left, as their named graph', async () => {
        for (const event of served.history.all()) {
          if (event.kind !== 'created' && event.kind !== 'updated') continue;
          const activity = memberOf(event);
          const payload = payloadOf(activity);
          const expected = parseNTriples(await served.history.description(event));
          assert.ok(sameGraph(asTriples(payload), expected), `payload of ${event.isil}`);
        }
      });
      it('hold a withdrawal with its withdrawal record: deprecated, replaced by its successors', () => {
        const withdrawn = [...served.history.all()].filter((e) => e.kind === 'withdrawn');
        assert.ok(withdrawn.length > 0);
        for (const event of withdrawn) {
          const activity = memberOf(event);
          const payload = payloadOf(activity);
          const institution = `${HISTORY_BASE}/resource/organisations/${event.isil}`;
          assert.deepEqual(
            objects(payload, institution, 'http://www.w3.org/2002/07/owl#deprecated').map(
              (o) => o.value,
            ),
            ['true'],
          );
          assert.deepEqual(
            objects(payload, institution, 'http://purl.org/dc/terms/isReplacedBy').map(
              (o) => o.value,
            ),
            (event.successors ?? []).map((s) => `${HISTORY_BASE}/resource/organisations/${s}`),
          );
        }
      });
      it('hold a deletion without payload', () => {
        const deleted = [...served.history.all()].filter((e) => e.kind === 'deleted');
        assert.ok(deleted.length > 0);
        for (const event of deleted) assert.deepEqual(payloadOf(memberOf(event)), []);
      });
    });

    describe('the pages', () => {
      it('are each linked from one node, the root (one page a version here)', () => {
        for (const [path, page] of pages) assert.deepEqual(page.from, ['/feed'], path);
      });
      it('are immutable when full: every page but the newest', () => {
        for (const path of pagePaths.slice(0, -1)) {
          const { res, quads } = pages.get(path)!;
          assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
          assert.deepEqual(
            objects(quads, `${ORIGIN}${path}`, `${LDES}immutable`).map((o) => o.value),
            ['true'],
          );
        }
      });
      it('leave the newest page mutable', () => {
        const { res, quads } = pages.get(pagePaths.at(-1)!)!;
        assert.doesNotMatch(String(res.headers['cache-control']), /immutable/);
        assert.deepEqual(objects(quads, `${ORIGIN}${pagePaths.at(-1)}`, `${LDES}immutable`), []);
      });
      it('carry a strong ETag', () => {
        for (const { res } of pages.values()) assert.match(String(res.headers.etag), /^"[^"]+"$/);
      });
      it('answer 304 to the ETag they sent', async () => {
        const { res } = pages.get(pagePaths[0]!)!;
        const again = await get(served.app, pagePaths[0]!).set('If-None-Match', res.headers.etag!);
        assert.equal(again.status, 304);
      });
      it('vary by Accept', () => {
        assert.match(String(pages.get(pagePaths[0]!)!.res.headers.vary), /Accept(,|$)/);
      });
      it('are compressed when asked', async () => {
        const res = await get(served.app, pagePaths[0]!).set('Accept-Encoding', 'br');
        assert.equal(res.headers['content-encoding'], 'br');
      });
      it('are open to every origin (CORS)', () => {
        assert.equal(pages.get(pagePaths[0]!)!.res.headers['access-control-allow-origin'], '*');
      });
      it('hold at most the documented number of members', () => {
        for (const { quads } of pages.values())
          assert.ok(
            quads.filter((q) => q.predicate.value === `${TREE}member`).length <= FEED_PAGE_SIZE,
          );
      });
    });

    describe('negotiation', () => {
      const table: [string, string][] = [
        ['application/trig', 'application/trig;charset=UTF-8'],
        ['application/ld+json', 'application/ld+json'],
        ['application/json', 'application/ld+json'],
        ['text/turtle', 'text/turtle;charset=UTF-8'],
        ['application/n-quads', 'application/n-quads;charset=UTF-8'],
        ['application/n-triples', 'application/n-triples;charset=UTF-8'],
        ['text/turtle;q=0.5, application/ld+json', 'application/ld+json'],
        ['text/html,application/xhtml+xml,*/*;q=0.8', 'application/trig;charset=UTF-8'],
      ];
      for (const [accept, type] of table)
        it(`answers ${accept} with ${type}`, async () => {
          const res = await get(served.app, pagePaths[1]!, accept);
          assert.equal(res.headers['content-type'], type);
        });
      it('answers 406 to an Accept none of the formats matches', async () => {
        assert.equal((await get(served.app, pagePaths[1]!, 'text/html')).status, 406);
      });

      const quadsIn = async (path: string, accept: string, format: string) => {
        const res = await get(served.app, path, accept);
        return format === 'jsonld'
          ? parseJsonLd(res.text, `${ORIGIN}${path}`)
          : parse(res.text, format, path);
      };
      for (const path of ['/feed', 'page']) {
        const at = () => (path === 'page' ? pagePaths[2]! : path);
        it(`serves ${path === 'page' ? 'a page' : 'the root'} in JSON-LD, with its context inline, as the same dataset as TriG`, async () => {
          const trig = await quadsIn(at(), 'application/trig', 'application/trig');
          const res = await get(served.app, at(), 'application/ld+json');
          assert.equal(typeof JSON.parse(res.text)['@context'], 'object');
          assert.ok(sameGraph(await quadsIn(at(), 'application/ld+json', 'jsonld'), trig));
        });
        it(`serves ${path === 'page' ? 'a page' : 'the root'} in N-Quads as the same dataset as TriG`, async () => {
          const trig = await quadsIn(at(), 'application/trig', 'application/trig');
          const nq = await quadsIn(at(), 'application/n-quads', 'application/n-quads');
          assert.ok(sameGraph(nq, trig));
        });
        it(`serves ${path === 'page' ? 'a page' : 'the root'} in Turtle and N-Triples as TriG's triples`, async () => {
          const trig = asTriples(await quadsIn(at(), 'application/trig', 'application/trig'));
          assert.ok(sameGraph(await quadsIn(at(), 'text/turtle', 'text/turtle'), trig));
          const nt = await quadsIn(at(), 'application/n-triples', 'application/n-triples');
          assert.ok(sameGraph(nt, trig));
        });
      }
      it('names the pages in TriG absolute on the host asked, each host its own bytes', async () => {
        const a = await request(served.app).get(pagePaths[0]!).set('Host', 'a.example');
        const b = await request(served.app).get(pagePaths[0]!).set('Host', 'b.example:8080');
        assert.ok(a.text.includes('<http://a.example/feed'));
        assert.ok(!a.text.includes('</feed'));
        assert.ok(b.text.includes('<http://b.example:8080/feed'));
        assert.notEqual(a.headers.etag, b.headers.etag);
      });
      it('names them in N-Quads under BASE_IRI when asked by its host', async () => {
        const res = await request(served.app)
          .get('/feed')
          .set('Host', new URL(HISTORY_BASE).host)
          .set('Accept', 'application/n-quads');
        assert.ok(
          parse(res.text, 'application/n-quads', '/feed').some(
            (q) => q.subject.value === `${HISTORY_BASE}/feed#stream`,
          ),
        );
      });
    });

    describe('the page for people', () => {
      const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
      let page: request.Response;
      before(async () => {
        page = await get(served.app, '/feed', BROWSER).set('Accept-Language', 'en');
      });
      it('answers a browser at the root with an HTML page, not a file to save', () => {
        assert.equal(page.status, 200);
        assert.equal(page.headers['content-type'], 'text/html;charset=utf-8');
        assert.equal(page.headers['content-disposition'], undefined);
      });
      it('is a page of the site: its header, search box and link home', () => {
        assert.match(page.text, /<header class="site">/);
        assert.match(page.text, /<form class="lookup" role="search" action="\/search"/);
        assert.match(page.text, /<a class="brand" href="\/">/);
      });
      it('says what the feed is, its formats and how to follow it with ldes-client', () => {
        assert.match(page.text, /Linked Data Event Stream/);
        assert.match(page.text, /TriG .*JSON-LD, Turtle, N-Quads or N-Triples/);
        assert.ok(
          page.text.includes(`npx ldes-client --materialize --last-version-only ${ORIGIN}/feed`),
        );
      });
      it('is in the language asked for', async () => {
        const de = await get(served.app, '/feed?lang=de', BROWSER);
        assert.match(de.text, /<html lang="de">/);
        assert.match(de.text, /Änderungen als Linked Data Event Stream/);
        assert.equal(page.headers['content-language'], 'en');
        assert.equal(page.headers.vary, 'Accept, Accept-Encoding, Accept-Language');
      });
      it('leaves machines the feed: no Accept and */* are TriG', async () => {
        const any = await get(served.app, '/feed', '*/*');
        assert.equal(any.headers['content-type'], 'application/trig;charset=UTF-8');
      });
    });

    describe('discovery', () => {
      it('is linked by VoID as an ldes:EventStream', async () => {
        const res = await get(served.app, '/.well-known/void', 'text/turtle');
        const quads = new Parser({ baseIRI: `${HISTORY_BASE}/` }).parse(res.text);
        // Where the feed is read, the origin asked: the stream the feed itself names there.
        const stream = STREAM;
        assert.ok(
          quads.some((q) => q.predicate.value.endsWith('#seeAlso') && q.object.value === stream),
        );
        assert.deepEqual(
          objects(quads, stream, RDF_TYPE).map((o) => o.value),
          [`${LDES}EventStream`],
        );
      });
      it('is linked by the home page', async () => {
        assert.match(
          (await get(served.app, '/', 'text/html')).text,
          /<a href="\/feed" type="application\/trig">/,
        );
      });
      it('is linked by every institution’s page', async () => {
        const isil = [...served.history.all()].reverse().find((e) => e.kind === 'created')!.isil;
        const page = await get(served.app, `/isil/${isil}`, 'text/html');
        assert.equal(page.status, 200);
        assert.match(page.text, /<a href="\/feed" type="application\/trig">/);
      });
    });

    describe('hostile requests', () => {
      const notPages = [
        '/feed/x',
        '/feed/20250301120000',
        '/feed/20250301120000/0',
        '/feed/20250301120000/2',
        '/feed/20250301120000/01',
        '/feed/20990101000000/1',
        '/feed/20250231120000/1',
        `/feed/20250301120000/${'9'.repeat(2000)}`,
        '/feed/20250301120000/1/',
        '/feed/%2e%2e/20250301120000/1',
        '/feed/20250301120000/before/1',
      ];
      for (const path of notPages)
        it(`answers 404 to ${path.slice(0, 48)}`, async () => {
          assert.equal((await get(served.app, path)).status, 404);
        });
      it('answers a page asked with a query string as the page', async () => {
        assert.equal((await get(served.app, `${pagePaths[0]}?x=1`)).status, 200);
      });
      it('answers 405 to a POST', async () => {
        assert.equal((await request(served.app).post('/feed').set('Host', HOST)).status, 405);
      });
    });
  });

describe('The change feed under a flood', function () {
  this.timeout(120_000);
  let app: http.Server;
  before(async () => {
    const served = await FEED_APPS[0]![1](await writeHistory(registryVersions(1200)));
    app = http.createServer(served.app).listen(0, '127.0.0.1');
  });
  after(() => app.close());

  it('answers 429 with Retry-After past its bound on renders, and renders the rest', async () => {
    // Distinct documents (pages, formats, hosts for N-Quads), so that no answer is cached or shared.
    const asks = Array.from(
      { length: 6 * (FEED_RENDERS_IN_FLIGHT + FEED_RENDERS_WAITING) },
      (_, i) =>
        request(app)
          .get(`/feed/20250301120000/${1 + (i % 3)}`)
          .set('Host', `h${i}.example`)
          .set('Accept', 'application/n-quads'),
    );
    const answers = await Promise.all(asks.map((a) => a.then((r) => r)));
    const statuses = answers.map((r) => r.status);
    assert.ok(statuses.includes(429), 'some refused');
    assert.ok(statuses.includes(200), 'some rendered');
    assert.deepEqual([...new Set(statuses)].sort(), [200, 429]);
    for (const r of answers.filter((x) => x.status === 429))
      assert.equal(r.headers['retry-after'], '1');
  });

  it('never refuses one client asking ten pages at a time', async () => {
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          request(app)
            .get(`/feed/20250301120000/${1 + ((round * 10 + i) % 3)}`)
            .set('Host', `c${round}-${i}.example`)
            .set('Accept', 'application/n-quads'),
        ),
      );
      assert.deepEqual([...new Set(answers.map((r) => r.status))], [200]);
    }
  });
});

describe('The change feed of a version over several pages', function () {
  this.timeout(120_000);
  let served: FeedServed;
  let root: Quad[];
  let pages: Map<string, Crawled>;
  const first = `/feed/${iso(VERSION_TIMES[0]!).replace(/[-:TZ]/g, '')}`;
  before(async () => {
    // The first version has 3 full pages and 10 members on a fourth.
    served = await FEED_APPS[0]![1](await writeHistory(registryVersions(3 * FEED_PAGE_SIZE + 10)));
    root = parse((await get(served.app, '/feed')).text, 'application/trig', '/feed');
    pages = await crawl(served.app, root);
  });

  it('chains the version’s pages: the root links the first, each page the next', () => {
    const chain = [...pages].filter(([path]) => path.startsWith(`${first}/`));
    assert.deepEqual(
      chain.map(([path, page]) => [path, page.from]),
      [
        [`${first}/1`, ['/feed']],
        [`${first}/2`, [`${first}/1`]],
        [`${first}/3`, [`${first}/2`]],
        [`${first}/4`, [`${first}/3`]],
      ],
    );
  });
  it('links every page from one node only, so that a client following all at once gets each once', () => {
    for (const [path, page] of pages) assert.equal(page.from.length, 1, path);
  });
  it('bounds every relation by the times of all members reachable through it', () => {
    const reachable = (path: string): number[] => {
      const page = pages.get(path)!;
      const own = page.quads
        .filter((q) => q.predicate.value === `${AS}published`)
        .map((q) => Date.parse(q.object.value) / 1000);
      const next = linked(page.quads, `${ORIGIN}${path}`).map((p) => new URL(p).pathname);
      return [...own, ...next.flatMap(reachable)];
    };
    for (const [path, page] of pages) {
      const from = page.from[0]!;
      const quads = from === '/feed' ? root : pages.get(from)!.quads;
      const [lower, upper] = bounds(quads, `${ORIGIN}${from}`, `${ORIGIN}${path}`);
      assert.ok(Number.isFinite(lower) && Number.isFinite(upper), `${from} → ${path}`);
      for (const time of reachable(path)) assert.ok(lower <= time && time < upper, path);
    }
  });
});

describe('The change feed of a log with retention', function () {
  this.timeout(120_000);
  const first = VERSION_TIMES[3]!;
  const t14 = (t: number) => iso(t).replace(/[-:TZ]/g, '');
  let served: FeedServed;
  let root: Quad[];
  let quads: Quad[];
  before(async () => {
    served = await FEED_APPS[0]![1](await writeHistory(registryVersions(), 2), {
      HISTORY_KEEP_VERSIONS: '2',
    });
    root = parse((await get(served.app, '/feed')).text, 'application/trig', '/feed');
    quads = [...(await crawl(served.app, root)).values()].flatMap((p) => p.quads);
  });

  it('states its retention policy: the latest version of each member', () => {
    const [policy] = objects(root, `${ORIGIN}/feed`, `${LDES}retentionPolicy`);
    assert.ok(policy);
    assert.deepEqual(
      objects(root, policy.value, RDF_TYPE).map((o) => o.value),
      [`${LDES}LatestVersionSubset`],
    );
    assert.deepEqual(
      objects(root, policy.value, `${LDES}amount`).map((o) => o.value),
      ['1'],
    );
  });
  it('starts with the events carried from the versions dropped', () => {
    assert.equal(
      new URL(linked(root, `${ORIGIN}/feed`)[0]!).pathname,
      `/feed/${t14(first)}/before/1`,
    );
  });
  it('holds every ISIL’s latest event', () => {
    const latest = new Map<string, HistoryEvent>();
    for (const e of served.history.all()) latest.set(e.isil, e);
    const published = new Set(
      quads
        .filter((q) => q.predicate.value === `${AS}object`)
        .map(
          (q) => `${q.object.value} ${objects(quads, q.subject.value, `${AS}published`)[0]!.value}`,
        ),
    );
    for (const e of latest.values())
      assert.ok(
        published.has(`${HISTORY_BASE}/resource/organisations/${e.isil} ${iso(e.time)}`),
        e.isil,
      );
  });
  for (const dropped of VERSION_TIMES.slice(0, 3))
    it(`answers 410 to the page of the version of ${iso(dropped)}, which retention dropped`, async () => {
      const res = await get(served.app, `/feed/${t14(dropped)}/1`);
      assert.equal(res.status, 410);
    });
  it('still answers 404 to a page that never was', async () => {
    assert.equal((await get(served.app, `/feed/${t14(first)}/9`)).status, 404);
  });
});
