// The HTML page: what a person needs, every value from the data escaped, and the JSON-LD embedded.
import assert from 'node:assert/strict';
import path from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { buildApp, FIXTURES } from '../support';

function scripts(html: string): string[] {
  return [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
}

describe('HTML page /isil/<isil>', () => {
  let app: Express;
  let html: string;
  before(async () => {
    app = (
      await buildApp([
        path.join(FIXTURES, 'bundled'),
        path.join(FIXTURES, 'test', 'hostile-page.ttl'),
      ])
    ).app;
    html = (await request(app).get('/isil/DE-1a')).text;
  });

  const shows: [string, RegExp][] = [
    [
      'the name as heading',
      /<h1 lang="">Staatsbibliothek zu Berlin - Preußischer Kulturbesitz, Haus Potsdamer Straße<\/h1>/,
    ],
    ['the short name', /Berlin SBB Haus Potsdamer Str/],
    ['the ISIL', /<code>DE-1a<\/code>/],
    ['the main address', /Potsdamer Str\. 33<br>10785 Berlin/],
    ['the postal address', /Postal address<\/strong><address lang="">10772 Berlin/],
    ['the coordinates', /52\.50771, 13\.37063/],
    ['the opening hours', /Mo-Sa 8\.00-22\.00/],
    ['the main phone', /Phone \(main\): <a href="tel:\+49302664338 ?88">\+49 30 2 66-433888<\/a>/],
    ['the fax', /Fax \(main\): <a href="tel:[^"]+">\+49 30 2 66-333501<\/a>/],
    ['an e-mail link', /<a href="mailto:info@sbb\.spk-berlin\.de">info@sbb\.spk-berlin\.de<\/a>/],
    ['the homepage', /Homepage: <a href="http:\/\/www\.staatsbibliothek-berlin\.de">/],
    [
      'a web link with its label',
      /<a href="https:\/\/staatsbibliothek-berlin\.de\/vor-ort\/opening-hours\/" lang="">Öffnungszeiten besonderer Bereiche<\/a>/,
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

  it('embeds the JSON-LD document, the same as /data/…jsonld', async () => {
    const embedded = scripts(html).map((s) => s.trim());
    assert.equal(embedded.length, 1);
    const served = JSON.parse((await request(app).get('/data/organisations/DE-1a.jsonld')).text);
    assert.deepEqual(JSON.parse(embedded[0]!), served);
  });

  describe('data that tries to inject markup', () => {
    let hostile: string;
    before(async () => {
      const res = await request(app).get('/isil/DE-X1');
      assert.equal(res.status, 200);
      hostile = res.text;
    });
    it('has exactly one script element: the JSON-LD', () => {
      assert.equal((hostile.match(/<script/g) ?? []).length, 1);
      assert.equal(scripts(hostile).length, 1);
    });
    it('the embedded JSON-LD still parses and holds the raw name', () => {
      const doc = JSON.parse(scripts(hostile)[0]!);
      assert.equal(doc.name, `<script>alert('name')</script> Bibliothek & "Archiv"`);
    });
    it('escapes the name', () =>
      assert.ok(
        hostile.includes(
          '<h1 lang="">&#60;script&#62;alert(&#39;name&#39;)&#60;/script&#62; Bibliothek &#38; &#34;Archiv&#34;</h1>',
        ),
      ));
    it('no event-handler attribute comes from the data', () =>
      assert.ok(!/<[^>]+\son\w+=/i.test(hostile.replace(/<script[\s\S]*?<\/script>/, ''))));
    it('marks each value with its literal language, or as unknown; the page itself is English', () => {
      assert.match(hostile, /^<!DOCTYPE html>\n<html lang="en">/);
      assert.ok(hostile.includes('<p lang="fr-ca">Bibliothèque &#38; archives</p>'));
      assert.ok(
        hostile.includes('<p lang="">&#60;img src=x onerror=alert(2)&#62;</p>'),
        'no tag: unknown',
      );
    });
    it('a javascript: URL is shown as text, never as a link', () => {
      assert.ok(!hostile.includes('href="javascript:'));
      assert.ok(hostile.includes('javascript:alert(3)'));
    });
  });
});
