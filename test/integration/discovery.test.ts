// Discovery for machines: VoID at /.well-known/void, robots.txt, and the sitemap, on the
// bundled dataset; the VoID read back with a Turtle parser, the sitemap with an XML parser.
import assert from 'node:assert/strict';
import request from 'supertest';
import { SaxesParser } from 'saxes';
import express, { type Express } from 'express';
import { sitemap, sitemaps } from '../../src/http/discovery';
import { useOriginSettings } from '../../src/http/publicOrigin';
import type { Service } from '../../src/documents/service';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { BASE, buildApp, parseTurtle, needsThirdParty, PUBLIC } from '../support';

const VOID = 'http://rdfs.org/ns/void#';

/** The text of each element named `name` in an XML document (which must be well-formed). */
function elements(xml: string, name: string): string[] {
  const parser = new SaxesParser({ xmlns: true });
  const found: string[] = [];
  let inside = false;
  let text = '';
  parser.on('opentag', (tag) => {
    if (tag.local === name) {
      inside = true;
      text = '';
    }
  });
  parser.on('text', (t) => {
    if (inside) text += t;
  });
  parser.on('closetag', (tag) => {
    if (tag.local === name) {
      inside = false;
      found.push(text);
    }
  });
  parser.write(xml).close();
  return found;
}

describe('discovery: VoID, robots.txt, sitemap', () => {
  before(needsThirdParty);
  let app: Express;
  let service: Service;
  before(async () => {
    ({ app, service } = await buildApp(BUNDLED_DATASET));
  });

  it('describes the dataset in VoID: licence, counts, URI space, vocabularies, version', async () => {
    const res = await request(app).get('/.well-known/void').expect(200);
    assert.equal(res.headers['content-type'], 'text/turtle;charset=UTF-8');
    const quads = parseTurtle(res.text);
    const dataset = service.current!.dataset;
    const ds = `${BASE}/.well-known/void#dataset`;
    const of = (p: string) =>
      quads
        .filter((q) => q.subject.value === ds && q.predicate.value === p)
        .map((q) => q.object.value);
    assert.deepEqual(of('http://www.w3.org/1999/02/22-rdf-syntax-ns#type'), [`${VOID}Dataset`]);
    assert.deepEqual(of('http://purl.org/dc/terms/license'), [
      'http://creativecommons.org/publicdomain/zero/1.0/',
    ]);
    assert.deepEqual(of(`${VOID}triples`), [String(dataset.tripleCount)]);
    assert.deepEqual(of(`${VOID}entities`), [String(dataset.institutionCount)]);
    assert.deepEqual(of(`${VOID}uriSpace`), [`${BASE}/resource/organisations/`]);
    // What a client fetches is on the origin it asked (PUBLIC_URL), the identifiers under BASE_IRI.
    assert.deepEqual(of(`${VOID}uriLookupEndpoint`), [`${PUBLIC}/search?q=`]);
    assert.deepEqual(of('http://purl.org/dc/terms/hasVersion'), [dataset.version]);
    assert.ok(of(`${VOID}vocabulary`).includes('http://xmlns.com/foaf/0.1/'));
    assert.ok(of(`${VOID}vocabulary`).includes('http://www.w3.org/2006/vcard/ns#'));
    assert.equal(of(`${VOID}exampleResource`).length, 1);
    // Every format a document is served in (HTTP contract §3).
    assert.deepEqual(
      of(`${VOID}feature`).sort(),
      ['JSON-LD', 'N-Quads', 'N-Triples', 'N3', 'RDF_XML', 'TriG', 'Turtle'].map(
        (f) => `http://www.w3.org/ns/formats/${f}`,
      ),
    );
    assert.deepEqual(
      of(`${VOID}sparqlEndpoint`),
      [],
      'the staff endpoint is not open to the public',
    );
    assert.ok(of('http://www.w3.org/2000/01/rdf-schema#seeAlso').includes(`${PUBLIC}/oai`));
    assert.ok(
      quads.some(
        (q) =>
          q.subject.value === `${PUBLIC}/oai` &&
          q.predicate.value === 'http://purl.org/dc/terms/conformsTo' &&
          q.object.value === 'http://www.openarchives.org/OAI/2.0/openarchivesprotocol.htm',
      ),
      'the OAI-PMH provider is named by its protocol',
    );
    assert.equal(res.headers['dataset-version'], dataset.version);
    await request(app).get('/.well-known/void').set('If-None-Match', res.headers.etag!).expect(304);
  });

  it('points robots to the sitemap, and keeps them out of search and the endpoints', async () => {
    const res = await request(app).get('/robots.txt').expect(200);
    assert.match(res.headers['content-type']!, /^text\/plain/);
    assert.match(res.text, new RegExp(`^Sitemap: ${PUBLIC}/sitemap.xml$`, 'm'));
    assert.match(res.text, /^Disallow: \/search$/m);
    assert.match(res.text, /^Disallow: \/sparql$/m);
  });

  it('lists every live institution once in sitemap files of at most 50,000 URLs, with lastmod', async () => {
    const index = await request(app).get('/sitemap.xml').expect(200);
    assert.match(index.headers['content-type']!, /^application\/xml/);
    const files = elements(index.text, 'loc');
    assert.deepEqual(files, [`${PUBLIC}/sitemaps/1.xml`]);
    const file = await request(app).get('/sitemaps/1.xml').expect(200);
    const urls = elements(file.text, 'loc');
    const institutions = [...service.current!.dataset.institutions()];
    assert.equal(urls.length, institutions.length);
    assert.ok(urls.length <= 50_000);
    assert.equal(new Set(urls).size, urls.length);
    assert.ok(urls.includes(`${PUBLIC}/isil/DE-1a`));
    const lastmods = elements(file.text, 'lastmod');
    // Every institution has a last event (docs/history.md): each URL has its lastmod.
    assert.equal(lastmods.length, institutions.length);
    assert.ok(lastmods.length > 0 && lastmods.every((d) => !Number.isNaN(Date.parse(d))));
    for (const bad of [
      '/sitemaps/2.xml',
      '/sitemaps/0.xml',
      '/sitemaps/1.xml.gz',
      '/sitemaps/..%2f1.xml',
      '/sitemaps/',
    ])
      await request(app).get(bad).expect(404);
  });

  it('splits a longer list into several files, every institution in exactly one', async () => {
    const deps = { service, config: service.config };
    const small = express();
    useOriginSettings(small, service.config);
    small.use((_req, res, next) => {
      res.locals.requestId = 'test';
      next();
    });
    small.get('/sitemap.xml', sitemap(deps, 5000));
    small.use('/sitemaps', sitemaps(deps, 5000));
    const index = await request(small).get('/sitemap.xml').expect(200);
    const files = elements(index.text, 'loc');
    const count = service.current!.dataset.institutionCount;
    assert.equal(files.length, Math.ceil(count / 5000));
    const all: string[] = [];
    for (const file of files) {
      const urls = elements(
        (await request(small).get(new URL(file).pathname).expect(200)).text,
        'loc',
      );
      assert.ok(urls.length <= 5000);
      all.push(...urls);
    }
    assert.equal(all.length, count);
    assert.equal(new Set(all).size, count);
  });
});
