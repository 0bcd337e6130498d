// Memento (RFC 7089, docs/history.md) over the real app and store, on both adapters: the documents
// as original resources, their TimeGates, TimeMaps and mementos, the 303 resources as intermediate
// resources, and the ISILs the version served lacks; over a history of two versions built from
// real loads (test/support/history.ts), and over the one version a dataset without a log derives.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../../src/http/app';
import { httpDate, timestamp14 } from '../../../src/history/model';
import { createLogger } from '../../../src/util/logger';
import { Service } from '../../../src/documents/service';
import {
  ADAPTERS,
  asText,
  BASE,
  buildApp,
  local,
  needsThirdParty,
  openDataset,
  parseJsonLd,
  parseRdfXml,
  parseTurtle,
  PUBLIC,
  sameGraph,
  tempDir,
  testConfig,
  type Adapter,
  needsStore,
} from '../../support';
import { historyOf, parseLinkFormat, type ParsedLink } from '../../support/history';

/** The two versions' times: 14 Nov 2023 and 15 Jun 2025. */
const T1 = 1_700_000_000;
const T2 = 1_750_000_000;
const LINK_FORMAT = 'application/link-format';
/** Where the apps say their URLs are (PUBLIC_URL): every Link and Location is absolute on it. */
const ORIGIN = PUBLIC;
const at = (path: string) => `${ORIGIN}${path}`;

/** A live record in the data model's shape. */
function record(isil: string, name: string): string {
  return `org:${isil} a foaf:Organization ;
    dc:identifier "(ISIL)${isil}" ;
    foaf:name "${name}" ;
    v:adr [ a v:Address ; v:locality "Teststadt" ; v:postal-code "12345" ] ;
    wdrs:describedby data:${isil} .
data:${isil} dcterms:license <http://creativecommons.org/publicdomain/zero/1.0/> .
`;
}

/** A withdrawn record (docs/data-model.md, Lifecycle) replaced by `successor`. */
function withdrawn(isil: string, name: string, successor: string): string {
  return `org:${isil} a foaf:Organization ;
    dc:identifier "(ISIL)${isil}" ;
    foaf:name "${name}" ;
    owl:deprecated true ;
    dcterms:isReplacedBy org:${successor} ;
    wdrs:describedby data:${isil} .
`;
}

const PREFIXES = `@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix dc: <http://purl.org/dc/elements/1.1/> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix v: <http://www.w3.org/2006/vcard/ns#> .
@prefix wdrs: <http://www.w3.org/2007/05/powder-s#> .
@prefix org: <${BASE}/resource/organisations/> .
@prefix data: <${BASE}/data/organisations/> .
`;

/**
 * Version 1: DE-Mt1 (its old name), DE-Mt2, DE-Mt3 and DE-Mt4. Version 2: DE-Mt1 renamed, DE-Mt2
 * unchanged, DE-Mt3 withdrawn for DE-Mt1, DE-Mt4 gone without a withdrawal record.
 */
function writeVersions(): { v1: string; v2: string } {
  const dir = tempDir();
  const v1 = path.join(dir, 'v1.ttl');
  const v2 = path.join(dir, 'v2.ttl');
  fs.writeFileSync(
    v1,
    PREFIXES +
      record('DE-Mt1', 'Stadtbibliothek Altname') +
      record('DE-Mt2', 'Gemeindebücherei Gleich') +
      record('DE-Mt3', 'Zweigstelle Nord') +
      record('DE-Mt4', 'Werkbibliothek Fort'),
  );
  fs.writeFileSync(
    v2,
    PREFIXES +
      record('DE-Mt1', 'Stadtbibliothek Neuname') +
      record('DE-Mt2', 'Gemeindebücherei Gleich') +
      withdrawn('DE-Mt3', 'Zweigstelle Nord', 'DE-Mt1'),
  );
  return { v1, v2 };
}

