// The HTTP contract, row by row, against the real app over the real DE-1a document.
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import request from 'supertest';
import type { Express } from 'express';
import fs from 'node:fs';
import path from 'node:path';
import {
  EMBEDDED,
  buildApp,
  local,
  PUBLIC,
  DE_1A_RDF,
  FIXTURES,
  tempDir,
  openDataset,
  parseTurtle,
  rawRequest,
  sameGraph,
  type RawResponse,
  needsThirdParty,
} from '../support';

/**
 * Contract §6: the list, and every header this service sends that a browser script could not read
 * otherwise (Fetch's CORS-safelisted response headers need no listing).
 */
const CORS_EXPOSE =
  'Link, Location, Content-Location, ETag, Last-Modified, Vary, Dataset-Version, Retry-After, X-Request-Id, Content-Disposition, Allow, WWW-Authenticate, Results-Truncated, Memento-Datetime, Content-Profile';
const HTTP_DATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** Supertest buffers text bodies only for known text types: collect every body as bytes. */
function binary(res: request.Response, done: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => done(null, Buffer.concat(chunks)));
}

/** Superagent asks for gzip unless told otherwise: byte-exact checks ask for the identity coding. */
const IDENTITY = { 'Accept-Encoding': 'identity' };

/** The headers of a response but those that differ on every response anyway. */
function stableHeaders(res: RawResponse): Record<string, unknown> {
  const stable: Record<string, unknown> = { ...res.headers };
  delete stable.date;
  delete stable['x-request-id'];
  return stable;
}

const BUNDLED = DE_1A_RDF;
const RDF_EXTENSIONS = ['rdf', 'ttl', 'jsonld', 'nt'] as const;

/** The paths of every document of an institution: the four RDF formats and the page. */
function documentPaths(isil: string): string[] {
  return [...RDF_EXTENSIONS.map((ext) => `/data/organisations/${isil}.${ext}`), `/isil/${isil}`];
}

/**
 * A Turtle record of an institution in the data model's shape, with an address as a blank node;
 * `modified` is the literal of its description's `dcterms:modified`, left out when undefined.
 */
function record(isil: string, name: string, modified?: string): string {
  const resource = `<https://ld.zdb-services.de/resource/organisations/${isil}>`;
  const data = `<https://ld.zdb-services.de/data/organisations/${isil}>`;
  return `@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix v: <http://www.w3.org/2006/vcard/ns#> .
@prefix wdrs: <http://www.w3.org/2007/05/powder-s#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
${resource} a foaf:Organization ;
    foaf:name "${name}" ;
    v:adr [ a v:Address ; v:locality "Teststadt" ; v:postal-code "12345" ] ;
    wdrs:describedby ${data} .
${data} dcterms:license <http://creativecommons.org/publicdomain/zero/1.0/> ${modified === undefined ? '' : `;\n    dcterms:modified "${modified}"^^xsd:dateTime `}.
`;
}

/** Writes `text` as a Turtle file in `dir` and gives its path. */
function writeTurtle(dir: string, name: string, text: string): string {
  const file = path.join(dir, `${name}.ttl`);
  fs.writeFileSync(file, text);
  return file;
}

