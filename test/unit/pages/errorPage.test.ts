// The error pages and the withdrawn ISIL's page: pages of the site, in German or English, each
// status named in the page's language, and a 410's links to the ISIL's past.
import assert from 'node:assert/strict';
import { errorPage, statusTitle, type Past } from '../../../src/pages/errorPage';
import { withdrawnPage } from '../../../src/pages/withdrawnPage';
import type { Isil } from '../../../src/rdf/isil';

const PAST: Past = {
  timemap: '/timemap/isil/DE-W1',
  latest: '/memento/20231114221320/isil/DE-W1',
  latestTime: new Date(1_700_000_000_000),
};
const de = { lang: 'de', explicit: false } as const;
const en = { lang: 'en', explicit: true } as const;

describe('errorPage', () => {
  it('names each status in the page’s language, and an unlisted one by its class', () => {
    assert.equal(statusTitle(404, 'de'), 'Nicht gefunden');
    assert.equal(statusTitle(404, 'en'), 'Not Found');
    assert.equal(statusTitle(418, 'en'), 'Client Error');
    assert.equal(statusTitle(502, 'de'), 'Fehler des Dienstes');
  });

  it('is in the site’s frame, with its header, search box and way home', () => {
    const page = errorPage({ status: 404, message: 'No such resource.', links: [] }, de, '/x');
    assert.match(page, /^<!DOCTYPE html>\n<html lang="de">/);
    assert.match(page, /<header class="site">/);
    assert.match(page, /<form class="lookup" role="search"/);
    assert.match(page, /<a href="\/">Zur Startseite<\/a>/);
    assert.match(page, /<span lang="en">No such resource\.<\/span>/);
  });

  it('says a deleted ISIL’s 410 in the page’s language, and links its past', () => {
    const page = errorPage(
      {
        status: 410,
        message: 'The ISIL DE-W1 is no longer in this dataset.',
        links: [],
        about: { kind: 'deleted', isil: 'DE-W1' },
        past: PAST,
      },
      en,
      '/isil/DE-W1',
    );
    assert.match(page, /Gone <small>\(410\)<\/small>/);
    assert.match(page, /The ISIL <code>DE-W1<\/code> is no longer in this dataset\./);
    assert.ok(page.includes(`<a href="${PAST.latest}">the last, of 14 November 2023</a>`));
    assert.ok(page.includes(`<a href="${PAST.timemap}" type="application/link-format">`));
    // `lang` was named: the way home keeps it, the switch leads to the other language.
    assert.ok(page.includes('<a href="/?lang=en">Home page</a>'));
    assert.ok(page.includes('href="/isil/DE-W1?lang=de"'));
  });

  it('escapes what the request brought', () => {
    const page = errorPage(
      { status: 404, message: '"<b>" is not a well-formed ISIL.', links: [] },
      en,
      '/resource/organisations/<b>',
    );
    assert.ok(!page.includes('<b>'));
  });
});

describe('withdrawnPage', () => {
  const withdrawn = {
    isil: 'DE-W1' as Isil,
    iri: 'https://ld.zdb-services.de/resource/organisations/DE-W1',
    name: 'Alte Bücherei',
    successor: { kind: 'none' as const },
  };
  it('links the ISIL’s last memento and its TimeMap where it has a past', () => {
    const page = withdrawnPage(withdrawn, de, PAST);
    assert.match(page, /Frühere Versionen sind weiter lesbar/);
    assert.ok(page.includes(`<a href="${PAST.latest}">die letzte, vom 14. November 2023</a>`));
    assert.ok(page.includes(`<a href="${PAST.timemap}"`));
  });
  it('links none without one', () => {
    assert.doesNotMatch(withdrawnPage(withdrawn, de), /Frühere Versionen/);
  });
});