/** The app over `sources` with `history` (else the one its dataset derives), on `adapter`. */
async function appOver(
  sources: readonly string[],
  adapter: Adapter,
  history?: Awaited<ReturnType<typeof historyOf>>,
): Promise<Express> {
  const config = testConfig();
  const { dataset, store } = await openDataset(sources, config, adapter);
  if (history) dataset.history = history;
  const service = new Service(config, store ? { storeHealth: () => store.health() } : {});
  service.use(dataset);
  return createApp({ service, logger: createLogger('silent') });
}

/** The graph of an RDF body in the format of `ext`. */
function graphOf(ext: string, text: string) {
  if (ext === 'rdf') return parseRdfXml(text);
  if (ext === 'jsonld') return parseJsonLd(text);
  return Promise.resolve(parseTurtle(text, ext === 'nt' ? 'application/n-triples' : 'text/turtle'));
}

/** The links of a `Link` header (RFC 8288 has link-format's syntax for what is sent here). */
const linksOf = (header: string | undefined): ParsedLink[] => parseLinkFormat(header ?? '');
const withRel = (links: readonly ParsedLink[], rel: string) =>
  links.filter((l) => l.rels.includes(rel));

const mementoPath = (time: number, original: string) => `/memento/${timestamp14(time)}${original}`;