for (const adapter of EMBEDDED)
  describe(`HTTP contract (${adapter} store)`, () => {
    before(needsThirdParty);
    let app: Express;
    before(async () => {
      app = (await buildApp(undefined, {}, adapter)).app;
    });

    describe('seed chain: Accept: text/html (303, 302, 200)', () => {
      let r303: request.Response;
      let r302: request.Response;
      let r200: request.Response;
      before(async () => {
        r303 = await request(app).get('/resource/organisations/DE-1a').set('Accept', 'text/html');
        r302 = await request(app).get(local(r303.headers.location)).set('Accept', 'text/html');
        r200 = await request(app).get(local(r302.headers.location)).set('Accept', 'text/html');
      });
      it('answers 303', () => assert.equal(r303.status, 303));
      it('303 Location is the HTML document, absolute (PUBLIC_URL)', () =>
        assert.equal(r303.headers.location, `${PUBLIC}/data/organisations/DE-1a.html`));
      it('303 Content-Length is 0', () => assert.equal(r303.headers['content-length'], '0'));
      it('303 varies on Accept, Accept-Datetime (which sends it to a TimeGate) and Accept-Profile', () =>
        assert.equal(r303.headers.vary, 'Accept, Accept-Datetime, Accept-Profile'));
      it('303 is cacheable', () =>
        assert.match(r303.headers['cache-control']!, /^public, max-age=\d+$/));
      it('then 302', () => assert.equal(r302.status, 302));
      it('302 Location is the directory page (this service’s)', () =>
        assert.equal(r302.headers.location, `${PUBLIC}/isil/DE-1a`));
      it('302 Content-Length is 0', () => assert.equal(r302.headers['content-length'], '0'));
      it('302 Content-Type is text/html', () =>
        assert.equal(r302.headers['content-type'], 'text/html'));
      it('then 200', () => assert.equal(r200.status, 200));
      it('200 Content-Type is text/html;charset=utf-8', () =>
        assert.equal(r200.headers['content-type'], 'text/html;charset=utf-8'));
      it('200 varies on Accept-Encoding, Accept-Language (a page in German or English) and Accept-Profile', () =>
        assert.equal(r200.headers.vary, 'Accept-Encoding, Accept-Language, Accept-Profile'));
      it('200 is an HTML document naming the institution', () => {
        assert.match(r200.text, /^<!DOCTYPE html>/);
        assert.match(
          r200.text,
          /<h1 lang="de">Staatsbibliothek zu Berlin - Preußischer Kulturbesitz, Haus Potsdamer Straße<\/h1>/,
        );
      });
    });

    describe('seed chain: Accept: application/rdf+xml (303, 200)', () => {
      let r303: request.Response;
      let r200: request.Response;
      before(async () => {
        r303 = await request(app)
          .get('/resource/organisations/DE-1a')
          .set('Accept', 'application/rdf+xml');
        r200 = await request(app)
          .get(local(r303.headers.location))
          .set('Accept', 'application/rdf+xml')
          .set(IDENTITY)
          .buffer(true)
          .parse(binary);
      });
      it('answers 303', () => assert.equal(r303.status, 303));
      it('303 Location is the RDF/XML document, absolute', () =>
        assert.equal(r303.headers.location, `${PUBLIC}/data/organisations/DE-1a.rdf`));
      it('303 Content-Length is 0', () => assert.equal(r303.headers['content-length'], '0'));
      it('then 200', () => assert.equal(r200.status, 200));
      it('Content-Location', () =>
        assert.equal(r200.headers['content-location'], '/data/organisations/DE-1a.rdf'));
      it("Last-Modified is the record's dcterms:modified as an HTTP date", () => {
        assert.match(r200.headers['last-modified']!, HTTP_DATE);
        assert.equal(r200.headers['last-modified'], 'Wed, 15 Dec 2021 13:55:44 GMT');
      });
      it('Content-Length is the exact byte length', () =>
        assert.equal(Number(r200.headers['content-length']), (r200.body as Buffer).length));
      it('Content-Disposition', () =>
        assert.equal(r200.headers['content-disposition'], 'inline; filename="DE-1a.rdf"'));
      it('Link names the CC0 licence', () =>
        assert.match(
          r200.headers.link!,
          /^<http:\/\/creativecommons\.org\/publicdomain\/zero\/1\.0\/>; rel="license"/,
        ));
      it('Content-Type', () =>
        assert.equal(r200.headers['content-type'], 'application/rdf+xml;charset=UTF-8'));
      it('CORS', () => assert.equal(r200.headers['access-control-allow-origin'], '*'));
    });

    describe('§1 routes', () => {
      const documents: [string, string][] = [
        ['rdf', 'application/rdf+xml;charset=UTF-8'],
        ['ttl', 'text/turtle;charset=UTF-8'],
        ['jsonld', 'application/ld+json'],
        ['nt', 'application/n-triples;charset=UTF-8'],
        ['n3', 'text/n3;charset=UTF-8'],
        ['trig', 'application/trig;charset=UTF-8'],
        ['nq', 'application/n-quads;charset=UTF-8'],
      ];
      for (const [ext, type] of documents) {
        describe(`GET /data/organisations/DE-1a.${ext}`, () => {
          let res: request.Response;
          let head: request.Response;
          before(async () => {
            res = await request(app)
              .get(`/data/organisations/DE-1a.${ext}`)
              .set(IDENTITY)
              .buffer(true)
              .parse(binary);
            head = await request(app).head(`/data/organisations/DE-1a.${ext}`).set(IDENTITY);
          });
          it('200', () => assert.equal(res.status, 200));
          it(`Content-Type ${type}`, () => assert.equal(res.headers['content-type'], type));
          it('Content-Location', () =>
            assert.equal(res.headers['content-location'], `/data/organisations/DE-1a.${ext}`));
          it('Content-Disposition', () =>
            assert.equal(res.headers['content-disposition'], `inline; filename="DE-1a.${ext}"`));
          it('Content-Length', () =>
            assert.equal(Number(res.headers['content-length']), (res.body as Buffer).length));
          it('strong ETag', () => assert.match(res.headers.etag!, /^"[A-Za-z0-9_-]+"$/));
          it('Cache-Control', () =>
            assert.match(res.headers['cache-control']!, /^public, max-age=\d+$/));
          it('Vary: Accept-Encoding, Accept-Profile', () =>
            assert.equal(res.headers.vary, 'Accept-Encoding, Accept-Profile'));
          it('Link: licence and an alternate for each other format with its type', () => {
            const link = res.headers.link!;
            assert.match(
              link,
              /<http:\/\/creativecommons\.org\/publicdomain\/zero\/1\.0\/>; rel="license"/,
            );
            for (const [other, otherType] of documents.filter(([e]) => e !== ext)) {
              assert.ok(
                link.includes(
                  `<${PUBLIC}/data/organisations/DE-1a.${other}>; rel="alternate"; type="${otherType.split(';')[0]}"`,
                ),
                other,
              );
            }
            assert.ok(
              link.includes(
                `<${PUBLIC}/data/organisations/DE-1a.html>; rel="alternate"; type="text/html"`,
              ),
            );
          });
          it('CORS headers', () => {
            assert.equal(res.headers['access-control-allow-origin'], '*');
            assert.equal(res.headers['access-control-expose-headers'], CORS_EXPOSE);
          });
          it('HEAD: same status and headers, no body', () => {
            assert.equal(head.status, 200);
            for (const h of [
              'content-type',
              'content-length',
              'etag',
              'last-modified',
              'link',
              'content-location',
            ]) {
              assert.equal(head.headers[h], res.headers[h], h);
            }
            assert.deepEqual(head.body, {});
          });
        });
      }

      // Turtle read as N3 and as TriG, N-Triples as N-Quads: each the Turtle document's graph.
      for (const [ext, type] of [
        ['n3', 'text/n3'],
        ['trig', 'application/trig'],
        ['nq', 'application/n-quads'],
      ] as const)
        it(`the .${ext} document, parsed as ${type}, is the graph of the .ttl`, async () => {
          const turtle = await request(app).get('/data/organisations/DE-1a.ttl');
          const res = await request(app)
            .get(`/data/organisations/DE-1a.${ext}`)
            .set(IDENTITY)
            .buffer(true)
            .parse(binary);
          const quads = parseTurtle((res.body as Buffer).toString('utf8'), type);
          assert.ok(quads.length > 10);
          assert.ok(quads.every((q) => q.graph.termType === 'DefaultGraph'));
          assert.ok(sameGraph(quads, parseTurtle(turtle.text)));
        });

      it('GET /data/organisations/DE-1a (no extension) answers 303 like /resource', async () => {
        const res = await request(app)
          .get('/data/organisations/DE-1a')
          .set('Accept', 'text/turtle');
        assert.equal(res.status, 303);
        assert.equal(res.headers.location, `${PUBLIC}/data/organisations/DE-1a.ttl`);
      });
      it('GET /data/organisations/DE-1a.html answers 302 to the directory', async () => {
        const res = await request(app).get('/data/organisations/DE-1a.html');
        assert.equal(res.status, 302);
        assert.equal(res.headers.location, `${PUBLIC}/isil/DE-1a`);
      });
      it('HEAD /resource answers 303 without body', async () => {
        const res = await request(app).head('/resource/organisations/DE-1a');
        assert.equal(res.status, 303);
        assert.equal(res.headers.location, `${PUBLIC}/data/organisations/DE-1a.html`);
      });
      for (const [path, accept, status, location] of [
        ['/data/organisations/DE-1a', 'text/turtle', 303, '/data/organisations/DE-1a.ttl'],
        ['/data/organisations/DE-1a.html', 'text/html', 302, '/isil/DE-1a'],
        ['/isil/DE-1a', 'text/html', 200, undefined],
      ] as const) {
        it(`HEAD ${path}: ${status} with the headers of GET, no body`, async () => {
          const headers = { Accept: accept, ...IDENTITY };
          const get = await rawRequest(app, path, headers);
          const head = await rawRequest(app, path, headers, 'HEAD');
          assert.equal(get.status, status);
          assert.equal(head.status, status);
          assert.deepEqual(stableHeaders(head), stableHeaders(get));
          assert.equal(head.headers.location, location && `${PUBLIC}${location}`);
          assert.equal(Number(head.headers['content-length']), get.body.length);
          assert.equal(head.body.length, 0);
        });
      }
      for (const path of [
        '/resource/organisations/DE-1a',
        '/data/organisations/DE-1a',
        '/data/organisations/DE-1a.ttl',
        '/data/organisations/DE-1a.html',
        '/isil/DE-1a',
      ]) {
        it(`OPTIONS ${path}: 204 preflight`, async () => {
          const res = await request(app)
            .options(path)
            .set('Origin', 'https://example.org')
            .set('Access-Control-Request-Method', 'GET');
          assert.equal(res.status, 204);
          assert.equal(res.headers['access-control-allow-origin'], '*');
          assert.equal(res.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS');
          assert.equal(
            res.headers['access-control-allow-headers'],
            'Accept, Accept-Language, Accept-Datetime, Accept-Profile, If-None-Match, If-Modified-Since',
          );
          assert.match(res.headers['access-control-max-age']!, /^\d+$/);
        });
      }
      for (const method of ['post', 'put', 'delete', 'patch'] as const) {
        it(`${method.toUpperCase()}: 405 with Allow`, async () => {
          const res = await request(app)[method]('/resource/organisations/DE-1a');
          assert.equal(res.status, 405);
          assert.equal(res.headers.allow, 'GET, HEAD, OPTIONS');
          assert.equal(res.headers['access-control-allow-origin'], '*');
        });
      }
    });

    describe('§2 negotiation through the app', () => {
      const rows: [string | undefined, string][] = [
        [undefined, 'html'],
        ['*/*', 'html'],
        ['text/html', 'html'],
        ['application/xhtml+xml', 'html'],
        ['application/rdf+xml', 'rdf'],
        ['application/xml', 'rdf'],
        ['text/xml', 'rdf'],
        ['text/turtle', 'ttl'],
        ['application/x-turtle', 'ttl'],
        ['application/ld+json', 'jsonld'],
        ['application/ld+json;profile="http://www.w3.org/ns/json-ld#compacted"', 'jsonld'],
        ['application/json', 'jsonld'],
        ['application/n-triples', 'nt'],
        ['text/plain', 'nt'],
        ['text/n3', 'n3'],
        ['application/trig', 'trig'],
        ['application/n-quads', 'nq'],
      ];
      for (const [accept, ext] of rows) {
        it(`${accept ?? '(no Accept)'} → .${ext}`, async () => {
          const req = request(app).get('/resource/organisations/DE-1a');
          if (accept !== undefined) req.set('Accept', accept);
          else req.unset('Accept');
          const res = await req;
          assert.equal(res.status, 303);
          assert.equal(res.headers.location, `${PUBLIC}/data/organisations/DE-1a.${ext}`);
        });
      }
      it('nothing acceptable: 406 listing the documents as links', async () => {
        const res = await request(app)
          .get('/resource/organisations/DE-1a')
          .set('Accept', 'image/png');
        assert.equal(res.status, 406);
        for (const ext of ['html', 'rdf', 'ttl', 'jsonld', 'nt', 'n3', 'trig', 'nq'])
          assert.ok(res.text.includes(`/data/organisations/DE-1a.${ext}`), ext);
        assert.equal(res.headers['access-control-allow-origin'], '*');
      });
    });

    describe('§5 identifiers that are not plain hits', () => {
      const rows: [string, number, string?][] = [
        ['/resource/organisations/de-1A', 301, '/resource/organisations/DE-1a'],
        ['/data/organisations/de-1a.ttl', 301, '/data/organisations/DE-1a.ttl'],
        ['/data/organisations/DE-1A', 301, '/data/organisations/DE-1a'],
        ['/isil/de-1a', 301, '/isil/DE-1a'],
        ['/resource/organisations/de-1a?x=1', 301, '/resource/organisations/DE-1a?x=1'],
        ['/resource/organisations/DE-2', 404],
        ['/data/organisations/DE-2.ttl', 404],
        ['/isil/DE-2', 404],
        ['/data/organisations/DE-1a.pdf', 404],
        ['/resource/organisations/DE-1a-too-long-for-an-isil', 404],
        ['/resource/organisations/..', 404],
        ['/resource/organisations/DE-1a%2Fx', 404],
        ['/resource/organisations/DE%2D1a', 404],
      ];
      for (const [path, status, location] of rows) {
        it(`${path} → ${status}${location ? ` ${location}` : ''}`, async () => {
          const res = await request(app).get(path);
          assert.equal(res.status, status);
          if (location) assert.equal(res.headers.location, `${PUBLIC}${location}`);
          assert.equal(res.headers['access-control-allow-origin'], '*');
        });
      }
      it('a malformed ISIL: the body says so', async () => {
        const res = await request(app).get('/resource/organisations/DE2789');
        assert.equal(res.status, 404);
        assert.match(res.text, /not a well-formed ISIL/);
      });
      it('an unknown ISIL: the body says it is unknown, not malformed', async () => {
        const res = await request(app)
          .get('/resource/organisations/DE-2')
          .set('Accept', 'text/plain');
        assert.match(res.text, /No institution has the ISIL DE-2/);
      });
      it('error bodies follow the negotiated format: HTML for browsers', async () => {
        const res = await request(app)
          .get('/resource/organisations/DE-2')
          .set('Accept', 'text/html');
        assert.equal(res.headers['content-type'], 'text/html;charset=utf-8');
        assert.match(res.text, /<h1>[^<]+ <small>\(404\)<\/small><\/h1>/);
      });
      describe('an error page is a page of the site, in the reader’s language', () => {
        const page = (path: string, headers: Record<string, string>) =>
          request(app)
            .get(path)
            .set({ Accept: 'text/html', ...headers });
        it('has the header with the search box and the link home', async () => {
          const res = await page('/resource/organisations/DE-2', {});
          assert.match(res.text, /<header class="site">/);
          assert.match(res.text, /<form class="lookup" role="search" action="\/search"/);
          assert.match(res.text, /<a class="brand" href="\/">/);
        });
        it('is German by default and for Accept-Language: de', async () => {
          for (const headers of [{}, { 'Accept-Language': 'de-DE,de;q=0.9' }] as Record<
            string,
            string
          >[]) {
            const res = await page('/resource/organisations/DE-2', headers);
            assert.match(res.text, /<html lang="de">/);
            assert.match(res.text, /Nicht gefunden/);
            assert.match(res.text, /Keine Einrichtung hat die ISIL <code>DE-2<\/code>/);
            assert.equal(res.headers['content-language'], 'de');
          }
        });
        it('is English for Accept-Language: en', async () => {
          const res = await page('/resource/organisations/DE-2', { 'Accept-Language': 'en' });
          assert.match(res.text, /<html lang="en">/);
          assert.match(res.text, /No institution has the ISIL <code>DE-2<\/code>/);
        });
        it('follows lang= over Accept-Language, and its links keep it', async () => {
          const res = await page('/resource/organisations/DE-2?lang=en', {
            'Accept-Language': 'de',
          });
          assert.match(res.text, /<html lang="en">/);
          assert.ok(res.text.includes('href="/?lang=en"'));
          // The switch leads to the same URL in the other language.
          assert.ok(res.text.includes('href="/resource/organisations/DE-2?lang=de"'));
        });
        it('marks the service’s English words on a German page', async () => {
          const res = await page('/resource/organisations/DE2789', {});
          assert.match(res.text, /<span lang="en">[^<]*not a well-formed ISIL/);
        });
        it('varies on Accept and Accept-Language', async () => {
          const res = await page('/resource/organisations/DE-2', {});
          assert.equal(res.headers.vary, 'Accept, Accept-Language');
        });
      });
      describe('a JSON client gets an RFC 9457 problem', () => {
        for (const [what, ask] of [
          ['Accept: application/json', (r: request.Test) => r.set('Accept', 'application/json')],
          [
            'Accept: application/problem+json',
            (r: request.Test) => r.set('Accept', 'application/problem+json'),
          ],
          [
            'format=json, whatever the Accept',
            (r: request.Test) => r.query({ format: 'json' }).set('Accept', 'text/html'),
          ],
        ] as const)
          it(`for ${what}`, async () => {
            const res = await ask(request(app).get('/resource/organisations/DE-2'));
            assert.equal(res.status, 404);
            assert.equal(res.headers['content-type'], 'application/problem+json');
            assert.deepEqual(JSON.parse(res.text), {
              type: 'about:blank',
              title: 'Not Found',
              status: 404,
              detail: 'No institution has the ISIL DE-2.',
            });
          });
        it('with the links of a 406', async () => {
          const res = await request(app)
            .get('/resource/organisations/DE-1a')
            .query({ format: 'json' })
            .set('Accept', 'image/png');
          assert.equal(res.status, 406);
          const problem = JSON.parse(res.text) as { links: { href: string }[] };
          assert.ok(problem.links.some((l) => l.href === `${PUBLIC}/data/organisations/DE-1a.ttl`));
        });
        it('while an RDF client keeps plain text', async () => {
          const res = await request(app)
            .get('/resource/organisations/DE-2')
            .set('Accept', 'application/ld+json, application/json;q=0.5');
          assert.equal(res.headers['content-type'], 'text/plain;charset=utf-8');
        });
      });
      it('error bodies follow the negotiated format: plain text otherwise', async () => {
        const res = await request(app)
          .get('/resource/organisations/DE-2')
          .set('Accept', 'text/turtle');
        assert.equal(res.headers['content-type'], 'text/plain;charset=utf-8');
      });
      for (const [accept, type] of <[string | undefined, string][]>[
        [undefined, 'text/html'],
        ['*/*', 'text/html'],
        ['application/xhtml+xml', 'text/html'],
        ['application/ld+json', 'text/plain'],
        ['application/n-triples', 'text/plain'],
        ['image/png', 'text/plain'],
      ])
        it(`an error body for Accept: ${accept ?? '(none)'} is ${type}`, async () => {
          const asked = request(app).get('/resource/organisations/DE-2');
          const res = await (accept === undefined ? asked : asked.set('Accept', accept));
          assert.equal(res.headers['content-type'], `${type};charset=utf-8`);
        });
    });

    describe('§3 caching and content coding', () => {
      const etags = new Map<string, string>();
      before(async () => {
        for (const ext of ['rdf', 'ttl', 'jsonld', 'nt']) {
          etags.set(
            ext,
            (await request(app).get(`/data/organisations/DE-1a.${ext}`)).headers.etag!,
          );
        }
        etags.set('html', (await request(app).get('/isil/DE-1a')).headers.etag!);
      });
      it('a different ETag for each format', () => assert.equal(new Set(etags.values()).size, 5));
      it('If-None-Match with the ETag: 304 with the same validators and no body', async () => {
        const res = await request(app)
          .get('/data/organisations/DE-1a.ttl')
          .set('If-None-Match', etags.get('ttl')!);
        assert.equal(res.status, 304);
        assert.equal(res.headers.etag, etags.get('ttl'));
        assert.equal(res.headers['last-modified'], 'Wed, 15 Dec 2021 13:55:44 GMT');
        assert.match(res.headers['cache-control']!, /^public/);
        assert.equal(res.text, '');
      });
      it('If-None-Match in a list, weak form: 304', async () => {
        const res = await request(app)
          .get('/data/organisations/DE-1a.ttl')
          .set('If-None-Match', `"x", W/${etags.get('ttl')}`);
        assert.equal(res.status, 304);
      });
      it('If-None-Match of another format: 200', async () => {
        const res = await request(app)
          .get('/data/organisations/DE-1a.ttl')
          .set('If-None-Match', etags.get('rdf')!);
        assert.equal(res.status, 200);
      });
      it('If-Modified-Since at Last-Modified: 304', async () => {
        const res = await request(app)
          .get('/data/organisations/DE-1a.rdf')
          .set('If-Modified-Since', 'Wed, 15 Dec 2021 13:55:44 GMT');
        assert.equal(res.status, 304);
      });
      it('If-Modified-Since before Last-Modified: 200', async () => {
        const res = await request(app)
          .get('/data/organisations/DE-1a.rdf')
          .set('If-Modified-Since', 'Wed, 15 Dec 2021 13:55:43 GMT');
        assert.equal(res.status, 200);
      });
      it('If-None-Match decides over If-Modified-Since', async () => {
        const res = await request(app)
          .get('/data/organisations/DE-1a.rdf')
          .set('If-None-Match', '"other"')
          .set('If-Modified-Since', 'Wed, 15 Dec 2031 13:55:44 GMT');
        assert.equal(res.status, 200);
      });
      it('HTML page answers 304 too', async () => {
        const res = await request(app).get('/isil/DE-1a').set('If-None-Match', etags.get('html')!);
        assert.equal(res.status, 304);
      });
      for (const [encoding, decode] of [
        ['gzip', zlib.gunzipSync],
        ['br', zlib.brotliDecompressSync],
      ] as const) {
        it(`${encoding}: the decoded body is the identity body, under its own ETag`, async () => {
          const plain = await rawRequest(app, '/data/organisations/DE-1a.ttl', IDENTITY);
          const coded = await rawRequest(app, '/data/organisations/DE-1a.ttl', {
            'Accept-Encoding': encoding,
          });
          assert.equal(coded.headers['content-encoding'], encoding);
          assert.equal(Number(coded.headers['content-length']), (coded.body as Buffer).length);
          assert.ok((coded.body as Buffer).length < (plain.body as Buffer).length);
          assert.deepEqual(decode(coded.body as Buffer), plain.body);
          assert.notEqual(coded.headers.etag, plain.headers.etag);
          assert.equal(coded.headers.vary, 'Accept-Encoding, Accept-Profile');
        });
      }
      it('a coded ETag revalidates (304)', async () => {
        const coded = await request(app)
          .get('/data/organisations/DE-1a.ttl')
          .set('Accept-Encoding', 'br');
        const res = await request(app)
          .get('/data/organisations/DE-1a.ttl')
          .set('Accept-Encoding', 'br')
          .set('If-None-Match', coded.headers.etag!);
        assert.equal(res.status, 304);
      });
      it('ETags and bodies are the same after a reload of the same data (blank nodes labelled from content)', async () => {
        const other = (await buildApp(undefined, {}, adapter)).app;
        for (const ext of ['rdf', 'ttl', 'jsonld', 'nt']) {
          const a = await request(app)
            .get(`/data/organisations/DE-1a.${ext}`)
            .buffer(true)
            .parse(binary);
          const b = await request(other)
            .get(`/data/organisations/DE-1a.${ext}`)
            .buffer(true)
            .parse(binary);
          assert.equal(b.headers.etag, a.headers.etag, ext);
          assert.deepEqual(b.body, a.body, ext);
        }
      });
    });

    describe('a new dataset', () => {
      it('drops the rendered documents of the old one', async () => {
        const { app: own, service } = await buildApp(undefined, {}, adapter);
        const before = await request(own).get('/data/organisations/DE-1a.nt');
        assert.ok(service.current!.cache.size > 0);
        const { dataset } = await openDataset(
          [DE_1A_RDF, path.join(FIXTURES, 'test', 'hostile-page.ttl')],
          service.config,
          adapter,
        );
        service.use(dataset);
        assert.equal(service.current!.cache.size, 0);
        const after = await request(own).get('/readyz');
        assert.equal(after.body.institutions, 2);
        const again = await request(own).get('/data/organisations/DE-1a.nt');
        assert.equal(again.headers.etag, before.headers.etag, 'the same record keeps its ETag');
      });
    });

    describe('Last-Modified of a record without a valid dcterms:modified', () => {
      // Last-Modified is the time of the institution's last event (docs/history.md): in a version
      // without a log, the version's time, the newest dcterms:modified of its records (DE-1a's).
      // A load time far from both, so that an answer from the load or the clock fails.
      const LOADED_AT = new Date('2024-03-01T12:00:00Z');
      let dir: string;
      let own: Express;
      before(async () => {
        dir = tempDir();
        const built = await buildApp(undefined, {}, adapter);
        own = built.app;
        const { dataset } = await openDataset(
          [
            BUNDLED,
            writeTurtle(dir, 'no-date', record('DE-T1', 'Bibliothek ohne Datum')),
            writeTurtle(
              dir,
              'bad-date',
              record('DE-T2', 'Bibliothek mit Unsinn', '15.12.2021 13:55'),
            ),
          ],
          built.service.config,
          adapter,
        );
        Object.defineProperty(dataset, 'loadedAt', { value: LOADED_AT });
        built.service.use(dataset);
      });
      after(() => fs.rmSync(dir, { recursive: true, force: true }));

      for (const [isil, what] of [
        ['DE-T1', 'none'],
        ['DE-T2', 'one that is not a date'],
      ]) {
        for (const path of documentPaths(isil!)) {
          it(`${path} (${what}): the time of its version, not the load time`, async () => {
            const res = await request(own).get(path);
            assert.equal(res.status, 200);
            assert.equal(res.headers['last-modified'], 'Wed, 15 Dec 2021 13:55:44 GMT');
          });
        }
      }
      it('a record with a date in the same dataset keeps its own', async () => {
        const res = await request(own).get('/data/organisations/DE-1a.ttl');
        assert.equal(res.headers['last-modified'], 'Wed, 15 Dec 2021 13:55:44 GMT');
      });
      it('If-Modified-Since at the time of its version: 304', async () => {
        const res = await request(own)
          .get('/data/organisations/DE-T1.ttl')
          .set('If-Modified-Since', 'Wed, 15 Dec 2021 13:55:44 GMT');
        assert.equal(res.status, 304);
      });
    });

    describe('ETags follow the record, not the rest of the dataset', () => {
      // A: DE-T1, renamed in the second dataset; B: DE-1a, the same in all; C: DE-T3, added.
      let first: Map<string, string>;
      let renamed: Map<string, string>;
      let grown: Map<string, string>;
      const A = documentPaths('DE-T1');
      const B = documentPaths('DE-1a');

      /** The ETag of every document of A and B in the app over `sources`. */
      async function etags(sources: string[]): Promise<Map<string, string>> {
        const { app: own } = await buildApp(sources, {}, adapter);
        const found = new Map<string, string>();
        for (const path of [...A, ...B]) {
          const res = await request(own).get(path).set(IDENTITY);
          assert.equal(res.status, 200, path);
          found.set(path, res.headers.etag!);
        }
        return found;
      }

      before(async () => {
        const dir = tempDir();
        try {
          const modified = '2024-01-02T03:04:05';
          const a = writeTurtle(dir, 'a', record('DE-T1', 'Bibliothek A', modified));
          const renamedA = writeTurtle(
            dir,
            'a2',
            record('DE-T1', 'Bibliothek A, neu benannt', modified),
          );
          const c = writeTurtle(dir, 'c', record('DE-T3', 'Bibliothek C', modified));
          first = await etags([BUNDLED, a]);
          renamed = await etags([BUNDLED, renamedA]);
          grown = await etags([BUNDLED, a, c]);
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      });

      it('every document of the changed record gets a new ETag', () => {
        for (const path of A) assert.notEqual(renamed.get(path), first.get(path), path);
      });
      it('every document of an unchanged record keeps its ETag when another record changes', () => {
        for (const path of B) assert.equal(renamed.get(path), first.get(path), path);
      });
      it('every document of an unchanged record keeps its ETag when a record is added', () => {
        for (const path of [...A, ...B]) assert.equal(grown.get(path), first.get(path), path);
      });
    });

    describe('§4 ISIL_DIRECTORY_URL', () => {
      it('302 goes to the configured directory with its scheme', async () => {
        const { app: directed } = await buildApp(
          undefined,
          { ISIL_DIRECTORY_URL: 'https://sigel.staatsbibliothek-berlin.de/' },
          adapter,
        );
        const res = await request(directed).get('/data/organisations/DE-1a.html');
        assert.equal(res.status, 302);
        assert.equal(res.headers.location, 'https://sigel.staatsbibliothek-berlin.de/isil/DE-1a');
        assert.equal((await request(directed).get('/isil/DE-1a')).status, 404);
      });
    });

    describe('operations', () => {
      it('/healthz answers 200', async () => {
        const res = await request(app).get('/healthz');
        assert.equal(res.status, 200);
        assert.deepEqual(res.body, { status: 'alive' });
      });
      it('/readyz tells institutions, triples and the dataset version', async () => {
        const res = await request(app).get('/readyz');
        assert.equal(res.status, 200);
        assert.equal(res.body.status, 'ready');
        assert.equal(res.body.institutions, 1);
        assert.equal(res.body.triples, 63);
        assert.match(res.body.version, /^[0-9a-f]{12}$/);
      });
      it('a request id is sent back, and a sane given one is kept', async () => {
        const res = await request(app).get('/healthz').set('X-Request-Id', 'abc-123');
        assert.equal(res.headers['x-request-id'], 'abc-123');
      });
    });
  });
