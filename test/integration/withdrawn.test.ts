// Withdrawn ISILs (contract §5, docs/data-model.md Lifecycle): 301 to the successor, or 410 Gone, on
// every route kind, over a fixture loaded through the real loader.
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import type { Service } from '../../src/documents/service';
import fs from 'node:fs';
import { Parser, type Quad } from 'n3';
import {
  ADAPTERS,
  BASE,
  buildApp,
  local,
  PUBLIC,
  FIXTURES,
  parseJsonLd,
  parseRdfXml,
  parseTurtle,
  sameGraph,
  asText,
  needsThirdParty,
} from '../support';

const WITHDRAWN_TTL = path.join(FIXTURES, 'test', 'withdrawn.ttl');

/** Each kind of URL an ISIL stands in, as a function of the ISIL. */
const ROUTES: readonly [string, (isil: string) => string][] = [
  ['resource', (i) => `/resource/organisations/${i}`],
  ['data', (i) => `/data/organisations/${i}`],
  ...['rdf', 'ttl', 'jsonld', 'nt', 'html'].map((ext): [string, (isil: string) => string] => [
    `.${ext}`,
    (i) => `/data/organisations/${i}.${ext}`,
  ]),
  ['page', (i) => `/isil/${i}`],
];

/** The answer of a live institution on each route kind. */
const LIVE_STATUS: Readonly<Record<string, number>> = {
  resource: 303,
  data: 303,
  '.html': 302,
  page: 200,
};

