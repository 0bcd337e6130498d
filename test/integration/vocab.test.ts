// GET /vocab/<scheme> and /vocab/<scheme>/<code>: the agency's code lists as SKOS, negotiated as
// the institutions' documents are (303 by Accept, 406 listing the documents), every RDF format the
// same graph as the committed list's, and a page with both labels.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import request from 'supertest';
import type { Express } from 'express';
import { Parser, type Quad } from 'n3';
import { CODE_LISTS_FILE, SKOS } from '../../src/rdf/codeLists';
import { RDF_FORMATS } from '../../src/rdf/formats';
import { BASE, buildApp, parseJsonLd, parseRdfXml, parseTurtle, sameGraph } from '../support';

const LIST = new Parser({ baseIRI: `${BASE}/vocab/` }).parse(
  fs.readFileSync(CODE_LISTS_FILE, 'utf8'),
);
const CONCEPT = `${BASE}/vocab/institution-types/85`;
const about = (iri: string) => LIST.filter((q) => q.subject.value === iri);

async function parsed(ext: string, text: string): Promise<Quad[]> {
  if (ext === 'rdf') return parseRdfXml(text);
  if (ext === 'jsonld') return parseJsonLd(text);
  return parseTurtle(text, ext === 'nt' || ext === 'nq' ? 'application/n-triples' : 'text/turtle');
}

describe('GET /vocab/…', () => {
  let app: Express;
  before(async () => {
    app = (await buildApp()).app;
  });

  for (const [accept, ext] of [
    ['text/turtle', 'ttl'],
    ['application/rdf+xml', 'rdf'],
    ['application/ld+json', 'jsonld'],
    ['application/n-triples', 'nt'],
    ['text/html', 'html'],
    [undefined, 'html'],
  ] as const)
    it(`a concept with Accept ${accept ?? '(none)'} is 303 to its .${ext}`, async () => {
      const res = await request(app)
        .get('/vocab/institution-types/85')
        .set(accept ? { Accept: accept } : {});
      assert.equal(res.status, 303);
      assert.equal(res.headers.location, `/vocab/institution-types/85.${ext}`);
      assert.equal(res.headers.vary, 'Accept');
    });

  it('an Accept no document matches is 406 listing them', async () => {
    const res = await request(app).get('/vocab/funders').set('Accept', 'image/png');
    assert.equal(res.status, 406);
    assert.match(res.text, /\/vocab\/funders\.ttl/);
  });
  it('an unknown code is 404 naming the lists', async () => {
    const res = await request(app).get('/vocab/institution-types/77.ttl');
    assert.equal(res.status, 404);
    assert.match(res.text, /\/vocab\/institution-types, \/vocab\/funders/);
  });
  it('an unknown extension is 404', async () =>
    assert.equal((await request(app).get('/vocab/status/H.png')).status, 404));

  describe('a concept, in every RDF format', () => {
    const expected = [
      ...about(CONCEPT),
      ...about(`${BASE}/vocab/institution-types`).filter(
        (q) => q.predicate.value !== `${SKOS}hasTopConcept`,
      ),
    ];
    for (const format of RDF_FORMATS)
      it(`.${format.ext} is its triples and its scheme's, as the list holds them`, async () => {
        const res = await request(app).get(`/vocab/institution-types/85.${format.ext}`);
        assert.equal(res.status, 200);
        assert.equal(res.headers['content-type'], format.contentType);
        assert.ok(sameGraph(await parsed(format.ext, res.text), expected));
      });
  });

  it('a scheme is its triples and all its concepts', async () => {
    const res = await request(app).get('/vocab/stock-sizes.ttl');
    const scheme = `${BASE}/vocab/stock-sizes`;
    const concepts = LIST.filter((q) => q.subject.value.startsWith(`${scheme}/`));
    assert.ok(sameGraph(parseTurtle(res.text), [...about(scheme), ...concepts]));
  });
  it('a document has validators and answers 304 to them', async () => {
    const res = await request(app).get('/vocab/status.nt').set('Accept-Encoding', 'identity');
    assert.match(res.headers.etag!, /^"[A-Za-z0-9_-]{27}"$/);
    const again = await request(app)
      .get('/vocab/status.nt')
      .set('Accept-Encoding', 'identity')
      .set('If-None-Match', res.headers.etag!);
    assert.equal(again.status, 304);
  });
  it('a document links its other formats', async () => {
    const res = await request(app).get('/vocab/status/I.ttl');
    assert.match(
      res.headers.link!,
      /<\/vocab\/status\/I\.rdf>; rel="alternate"; type="application\/rdf\+xml"/,
    );
  });

  describe('the page', () => {
    let res: request.Response;
    before(async () => {
      res = await request(app).get('/vocab/institution-types.html?lang=en');
    });
    it('is HTML in the language asked for', () => {
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-language'], 'en');
    });
    it('lists every code with its German and English label', () => {
      assert.match(res.text, /<td lang="de">Gedenkstätte<\/td><td lang="en">Memorial<\/td>/);
      assert.match(res.text, /<td lang="de">Sammlung<\/td><td lang="en">Collection<\/td>/);
    });
    it('a code has a page of its own', async () => {
      const one = await request(app).get('/vocab/institution-types/83.html');
      assert.match(one.text, /<h1>Gedenkstätte \(83\)<\/h1>/);
    });
  });
});