for (const adapter of ADAPTERS)
  describe(`Memento (RFC 7089) over a history of two versions (${adapter} store)`, function () {
    before(needsStore(adapter));
    this.timeout(120_000);
    let app: Express;
    let then: Express;
    before(async () => {
      const { v1, v2 } = writeVersions();
      const history = await historyOf(
        [
          { version: 'v1', time: T1, sources: [v1] },
          { version: 'v2', time: T2, sources: [v2] },
        ],
        BASE,
      );
      app = await appOver([v2], adapter, history);
      // What version 1 served, from a server of its own.
      then = await appOver([v1], 'embedded');
    });

    describe('a current document is an original resource', () => {
      for (const original of ['/data/organisations/DE-Mt1.ttl', '/isil/DE-Mt1']) {
        let res: request.Response;
        before(async () => {
          res = await request(app).get(original);
        });
        it(`${original}: 200`, () => assert.equal(res.status, 200));
        it(`${original}: Link rel="timegate" to its own TimeGate`, () =>
          assert.deepEqual(
            withRel(linksOf(res.headers.link), 'timegate').map((l) => l.target),
            [at(`/timegate${original}`)],
          ));
        it(`${original}: Link rel="timemap" to its TimeMap, as link-format`, () => {
          const [timemap, ...more] = withRel(linksOf(res.headers.link), 'timemap');
          assert.equal(more.length, 0);
          assert.equal(timemap?.target, at(`/timemap${original}`));
          assert.equal(timemap?.attributes.type, LINK_FORMAT);
        });
        it(`${original}: no Memento-Datetime`, () =>
          assert.equal(res.headers['memento-datetime'], undefined));
        it(`${original}: no Vary on Accept-Datetime`, () =>
          assert.doesNotMatch(res.headers.vary ?? '', /accept-datetime/i));
      }
      for (const ext of ['rdf', 'jsonld', 'nt'])
        it(`.${ext} links its TimeGate and TimeMap`, async () => {
          const res = await request(app).get(`/data/organisations/DE-Mt1.${ext}`);
          const links = linksOf(res.headers.link);
          assert.equal(
            withRel(links, 'timegate')[0]?.target,
            at(`/timegate/data/organisations/DE-Mt1.${ext}`),
          );
          assert.equal(
            withRel(links, 'timemap')[0]?.target,
            at(`/timemap/data/organisations/DE-Mt1.${ext}`),
          );
        });
      it('Last-Modified is the time of the institution’s last event', async () => {
        const changed = await request(app).head('/data/organisations/DE-Mt1.ttl');
        const unchanged = await request(app).head('/data/organisations/DE-Mt2.ttl');
        assert.equal(changed.headers['last-modified'], httpDate(T2));
        assert.equal(unchanged.headers['last-modified'], httpDate(T1));
      });
      it('the sitemap’s lastmod is the time of each institution’s last event', async () => {
        const res = await request(app).get('/sitemaps/1.xml');
        assert.match(
          res.text,
          /<loc>[^<]*\/isil\/DE-Mt2<\/loc><lastmod>2023-11-14T22:13:20\.000Z<\/lastmod>/,
        );
        assert.match(
          res.text,
          /<loc>[^<]*\/isil\/DE-Mt1<\/loc><lastmod>2025-06-15T15:06:40\.000Z<\/lastmod>/,
        );
      });
      it('the page lists its versions ("Versionen"), each linking its memento', async () => {
        const res = await request(app).get('/isil/DE-Mt1');
        assert.match(res.text, /<h2>Versionen<\/h2>/);
        assert.ok(res.text.includes(`href="${mementoPath(T1, '/isil/DE-Mt1')}"`));
        assert.ok(res.text.includes(`href="${mementoPath(T2, '/isil/DE-Mt1')}"`));
        const english = await request(app).get('/isil/DE-Mt1?lang=en');
        assert.match(english.text, /<h2>Versions<\/h2>/);
      });
    });

    describe('a TimeGate', () => {
      const gate = '/timegate/data/organisations/DE-Mt1.ttl';
      let latest: request.Response;
      before(async () => {
        latest = await request(app).get(gate);
      });
      it('answers 302', () => assert.equal(latest.status, 302));
      it('without Accept-Datetime: the latest memento', () =>
        assert.equal(
          latest.headers.location,
          at(mementoPath(T2, '/data/organisations/DE-Mt1.ttl')),
        ));
      it('Vary: accept-datetime', () => assert.equal(latest.headers.vary, 'accept-datetime'));
      it('Link: the original, its TimeMap, the first and the last (chosen) memento', () => {
        const links = linksOf(latest.headers.link);
        assert.equal(withRel(links, 'original')[0]?.target, at('/data/organisations/DE-Mt1.ttl'));
        assert.equal(
          withRel(links, 'timemap')[0]?.target,
          at('/timemap/data/organisations/DE-Mt1.ttl'),
        );
        const first = withRel(links, 'first')[0];
        const last = withRel(links, 'last')[0];
        // The latest was chosen: the first is the one before it too.
        assert.deepEqual(first?.rels, ['first', 'prev', 'memento']);
        assert.equal(first?.attributes.datetime, httpDate(T1));
        assert.equal(first?.target, at(mementoPath(T1, '/data/organisations/DE-Mt1.ttl')));
        assert.deepEqual(last?.rels, ['last', 'memento']);
        assert.equal(last?.attributes.datetime, httpDate(T2));
      });
      it('the latest memento at or before Accept-Datetime', async () => {
        const between = await request(app)
          .get(gate)
          .set('Accept-Datetime', httpDate(T2 - 1));
        assert.equal(
          between.headers.location,
          at(mementoPath(T1, '/data/organisations/DE-Mt1.ttl')),
        );
        const now = await request(app).get(gate).set('Accept-Datetime', httpDate(T2));
        assert.equal(now.headers.location, at(mementoPath(T2, '/data/organisations/DE-Mt1.ttl')));
      });
      it('the first memento for a datetime before the first', async () => {
        const res = await request(app)
          .get(gate)
          .set('Accept-Datetime', 'Tue, 20 Mar 2001 20:35:00 GMT');
        assert.equal(res.status, 302);
        assert.equal(res.headers.location, at(mementoPath(T1, '/data/organisations/DE-Mt1.ttl')));
      });
      for (const malformed of [
        '2025-06-15',
        'yesterday',
        'Tue, 31 Feb 2023 00:00:00 GMT',
        'Tuesday, 31-Feb-23 00:00:00 GMT',
        'Tue Feb 31 00:00:00 2023',
      ])
        it(`400 for a malformed Accept-Datetime (${malformed})`, async () => {
          const res = await request(app).get(gate).set('Accept-Datetime', malformed);
          assert.equal(res.status, 400);
        });
      it('the page’s TimeGate leads to the page’s mementos', async () => {
        const res = await request(app).get('/timegate/isil/DE-Mt1');
        assert.equal(res.headers.location, at(mementoPath(T2, '/isil/DE-Mt1')));
      });
      it('keeps the query: the page’s language', async () => {
        const res = await request(app).get('/timegate/isil/DE-Mt1?lang=en');
        assert.equal(res.headers.location, at(`${mementoPath(T2, '/isil/DE-Mt1')}?lang=en`));
      });
      it('404 for an ISIL the history never knew', async () => {
        const res = await request(app).get('/timegate/data/organisations/DE-Nope.ttl');
        assert.equal(res.status, 404);
      });
    });

    describe('an ISIL asked in another case', () => {
      for (const [asked, canonical] of <[string, string][]>[
        ['/timegate/data/organisations/de-mt1.ttl', '/timegate/data/organisations/DE-Mt1.ttl'],
        ['/timegate/isil/DE-MT1?lang=en', '/timegate/isil/DE-Mt1?lang=en'],
        ['/timemap/data/organisations/de-MT1.nt', '/timemap/data/organisations/DE-Mt1.nt'],
        [
          `${mementoPath(T1, '/data/organisations/de-mt1.jsonld')}`,
          `${mementoPath(T1, '/data/organisations/DE-Mt1.jsonld')}`,
        ],
      ])
        it(`301 to its canonical spelling: ${asked}`, async () => {
          const res = await request(app).get(asked);
          assert.equal(res.status, 301);
          assert.equal(res.headers.location, at(canonical));
        });
    });

    describe('a memento', () => {
      const original = '/data/organisations/DE-Mt1.ttl';
      let res: request.Response;
      before(async () => {
        res = await request(app).get(mementoPath(T1, original)).buffer(true).parse(asText);
      });
      it('answers 200', () => assert.equal(res.status, 200));
      it('Memento-Datetime is its time, an IMF-fixdate', () =>
        assert.equal(res.headers['memento-datetime'], httpDate(T1)));
      it('Link: original, timegate, timemap', () => {
        const links = linksOf(res.headers.link);
        assert.equal(withRel(links, 'original')[0]?.target, at(original));
        assert.equal(withRel(links, 'timegate')[0]?.target, at(`/timegate${original}`));
        assert.equal(withRel(links, 'timemap')[0]?.target, at(`/timemap${original}`));
      });
      it('Link: itself as rel="memento" with its datetime, first, and the next one', () => {
        const mementos = withRel(linksOf(res.headers.link), 'memento');
        assert.deepEqual(
          mementos.map((l) => [l.target, l.rels.join(' '), l.attributes.datetime]),
          [
            [at(mementoPath(T1, original)), 'first memento', httpDate(T1)],
            [at(mementoPath(T2, original)), 'last next memento', httpDate(T2)],
          ],
        );
      });
      it('the last memento’s Link: the first as prev, itself as last', async () => {
        const last = await request(app).head(mementoPath(T2, original));
        const mementos = withRel(linksOf(last.headers.link), 'memento');
        assert.deepEqual(
          mementos.map((l) => [l.target, l.rels.join(' ')]),
          [
            [at(mementoPath(T1, original)), 'first prev memento'],
            [at(mementoPath(T2, original)), 'last memento'],
          ],
        );
      });
      it('a strong ETag', () => assert.match(res.headers.etag!, /^"[^"]+"$/));
      it('is immutable, cached for a year', () =>
        assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable'));
      it('is the old description: the name of then', () =>
        assert.match(String(res.body), /Stadtbibliothek Altname/));
      it('still 200 with Accept-Datetime, the same memento', async () => {
        const again = await request(app)
          .get(mementoPath(T1, original))
          .set('Accept-Datetime', httpDate(T2))
          .buffer(true)
          .parse(asText);
        assert.equal(again.status, 200);
        assert.equal(again.headers.etag, res.headers.etag);
      });
      it('answers 304 to its ETag', async () => {
        const again = await request(app)
          .get(mementoPath(T1, original))
          .set('If-None-Match', res.headers.etag!);
        assert.equal(again.status, 304);
      });
      for (const ext of ['rdf', 'ttl', 'jsonld', 'nt'])
        it(`.${ext}: isomorphic to what version 1 served`, async () => {
          const document = `/data/organisations/DE-Mt1.${ext}`;
          const past = await request(app).get(mementoPath(T1, document)).buffer(true).parse(asText);
          const served = await request(then).get(document).buffer(true).parse(asText);
          assert.equal(past.status, 200);
          assert.equal(past.headers['content-type'], served.headers['content-type']);
          assert.ok(
            sameGraph(
              await graphOf(ext, String(past.body)),
              await graphOf(ext, String(served.body)),
            ),
          );
        });
      it('the page: today’s template, the record of then, saying so in German', async () => {
        const page = await request(app).get(mementoPath(T1, '/isil/DE-Mt1'));
        assert.equal(page.status, 200);
        assert.equal(page.headers['memento-datetime'], httpDate(T1));
        assert.match(page.text, /Stadtbibliothek Altname/);
        assert.match(page.text, /Diese Seite zeigt den Datensatz mit Stand vom 14\. November 2023/);
        assert.match(page.text, /<a href="\/isil\/DE-Mt1">Zum aktuellen Datensatz<\/a>/);
      });
      it('the page in English says so in English', async () => {
        const page = await request(app).get(`${mementoPath(T1, '/isil/DE-Mt1')}?lang=en`);
        assert.match(page.text, /This page shows the record as of 14 November 2023/);
        assert.match(page.text, /See the current record/);
      });
      it('404 for a time that is no memento’s, linking the TimeMap', async () => {
        const none = await request(app).get(mementoPath(T1 + 1, original));
        assert.equal(none.status, 404);
        assert.equal(
          withRel(linksOf(none.headers.link), 'timemap')[0]?.target,
          at(`/timemap${original}`),
        );
      });
      it('404 for a datetime that is no time', async () => {
        const none = await request(app).get(`/memento/20231399000000${original}`);
        assert.equal(none.status, 404);
      });
    });

    describe('a TimeMap', () => {
      const original = '/data/organisations/DE-Mt1.ttl';
      let res: request.Response;
      let links: ParsedLink[];
      before(async () => {
        res = await request(app).get(`/timemap${original}`).buffer(true).parse(asText);
        links = parseLinkFormat(String(res.body));
      });
      it('answers 200 in application/link-format', () => {
        assert.equal(res.status, 200);
        assert.match(res.headers['content-type']!, /^application\/link-format/);
      });
      it('names the original', () =>
        assert.deepEqual(
          withRel(links, 'original').map((l) => l.target),
          [`${ORIGIN}${original}`],
        ));
      it('names itself, with from and until', () => {
        const [self] = withRel(links, 'self');
        assert.equal(self?.target, `${ORIGIN}/timemap${original}`);
        assert.equal(self?.attributes.type, LINK_FORMAT);
        assert.equal(self?.attributes.from, httpDate(T1));
        assert.equal(self?.attributes.until, httpDate(T2));
      });
      it('names the JSON TimeMap, at a URL of its own', () => {
        const json = withRel(links, 'timemap').filter(
          (l) => l.attributes.type === 'application/json',
        );
        assert.deepEqual(
          json.map((l) => l.target),
          [`${ORIGIN}/timemap/json${original}`],
        );
      });
      it('names the TimeGate', () =>
        assert.deepEqual(
          withRel(links, 'timegate').map((l) => l.target),
          [`${ORIGIN}/timegate${original}`],
        ));
      it('lists every memento with its datetime, first and last marked', () => {
        const mementos = withRel(links, 'memento');
        assert.deepEqual(
          mementos.map((l) => [l.target, l.attributes.datetime, l.rels.join(' ')]),
          [
            [`${ORIGIN}${mementoPath(T1, original)}`, httpDate(T1), 'first memento'],
            [`${ORIGIN}${mementoPath(T2, original)}`, httpDate(T2), 'last memento'],
          ],
        );
      });
      it('in the aggregators’ JSON by negotiation', async () => {
        const json = await request(app)
          .get(`/timemap${original}`)
          .set('Accept', 'application/json');
        assert.equal(json.status, 200);
        assert.match(json.headers['content-type']!, /^application\/json/);
        assert.equal(json.headers.vary, 'Accept, Accept-Encoding');
        const body = json.body as {
          original_uri: string;
          timegate_uri: string;
          timemap_uri: { link_format: string; json_format: string };
          mementos: {
            first: { datetime: string; uri: string };
            last: { datetime: string; uri: string };
            list: { datetime: string; uri: string }[];
          };
        };
        assert.equal(body.original_uri, `${ORIGIN}${original}`);
        assert.equal(body.timegate_uri, `${ORIGIN}/timegate${original}`);
        assert.equal(body.timemap_uri.link_format, `${ORIGIN}/timemap${original}`);
        assert.equal(body.timemap_uri.json_format, `${ORIGIN}/timemap/json${original}`);
        assert.deepEqual(body.mementos.list, [
          { datetime: '2023-11-14T22:13:20Z', uri: `${ORIGIN}${mementoPath(T1, original)}` },
          { datetime: '2025-06-15T15:06:40Z', uri: `${ORIGIN}${mementoPath(T2, original)}` },
        ]);
        assert.deepEqual(body.mementos.first, body.mementos.list[0]);
        assert.deepEqual(body.mementos.last, body.mementos.list[1]);
      });
      it('its json_format URL answers the JSON TimeMap whatever Accept says', async () => {
        const negotiated = await request(app)
          .get(`/timemap${original}`)
          .set('Accept', 'application/json');
        const json = await request(app)
          .get(`/timemap/json${original}`)
          .set('Accept', 'application/link-format');
        assert.equal(json.status, 200);
        assert.match(json.headers['content-type']!, /^application\/json/);
        assert.equal(json.headers.vary, 'Accept-Encoding');
        assert.deepEqual(json.body, negotiated.body);
      });
      it('answers 304 to its ETag, each format its own', async () => {
        const again = await request(app)
          .get(`/timemap${original}`)
          .set('If-None-Match', res.headers.etag!);
        assert.equal(again.status, 304);
        const json = await request(app)
          .get(`/timemap${original}`)
          .set('Accept', 'application/json')
          .set('If-None-Match', res.headers.etag!);
        assert.equal(json.status, 200);
      });
      it('406 for an Accept it cannot meet', async () => {
        const none = await request(app).get(`/timemap${original}`).set('Accept', 'image/png');
        assert.equal(none.status, 406);
      });
      it('an unchanged institution has one memento, first and last', async () => {
        const one = await request(app)
          .get('/timemap/data/organisations/DE-Mt2.ttl')
          .buffer(true)
          .parse(asText);
        const mementos = withRel(parseLinkFormat(String(one.body)), 'memento');
        assert.deepEqual(
          mementos.map((l) => l.rels.join(' ')),
          ['first last memento'],
        );
      });
    });

    describe('the 303 resources with Accept-Datetime (intermediate resources)', () => {
      for (const start of ['/resource/organisations/DE-Mt1', '/data/organisations/DE-Mt1'])
        it(`${start}: 303 to the TimeGate of the document Accept chooses, then the memento`, async () => {
          const seeOther = await request(app)
            .get(start)
            .set('Accept', 'text/turtle')
            .set('Accept-Datetime', httpDate(T1 + 60));
          assert.equal(seeOther.status, 303);
          assert.equal(seeOther.headers.location, at('/timegate/data/organisations/DE-Mt1.ttl'));
          assert.equal(seeOther.headers.vary, 'Accept, Accept-Datetime, Accept-Profile');
          assert.equal(seeOther.headers['memento-datetime'], undefined);
          const found = await request(app)
            .get(local(seeOther.headers.location))
            .set('Accept-Datetime', httpDate(T1 + 60));
          const memento = await request(app)
            .get(local(found.headers.location))
            .buffer(true)
            .parse(asText);
          assert.equal(memento.status, 200);
          assert.equal(memento.headers['memento-datetime'], httpDate(T1));
          assert.match(String(memento.body), /Altname/);
        });
      it('HTML: 303 to the page’s TimeGate', async () => {
        const res = await request(app)
          .get('/resource/organisations/DE-Mt1')
          .set('Accept', 'text/html')
          .set('Accept-Datetime', httpDate(T1));
        assert.equal(res.headers.location, at('/timegate/isil/DE-Mt1'));
      });
      it('without Accept-Datetime: the current document, varying on both', async () => {
        const res = await request(app)
          .get('/resource/organisations/DE-Mt1')
          .set('Accept', 'text/turtle');
        assert.equal(res.headers.location, at('/data/organisations/DE-Mt1.ttl'));
        assert.equal(res.headers.vary, 'Accept, Accept-Datetime, Accept-Profile');
      });
    });

    describe('ISILs the version served lacks keep their past', () => {
      it('a deleted ISIL: 410 with Link to its TimeMap and its TimeGate (it was 404)', async () => {
        const res = await request(app).get('/data/organisations/DE-Mt4.ttl');
        assert.equal(res.status, 410);
        const links = linksOf(res.headers.link);
        assert.equal(
          withRel(links, 'timemap')[0]?.target,
          at('/timemap/data/organisations/DE-Mt4.ttl'),
        );
        assert.equal(
          withRel(links, 'timegate')[0]?.target,
          at('/timegate/data/organisations/DE-Mt4.ttl'),
        );
      });
      it('its 410 on the resource and the page too', async () => {
        for (const at of ['/resource/organisations/DE-Mt4', '/isil/DE-Mt4'])
          assert.equal((await request(app).get(at)).status, 410);
      });
      it('its 410 page is a page of the site, in the reader’s language, linking its past', async () => {
        const en = await request(app)
          .get('/isil/DE-Mt4')
          .set('Accept', 'text/html')
          .set('Accept-Language', 'en');
        assert.equal(en.status, 410);
        assert.equal(en.headers['content-type'], 'text/html;charset=utf-8');
        assert.equal(en.headers['content-language'], 'en');
        assert.match(en.text, /<header class="site">/);
        assert.match(en.text, /The ISIL <code>DE-Mt4<\/code> is no longer in this dataset/);
        const latest = mementoPath(T1, '/isil/DE-Mt4');
        assert.ok(en.text.includes(`<a href="${latest}">`), latest);
        assert.ok(en.text.includes('<a href="/timemap/isil/DE-Mt4"'));
        // The links lead somewhere: the memento is the page as the first version served it.
        const memento = await request(app).get(latest);
        assert.equal(memento.status, 200);
        assert.match(memento.text, /Werkbibliothek Fort/);
        const de = await request(app).get('/isil/DE-Mt4?lang=de').set('Accept', 'text/html');
        assert.match(de.text, /<html lang="de">/);
        assert.match(de.text, /ist nicht mehr in diesen Daten/);
        assert.match(de.text, /Frühere Versionen sind weiter lesbar/);
      });
      it('its 410 for a JSON client is a problem naming the same past', async () => {
        const res = await request(app)
          .get('/data/organisations/DE-Mt4.ttl')
          .set('Accept', 'application/json');
        assert.equal(res.status, 410);
        assert.equal(res.headers['content-type'], 'application/problem+json');
        const problem = JSON.parse(res.text) as Record<string, unknown>;
        assert.equal(problem.status, 410);
        assert.equal(problem.title, 'Gone');
        assert.equal(problem.timemap, at('/timemap/data/organisations/DE-Mt4.ttl'));
        assert.equal(problem.latestMemento, at(mementoPath(T1, '/data/organisations/DE-Mt4.ttl')));
      });
      it('its mementos are still served', async () => {
        const res = await request(app)
          .get(mementoPath(T1, '/data/organisations/DE-Mt4.ttl'))
          .buffer(true)
          .parse(asText);
        assert.equal(res.status, 200);
        assert.match(String(res.body), /Werkbibliothek Fort/);
      });
      it('a withdrawn ISIL with a successor: 301 with Link to its TimeMap', async () => {
        const res = await request(app).get('/data/organisations/DE-Mt3.ttl');
        assert.equal(res.status, 301);
        assert.equal(res.headers.location, at('/data/organisations/DE-Mt1.ttl'));
        assert.equal(
          withRel(linksOf(res.headers.link), 'timemap')[0]?.target,
          at('/timemap/data/organisations/DE-Mt3.ttl'),
        );
      });
      it('an ISIL the history never knew is still 404', async () => {
        const res = await request(app).get('/data/organisations/DE-Mt9.ttl');
        assert.equal(res.status, 404);
      });
    });

    it('CORS: Memento-Datetime is exposed to scripts', async () => {
      const res = await request(app).get(mementoPath(T1, '/data/organisations/DE-Mt1.ttl'));
      assert.match(res.headers['access-control-expose-headers']!, /\bMemento-Datetime\b/);
    });
  });

describe('Memento over three versions: a TimeGate’s choice between the first and the last', function () {
  this.timeout(120_000);
  const T3 = 1_760_000_000;
  const original = '/data/organisations/DE-Mt1.ttl';
  let app: Express;
  let gate: request.Response;
  before(async () => {
    const { v1, v2 } = writeVersions();
    const v3 = path.join(tempDir(), 'v3.ttl');
    fs.writeFileSync(v3, PREFIXES + record('DE-Mt1', 'Stadtbibliothek Drittname'));
    const history = await historyOf(
      [
        { version: 'v1', time: T1, sources: [v1] },
        { version: 'v2', time: T2, sources: [v2] },
        { version: 'v3', time: T3, sources: [v3] },
      ],
      BASE,
    );
    app = await appOver([v3], 'embedded', history);
    gate = await request(app)
      .get(`/timegate${original}`)
      .set('Accept-Datetime', httpDate(T2 + 60));
  });
  it('302 to the middle memento', () =>
    assert.equal(gate.headers.location, at(mementoPath(T2, original))));
  it('its Link names the memento chosen, with its neighbours as prev and next', () =>
    assert.deepEqual(
      withRel(linksOf(gate.headers.link), 'memento').map((l) => [
        l.target,
        l.rels.join(' '),
        l.attributes.datetime,
      ]),
      [
        [at(mementoPath(T1, original)), 'first prev memento', httpDate(T1)],
        [at(mementoPath(T2, original)), 'memento', httpDate(T2)],
        [at(mementoPath(T3, original)), 'last next memento', httpDate(T3)],
      ],
    ));
  it('the middle memento names itself, the first as prev, the last as next', async () => {
    const res = await request(app).head(local(gate.headers.location));
    assert.deepEqual(
      withRel(linksOf(res.headers.link), 'memento').map((l) => l.rels.join(' ')),
      ['first prev memento', 'memento', 'last next memento'],
    );
  });
});

for (const adapter of ADAPTERS)
  describe(`Memento over the one version a dataset without a log derives (${adapter} store)`, function () {
    before(needsStore(adapter));
    before(needsThirdParty);
    this.timeout(120_000);
    let app: Express;
    before(async () => {
      app = (await buildApp(undefined, {}, adapter)).app;
    });

    it('the TimeGate leads to the one memento, the current description', async () => {
      const gate = await request(app).get('/timegate/data/organisations/DE-1a.ttl');
      assert.equal(gate.status, 302);
      const memento = await request(app)
        .get(local(gate.headers.location))
        .buffer(true)
        .parse(asText);
      const current = await request(app)
        .get('/data/organisations/DE-1a.ttl')
        .buffer(true)
        .parse(asText);
      assert.equal(memento.status, 200);
      assert.ok(sameGraph(parseTurtle(String(memento.body)), parseTurtle(String(current.body))));
      // The version's time: the newest dcterms:modified of its records, the current Last-Modified.
      assert.equal(memento.headers['memento-datetime'], current.headers['last-modified']);
    });
    it('the TimeMap lists it as first and last', async () => {
      const res = await request(app)
        .get('/timemap/data/organisations/DE-1a.ttl')
        .buffer(true)
        .parse(asText);
      const mementos = withRel(parseLinkFormat(String(res.body)), 'memento');
      assert.deepEqual(
        mementos.map((l) => l.rels.join(' ')),
        ['first last memento'],
      );
    });
  });
