// The pages for people, in German and English: the language chosen by `lang`, else by
// Accept-Language; Vary and an ETag per language; the language switch; links that keep `lang`.
import assert from 'node:assert/strict';
import request from 'supertest';
import type { Express } from 'express';
import { acceptLanguage } from '../../src/pages/language';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { buildApp, needsThirdParty, PUBLIC } from '../support';

describe('pages in German and English', () => {
  before(needsThirdParty);
  let app: Express;
  before(async () => {
    ({ app } = await buildApp(BUNDLED_DATASET));
  });

  it('reads Accept-Language by q-value, German when it names neither', () => {
    assert.equal(acceptLanguage(undefined), 'de');
    assert.equal(acceptLanguage('en-GB,en;q=0.9'), 'en');
    assert.equal(acceptLanguage('fr, en;q=0.5, de;q=0.8'), 'de');
    assert.equal(acceptLanguage('fr, en;q=0.5'), 'en');
    assert.equal(acceptLanguage('fr'), 'de');
    assert.equal(acceptLanguage('en;q=0, de;q=0'), 'de');
    assert.equal(acceptLanguage('*;q=0.1,en-US'), 'en');
    assert.equal(acceptLanguage('de;q=abc, en;q=0.4'), 'en');
  });

  it('answers the home page in the language asked for, with a language switch and an ETag each', async () => {
    const de = await request(app).get('/').expect(200);
    assert.match(de.text, /<html lang="de">/);
    assert.equal(de.headers['content-language'], 'de');
    assert.match(de.headers.vary!, /Accept-Language/);
    assert.match(de.text, /Einrichtungen/);
    const en = await request(app).get('/').set('Accept-Language', 'en-US,en;q=0.8').expect(200);
    assert.match(en.text, /<html lang="en">/);
    assert.match(en.text, /institutions/);
    assert.notEqual(en.headers.etag, de.headers.etag);
    const named = await request(app).get('/?lang=en').set('Accept-Language', 'de').expect(200);
    assert.match(named.text, /<html lang="en">/);
    assert.match(named.text, /href="\/\?lang=de" hreflang="de" lang="de"/);
    assert.match(
      named.text,
      /<input type="hidden" name="lang" value="en">/,
      'the lookup keeps the language',
    );
    await request(app).get('/').set('If-None-Match', de.headers.etag!).expect(304);
    await request(app).get('/').set('If-Modified-Since', new Date().toUTCString()).expect(200);
    await request(app).get('/?lang=en').set('If-None-Match', de.headers.etag!).expect(200);
  });

  it('shows the lookup box, the counts, an example with an address and the ways in for machines', async () => {
    const res = await request(app).get('/?lang=en').expect(200);
    assert.match(
      res.text,
      /<input id="home-q" name="q" type="search"[^>]*data-suggest="\/search\/suggest"/,
    );
    assert.match(
      res.text,
      /For example: <a href="\/isil\/DE-1a\?lang=en" lang="de">Staatsbibliothek zu Berlin/,
    );
    assert.match(
      res.text,
      /ISIL <code>DE-1a<\/code>, <span lang="de">\d{5} Berlin<\/span>|ISIL <code>DE-1a<\/code>\)/,
    );
    for (const href of [
      '/.well-known/void',
      '/dumps/',
      '/sitemap.xml',
      '/reconcile',
      '/oai?verb=Identify',
    ])
      assert.ok(res.text.includes(`href="${href}"`), href);
    assert.match(res.text, /<link rel="stylesheet" href="\/assets\/site.css">/);
    assert.doesNotMatch(
      res.text,
      /(src|href)="(https?:)?\/\/(?!creativecommons\.org)/,
      'no asset from another host',
    );
  });

  it('links its icon from every page; the icon is served from /assets, an image the policy allows', async () => {
    const icon = '<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">';
    for (const url of [
      '/?lang=en',
      '/isil/DE-1a',
      '/search?q=Berlin',
      '/dumps/',
      '/isil/XX-NOPE',
      '/reconcile/preview?id=DE-1a',
    ]) {
      const res = await request(app).get(url).set('Accept', 'text/html');
      assert.ok(res.text.includes(icon), url);
      assert.match(res.headers['content-security-policy']!, /img-src 'self'/, url);
    }
    const svg = await request(app).get('/assets/favicon.svg').expect(200);
    assert.equal(svg.headers['content-type'], 'image/svg+xml');
    const text = String(svg.body);
    assert.match(text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 32 32">/);
    // Drawn here: it loads nothing and runs nothing.
    assert.doesNotMatch(text, /<script|href|url\(|on\w+=/i);
  });

  it("lists on a successor's page the ISILs it replaced, and its ETag changes with them", async () => {
    const page = await request(app).get('/isil/DE-1a?lang=en').expect(200);
    assert.match(page.text, /<dt>Formerly<\/dt><dd><code>DE-He201<\/code>/);
    assert.match(page.text, /<dt>Sigel<\/dt><dd><code>1a<\/code>/);
    // The contacts grouped by the functions of the agency's record (035B $b, $l), each once: the
    // vCard's numbers and the contact functions' were listed twice, a fax as a `tel:` link.
    assert.doesNotMatch(page.text, /Contact functions/);
    assert.match(
      page.text,
      /<li><strong lang="de">Gebende Fernleihe<\/strong>: Fax: \+49 30 2 66-338432, Phone: <a href="tel:\+4930266433640">/,
    );
    assert.match(
      page.text,
      /<li><strong lang="de">Auskunft<\/strong>: Phone \(main\): <a href="tel:\+4930266433888">/,
    );
    const main = /<main id="main">([\s\S]*)<\/main>/.exec(page.text)![1]!;
    for (const contact of [
      '+49 30 2 66-433640',
      '+49 30 2 66-338432',
      '+49 30 2 66-433888',
      '>Fernleihe1@sbb.spk-berlin.de<',
    ])
      assert.equal(main.split(contact).length - 1, 1, contact);
    assert.doesNotMatch(page.text, /Fax( \(main\))?: <a/);
    const org = JSON.parse(
      [...page.text.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)][1]![1]!,
    );
    assert.ok(org.contactPoint.some((p: { contactType: string }) => p.contactType === 'Auskunft'));
    // The agency's type (035E $f 11), named and linked to its code list's page; a library for
    // search engines too.
    assert.match(
      page.text,
      /<dt>Type<\/dt><dd><a href="\/vocab\/institution-types\/11\.html\?lang=en">National Library<\/a>/,
    );
    assert.equal(org['@type'], 'Library');
    // A museum's ISIL whose name-only record says no more: a museum for search engines.
    const museum = await request(app).get('/isil/DE-MUS-815718?lang=en').expect(200);
    const museumOrg = JSON.parse(
      [
        ...museum.text.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g),
      ][1]![1]!,
    );
    assert.equal(museumOrg['@type'], 'Museum');
    const de = await request(app).get('/isil/DE-1a').expect(200);
    assert.match(de.text, /<dt>Früher<\/dt><dd><code>DE-He201<\/code>/);
    // The same description of DE-1a without the redirect list: nothing replaced, another ETag.
    const [, redirects, rdf] = BUNDLED_DATASET;
    const { app: withList } = await buildApp([redirects!, rdf!]);
    const { app: without } = await buildApp([rdf!]);
    const a = await request(withList).get('/isil/DE-1a').expect(200);
    const b = await request(without).get('/isil/DE-1a').expect(200);
    assert.match(a.text, /DE-He201/);
    assert.doesNotMatch(b.text, /DE-He201/);
    assert.notEqual(a.headers.etag, b.headers.etag);
    // The retired ISIL itself leads to its successor.
    const old = await request(app).get('/isil/DE-He201').set('Accept', 'text/html').expect(301);
    assert.equal(old.headers.location, `${PUBLIC}/isil/DE-1a`);
  });
});