for (const adapter of ADAPTERS)
  describe(`withdrawn ISILs (${adapter} store)`, () => {
    before(needsThirdParty);
    let app: Express;
    let service: Service;
    before(async () => {
      ({ app, service } = await buildApp([WITHDRAWN_TTL], {}, adapter));
    });

    describe('the index', () => {
      it('counts live and withdrawn institutions apart', () => {
        const dataset = service.current!.dataset;
        assert.equal(dataset.institutionCount, 2);
        assert.equal(dataset.withdrawnCount, 8);
      });
      it('lists only live institutions', () =>
        assert.deepEqual(
          [...service.current!.dataset.institutions()].map((i) => i.isil),
          ['DE-L1', 'DE-L2'],
        ));
      it('warns of a successor that is not in the dataset', () =>
        assert.ok(
          service.current!.dataset.warnings.some(
            (w) => w.kind === 'successor-unknown' && w.subject.endsWith('/DE-W5'),
          ),
        ));
      it('warns of a cycle of successors, once for each institution in it', () =>
        assert.deepEqual(
          service
            .current!.dataset.warnings.filter((w) => w.kind === 'successor-cycle')
            .map((w) => w.subject.slice(w.subject.lastIndexOf('/') + 1)),
          ['DE-W6', 'DE-W7'],
        ));
      it('does not ask a withdrawn institution for a name', () =>
        assert.ok(!service.current!.dataset.warnings.some((w) => w.kind === 'no-name')));
      it('/readyz counts the withdrawn apart', async () => {
        const body = (await request(app).get('/readyz')).body as Record<string, unknown>;
        assert.equal(body.institutions, 2);
        assert.equal(body.withdrawn, 8);
      });
    });

    /** Withdrawn ISILs whose successors lead to a live institution, and where. */
    const redirected: readonly [string, string, string][] = [
      ['DE-W1', 'DE-L1', 'a successor'],
      ['DE-W3', 'DE-L1', 'a successor withdrawn in turn: straight to the end of the chain'],
      ['DE-W8', 'DE-L1', 'a successor named in another case: its canonical spelling'],
    ];
    for (const [withdrawn, successor, what] of redirected) {
      describe(`${withdrawn}, ${what}: 301 to ${successor} on each route kind`, () => {
        for (const [kind, url] of ROUTES) {
          it(kind, async () => {
            const res = await request(app).get(url(withdrawn));
            assert.equal(res.status, 301);
            assert.equal(res.headers.location, `${PUBLIC}${url(successor)}`);
            assert.match(res.headers['cache-control']!, /^public, max-age=\d+$/);
            assert.equal(res.headers['access-control-allow-origin'], '*');
            assert.match(
              res.text,
              new RegExp(`${withdrawn} was withdrawn; ${successor} replaces it`),
            );
          });
        }
      });
    }

    /** Withdrawn ISILs that answer 410, and what the body says why. */
    const gone: readonly [string, string, RegExp, string | undefined][] = [
      ['DE-W2', 'no successor', /The ISIL DE-W2 was withdrawn; no successor is known\./, undefined],
      [
        'DE-W4',
        'a successor withdrawn without successor',
        /DE-W4 was withdrawn; its successor DE-W2 was withdrawn as well/,
        'DE-W2',
      ],
      [
        'DE-W5',
        'a successor that is not in the dataset',
        /DE-W5 \(Institutsbibliothek Musterdorf\) was withdrawn; the successor named for it, DE-X99, is not in this dataset/,
        'DE-X99',
      ],
      [
        'DE-W6',
        'successors in a cycle',
        /DE-W6 was withdrawn; its successor DE-W7 was withdrawn/,
        'DE-W7',
      ],
    ];
    /** The formats an RDF client asks for a 410 in: by extension, or by Accept without one. */
    const RDF_ANSWERS: Readonly<Record<string, [string, string | undefined]>> = {
      resource: ['application/n-triples;charset=UTF-8', 'text/plain'],
      data: ['text/turtle;charset=UTF-8', 'text/turtle'],
      '.rdf': ['application/rdf+xml;charset=UTF-8', undefined],
      '.ttl': ['text/turtle;charset=UTF-8', undefined],
      '.jsonld': ['application/ld+json', undefined],
      '.nt': ['application/n-triples;charset=UTF-8', undefined],
    };

    /** The quads of an RDF body in the format `type` names. */
    async function quadsOf(type: string, text: string): Promise<Quad[]> {
      if (type.startsWith('application/rdf+xml')) return parseRdfXml(text);
      if (type.startsWith('application/ld+json')) return parseJsonLd(text);
      if (type.startsWith('application/n-triples')) return parseTurtle(text, 'N-Triples');
      return parseTurtle(text);
    }

    /**
     * What the fixture itself says about a withdrawn ISIL (its institution and its description
     * document), read by N3 straight from the file: the oracle of a 410 in RDF.
     */
    function heldAbout(isil: string): Quad[] {
      const all = new Parser().parse(fs.readFileSync(WITHDRAWN_TTL, 'utf8'));
      const subjects = new Set([
        `${BASE}/resource/organisations/${isil}`,
        `${BASE}/data/organisations/${isil}`,
      ]);
      return all.filter((q) => subjects.has(q.subject.value));
    }

    for (const [isil, what, says, successor] of gone) {
      describe(`${isil}, ${what}: 410 on each route kind`, () => {
        for (const [kind, url] of ROUTES) {
          const rdf = RDF_ANSWERS[kind];
          if (rdf === undefined) {
            it(`${kind}: the short error body`, async () => {
              const res = await request(app).get(url(isil)).set('Accept', 'text/plain');
              assert.equal(res.status, 410);
              assert.equal(res.headers.location, undefined);
              assert.equal(res.headers['content-type'], 'text/plain;charset=utf-8');
              assert.match(res.text, says);
              assert.match(res.headers['cache-control']!, /^public, max-age=\d+$/);
              assert.equal(res.headers['access-control-allow-origin'], '*');
            });
            continue;
          }
          const [type, accept] = rdf;
          it(`${kind}${accept ? ` (Accept: ${accept})` : ' (Accept: text/html)'}: what the data holds about it, in that format`, async () => {
            const res = await request(app)
              .get(url(isil))
              .set('Accept', accept ?? 'text/html')
              .buffer(true)
              .parse(asText);
            assert.equal(res.status, 410);
            assert.equal(res.headers['content-type'], type);
            assert.equal(res.headers.vary, 'Accept');
            assert.equal(res.headers.location, undefined);
            assert.match(res.headers['cache-control']!, /^public, max-age=\d+$/);
            assert.equal(res.headers['access-control-allow-origin'], '*');
            assert.match(res.headers.link!, /creativecommons\.org\/publicdomain\/zero/);
            assert.equal(res.headers['dataset-version'], service.current!.dataset.version);
            const quads = await quadsOf(type, res.body as string);
            assert.ok(sameGraph(quads, heldAbout(isil)), `${isil} as ${type}`);
            const replacedBy = quads
              .filter((q) => q.predicate.value === 'http://purl.org/dc/terms/isReplacedBy')
              .map((q) => q.object.value);
            assert.deepEqual(
              replacedBy,
              successor === undefined ? [] : [`${BASE}/resource/organisations/${successor}`],
            );
          });
        }
      });
    }

    describe('a 410 in RDF, kept as a representation and answered again', () => {
      const url = '/data/organisations/DE-W6.nt';
      /** Each answer's status, headers but Date, and body. */
      const answers: { status: number; headers: Record<string, string>; body: string }[] = [];
      before(async () => {
        const asks: [string, Record<string, string>][] = [
          ['first', {}],
          ['again', {}],
          ['if-none-match', { 'If-None-Match': '*' }],
          ['gzip', { 'Accept-Encoding': 'gzip, br' }],
        ];
        for (const [id, headers] of asks) {
          const res = await request(app)
            .get(url)
            .set({ 'X-Request-Id': id, ...headers })
            .buffer(true)
            .parse(asText);
          const rest = { ...(res.headers as Record<string, string>) };
          delete rest.date;
          answers.push({ status: res.status, headers: rest, body: res.body as string });
        }
      });
      it('has the same body each time', () =>
        assert.equal(new Set(answers.map((a) => a.body)).size, 1));
      it('carries each request its own id', () =>
        assert.deepEqual(
          answers.map((a) => a.headers['x-request-id']),
          ['first', 'again', 'if-none-match', 'gzip'],
        ));
      it('answers the same headers but the id each time', () => {
        const without = answers.map(({ headers }) => ({ ...headers, 'x-request-id': '' }));
        for (const other of without.slice(1)) assert.deepEqual(other, without[0]);
      });
      it('has no validators: If-None-Match gets the 410, not a 304', () =>
        assert.deepEqual(
          answers.map((a) => a.status),
          [410, 410, 410, 410],
        ));
      it('is not compressed, and has no ETag', () => {
        assert.equal(answers[3]!.headers['content-encoding'], undefined);
        assert.equal(answers[3]!.headers.etag, undefined);
      });
    });

    describe('the 410 of a page follows the negotiated error style', () => {
      it("the withdrawn ISIL's own page for browsers, naming the institution and its successor, in their language", async () => {
        const res = await request(app)
          .get('/data/organisations/DE-W5.html')
          .set('Accept', 'text/html');
        assert.equal(res.status, 410);
        assert.equal(res.headers['content-type'], 'text/html;charset=utf-8');
        assert.equal(res.headers.vary, 'Accept, Accept-Language');
        assert.match(res.text, /<html lang="de">/);
        assert.match(res.text, /<h1>ISIL DE-W5 zurückgezogen<\/h1>/);
        assert.match(res.text, /<strong lang="de">Institutsbibliothek Musterdorf<\/strong>/);
        assert.match(res.text, /DE-X99/);
        const en = await request(app).get('/isil/DE-W4?lang=en').set('Accept', 'text/html');
        assert.equal(en.status, 410);
        assert.match(en.text, /<h1>ISIL DE-W4 withdrawn<\/h1>/);
        assert.match(
          en.text,
          /Its successor <a href="\/isil\/DE-W2\?lang=en"><code>DE-W2<\/code><\/a> was withdrawn as well/,
        );
      });
      it('a browser asking /resource for HTML gets the page, not RDF', async () => {
        const res = await request(app)
          .get('/resource/organisations/DE-W5')
          .set('Accept', 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8');
        assert.equal(res.status, 410);
        assert.equal(res.headers['content-type'], 'text/html;charset=utf-8');
      });
    });

    describe('a case variant of a withdrawn ISIL: 301 to the canonical spelling first', () => {
      for (const [kind, url] of ROUTES) {
        it(kind, async () => {
          const res = await request(app).get(`${url('de-w2')}?a=1`);
          assert.equal(res.status, 301);
          assert.equal(res.headers.location, `${PUBLIC}${url('DE-W2')}?a=1`);
          assert.match(res.text, /canonical spelling/);
        });
      }
    });

    describe('live institutions beside them answer as always', () => {
      for (const isil of ['DE-L1', 'DE-L2']) {
        for (const [kind, url] of ROUTES) {
          it(`${isil} ${kind}`, async () => {
            const res = await request(app).get(url(isil)).set('Accept', 'text/turtle');
            assert.equal(res.status, LIVE_STATUS[kind] ?? 200);
          });
        }
      }
    });

    describe('HEAD and OPTIONS', () => {
      it('HEAD of a withdrawn ISIL with a successor: 301, same Location, no body', async () => {
        const res = await request(app).head('/data/organisations/DE-W1.jsonld');
        assert.equal(res.status, 301);
        assert.equal(res.headers.location, `${PUBLIC}/data/organisations/DE-L1.jsonld`);
        assert.equal(res.text, undefined);
      });
      it('HEAD of a withdrawn ISIL without successor: 410, no body', async () => {
        const get = await request(app).get('/resource/organisations/DE-W2');
        const head = await request(app).head('/resource/organisations/DE-W2');
        assert.equal(head.status, 410);
        assert.equal(head.headers['content-length'], get.headers['content-length']);
        assert.equal(head.text, undefined);
      });
      it('OPTIONS: the CORS preflight, as on every route', async () => {
        const res = await request(app).options('/data/organisations/DE-W2.ttl');
        assert.equal(res.status, 204);
        assert.equal(res.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS');
      });
    });

    it('following the 301 of a withdrawn ISIL gives the description of its successor', async () => {
      const moved = await request(app).get('/data/organisations/DE-W3.ttl');
      const res = await request(app).get(local(moved.headers.location));
      assert.equal(res.status, 200);
      const subjects = new Set(parseTurtle(res.text).map((q) => q.subject.value));
      assert.ok(subjects.has('https://ld.zdb-services.de/resource/organisations/DE-L1'));
      assert.ok(![...subjects].some((s) => s.includes('DE-W')));
    });

    it('an unknown extension on a withdrawn ISIL is still 404', async () =>
      assert.equal((await request(app).get('/data/organisations/DE-W1.pdf')).status, 404));
  });
