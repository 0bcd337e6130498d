// The HTML page: what a person needs, grouped, in German or English, every value from
// the data escaped, and the JSON-LD embedded (the document's, and schema.org's for search engines).
import assert from 'node:assert/strict';
import path from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { buildApp, DE_1A_RDF, FIXTURES, needsThirdParty } from '../support';

/** The JSON-LD blocks of a page. */
function scripts(html: string): string[] {
  return [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map(
    (m) => m[1]!,
  );
}

/** Every script element of a page, inline or not. */
function scriptElements(html: string): string[] {
  return [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
}

describe('HTML page /isil/<isil>', () => {
  before(needsThirdParty);
  let app: Express;
  let html: string;
  before(async () => {
    app = (await buildApp([DE_1A_RDF, path.join(FIXTURES, 'test', 'hostile-page.ttl')])).app;
    html = (await request(app).get('/isil/DE-1a?lang=en')).text;
  });

  const shows: [string, RegExp][] = [
    [
      'the name as heading',
      /<h1 lang="de">Staatsbibliothek zu Berlin - Preußischer Kulturbesitz, Haus Potsdamer Straße<\/h1>/,
    ],
    ['the short name', /Berlin SBB Haus Potsdamer Str/],
    ['the ISIL', /<code>DE-1a<\/code>/],
    ['the main address', /Potsdamer Str\. 33<br>10785 Berlin/],
    ['the postal address', /Postal address<\/strong><address lang="de">10772 Berlin/],
    ['the visiting address', /Visiting address<\/strong><address lang="de">Potsdamer Str\. 33/],
    ['the coordinates', /52\.50771, 13\.37063/],
    ['the opening hours', /Mo-Sa 8\.00-22\.00/],
    ['the main phone', /Phone \(main\): <a href="tel:\+49302664338 ?88">\+49 30 2 66-433888<\/a>/],
    // A fax number is no `tel:` link: a phone cannot call it.
    ['the fax, as text', /<li>Fax \(main\): \+49 30 2 66-333501<\/li>/],
    ['an e-mail link', /<a href="mailto:info@sbb\.spk-berlin\.de">info@sbb\.spk-berlin\.de<\/a>/],
    ['the homepage', /Homepage: <a href="http:\/\/www\.staatsbibliothek-berlin\.de">/],
    [
      'the map, with the coordinates',
      /<div id="map"[^>]* data-lat="52\.50771" data-lon="13\.37063"/,
    ],
    ['the link to lobid', /lobid: <a href="http:\/\/lobid\.org\/organisation\/DE-1a">/],
    ['the date, for people', /Record last modified on 15 December 2021\./],
    [
      'a web link with its label',
      /<a href="https:\/\/staatsbibliothek-berlin\.de\/vor-ort\/opening-hours\/" lang="de">Öffnungszeiten besonderer Bereiche<\/a>/,
    ],
    ['the catalogue', /Catalogue: <a href="http:\/\/stabikat\.de">/],
    ['the description', /UNO- und UNESCO-Depositärbibliothek/],
    [
      'the licence',
      /<a rel="license" href="http:\/\/creativecommons\.org\/publicdomain\/zero\/1\.0\/">CC0 1\.0 Universal<\/a>/,
    ],
  ];
  for (const [what, pattern] of shows) it(`shows ${what}`, () => assert.match(html, pattern));

  for (const [ext, type] of [
    ['rdf', 'application/rdf+xml'],
    ['ttl', 'text/turtle'],
    ['jsonld', 'application/ld+json'],
    ['nt', 'application/n-triples'],
  ]) {
    it(`links to the ${ext} document, and names it as alternate`, () => {
      assert.ok(
        html.includes(
          `<link rel="alternate" type="${type}" href="/data/organisations/DE-1a.${ext}">`,
        ),
      );
      assert.ok(html.includes(`<a href="/data/organisations/DE-1a.${ext}" type="${type}">`));
    });
  }

  it('embeds the JSON-LD document, the same as /data/…jsonld, and schema.org for search engines', async () => {
    const embedded = scripts(html).map((s) => s.trim());
    assert.equal(embedded.length, 2);
    const served = JSON.parse((await request(app).get('/data/organisations/DE-1a.jsonld')).text);
    assert.deepEqual(JSON.parse(embedded[0]!), served);
    const org = JSON.parse(embedded[1]!);
    assert.equal(org['@context'], 'https://schema.org');
    assert.equal(org['@type'], 'Organization', 'the data names no kind of institution');
    assert.equal(org.identifier.value, 'DE-1a');
    assert.equal(org.address.postalCode, '10785');
    assert.equal(org.geo.latitude, 52.50771);
  });

  it('answers in German by default and in English when asked, each with its own ETag', async () => {
    const de = await request(app).get('/isil/DE-1a').expect(200);
    assert.match(de.text, /<html lang="de">/);
    assert.match(de.text, /Besuchsadresse/);
    assert.match(de.text, /Datensatz zuletzt geändert am 15\. Dezember 2021/);
    assert.equal(de.headers['content-language'], 'de');
    assert.equal(de.headers.vary, 'Accept-Encoding, Accept-Language, Accept-Profile');
    const en = await request(app).get('/isil/DE-1a').set('Accept-Language', 'en').expect(200);
    assert.match(en.text, /<html lang="en">/);
    assert.notEqual(en.headers.etag, de.headers.etag);
    await request(app).get('/isil/DE-1a').set('If-None-Match', de.headers.etag!).expect(304);
    await request(app)
      .get('/isil/DE-1a')
      .set('Accept-Language', 'en')
      .set('If-None-Match', de.headers.etag!)
      .expect(200);
    // The RDF documents stay as the source has them: no language tag is added to the data.
    const ttl = await request(app).get('/data/organisations/DE-1a.ttl').expect(200);
    assert.doesNotMatch(ttl.text, /"@de/);
    assert.equal(ttl.headers.vary, 'Accept-Encoding, Accept-Profile');
  });

  describe('data that tries to inject markup', () => {
    let hostile: string;
    before(async () => {
      const res = await request(app).get('/isil/DE-X1');
      assert.equal(res.status, 200);
      hostile = res.text;
    });
    it("has no script element but its own: the two JSON-LD blocks and the service's files", () => {
      assert.equal(scripts(hostile).length, 2);
      for (const element of scriptElements(hostile))
        assert.match(
          element,
          /^<script (type="application\/ld\+json"|src="\/assets\/[\w./-]+\.js" defer)>$/,
        );
    });
    it('the embedded JSON-LD still parses and holds the raw name', () => {
      const doc = JSON.parse(scripts(hostile)[0]!);
      assert.equal(doc.name, `<script>alert('name')</script> Bibliothek & "Archiv"`);
    });
    it('escapes the name', () =>
      assert.ok(
        hostile.includes(
          '<h1 lang="de">&#60;script&#62;alert(&#39;name&#39;)&#60;/script&#62; Bibliothek &#38; &#34;Archiv&#34;</h1>',
        ),
      ));
    it('no event-handler attribute comes from the data', () =>
      assert.ok(!/<[^>]+\son\w+=/i.test(hostile.replace(/<script[\s\S]*?<\/script>/, ''))));
    it("marks each value with its literal language, or as German, the source's; the page in its own", () => {
      assert.match(hostile, /^<!DOCTYPE html>\n<html lang="de">/);
      assert.ok(hostile.includes('<p lang="fr-ca">Bibliothèque &#38; archives</p>'));
      assert.ok(
        hostile.includes('<p lang="de">&#60;img src=x onerror=alert(2)&#62;</p>'),
        'no tag: the agency writes German',
      );
    });
    it('a javascript: URL is shown as text, never as a link', () => {
      assert.ok(!hostile.includes('href="javascript:'));
      assert.ok(hostile.includes('javascript:alert(3)'));
    });
  });
});
