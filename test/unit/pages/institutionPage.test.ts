// The institution page's list of versions (src/pages/institutionPage.ts): the newest few, newest first, and
// the TimeMap for the rest, so that an ISIL with thousands of versions does not make a page of them.
import assert from 'node:assert/strict';
import { readDescription } from '../../../src/history/text';
import {
  listedVersions,
  renderPage,
  VERSIONS_SHOWN,
  type PageOptions,
} from '../../../src/pages/institutionPage';
import type { Institution } from '../../../src/store/dataset';
import type { Isil } from '../../../src/rdf/isil';

const BASE = 'https://ld.zdb-services.de';
const ISIL = 'DE-Test1' as Isil;
const IRI = `${BASE}/resource/organisations/${ISIL}`;
const DAY = 86_400;
const T0 = Date.UTC(2020, 0, 1) / 1000;

function page(count: number, asOf?: number): string {
  const description = readDescription(
    IRI,
    `<${IRI}> <http://xmlns.com/foaf/0.1/name> "Testbibliothek" .\n`,
  );
  const institution: Institution = { isil: ISIL, iri: IRI, name: undefined, modified: undefined };
  const options: PageOptions = {
    language: { lang: 'de', explicit: false },
    mapTiles: '',
    mapAttribution: '',
    predecessors: [],
    baseIri: BASE,
    versions: Array.from({ length: count }, (_, i) => ({
      time: T0 + i * DAY,
      href: `/memento/v${i}/isil/${ISIL}`,
    })),
    ...(asOf === undefined ? {} : { asOf: { time: asOf, current: `/isil/${ISIL}` } }),
  };
  return renderPage(description, institution, '{}', options);
}

/** The datetimes the list of versions shows, in its order. */
const listed = (html: string) =>
  [...html.matchAll(/<li>(?:<a [^>]*>)?<time datetime="([^"]+)">/g)].map((m) => m[1]);
const day = (i: number) => new Date((T0 + i * DAY) * 1000).toISOString().replace('.000', '');

describe('the page’s list of versions', () => {
  it('lists every version, newest first, when they are few, and no TimeMap link', () => {
    const html = page(3);
    assert.deepEqual(listed(html), [day(2), day(1), day(0)]);
    assert.doesNotMatch(html, /\/timemap\//);
  });
  it(`lists the newest ${VERSIONS_SHOWN} of many, and links the page’s TimeMap for all`, () => {
    const count = 1000;
    const html = page(count);
    assert.deepEqual(
      listed(html),
      Array.from({ length: VERSIONS_SHOWN }, (_, i) => day(count - 1 - i)),
    );
    assert.match(
      html,
      new RegExp(
        `<a href="/timemap/isil/${ISIL}" type="application/link-format">Alle 1\\.000 Versionen \\(TimeMap\\)</a>`,
      ),
    );
  });
  it('marks the version a memento shows, without a link to itself', () => {
    const html = page(30, T0 + 25 * DAY);
    assert.match(html, new RegExp(`<li><time datetime="${day(25)}">`));
    assert.doesNotMatch(html, /href="\/memento\/v25\//);
  });
  it('is given links for the versions it lists only, and how many there are', () => {
    const mementos = Array.from({ length: 10_000 }, (_, i) => ({ time: T0 + i * DAY }));
    const listed = listedVersions(mementos, `/isil/${ISIL}`);
    assert.equal(listed.versionCount, 10_000);
    assert.deepEqual(
      listed.versions!.map((v) => v.time),
      mementos.slice(-VERSIONS_SHOWN).map((m) => m.time),
    );
    assert.match(listed.versions!.at(-1)!.href, new RegExp(`^/memento/\\d{14}/isil/${ISIL}$`));
  });
  it('says how many versions there are when it is given the newest only', () => {
    const description = readDescription(IRI, `<${IRI}> <http://xmlns.com/foaf/0.1/name> "T" .\n`);
    const institution: Institution = { isil: ISIL, iri: IRI, name: undefined, modified: undefined };
    const html = renderPage(description, institution, '{}', {
      language: { lang: 'en', explicit: false },
      mapTiles: '',
      mapAttribution: '',
      predecessors: [],
      baseIri: BASE,
      ...listedVersions(
        Array.from({ length: 10_002 }, (_, i) => ({ time: T0 + i * DAY })),
        `/isil/${ISIL}`,
      ),
    });
    assert.equal(listed(html).length, VERSIONS_SHOWN);
    assert.match(html, />All 10,002 versions \(TimeMap\)</);
  });
  it('writes dates in the page’s language', () => {
    assert.match(page(1), /1\. Januar 2020/);
  });
});
