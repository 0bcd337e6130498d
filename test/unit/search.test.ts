// The search's parts: German folding, the index (words, prefixes, typos, identifiers,
// facets, geo filters, paging) and autocomplete, over entries made for the purpose.
import assert from 'node:assert/strict';
import { Completion } from '../../src/search/completion';
import type { FlatRecord } from '../../src/record/flatRecord';
import { fold, words } from '../../src/search/fold';
import { distanceKm, SearchIndex } from '../../src/search/searchIndex';
import { entry } from '../support/flatRecords';

const ENTRIES: FlatRecord[] = [
  entry('DE-1a', 'Staatsbibliothek zu Berlin - Preußischer Kulturbesitz', {
    sigel: '1a',
    cities: ['Berlin'],
    postcodes: ['10785'],
    type: 'library',
    lat: 52.5079,
    lon: 13.3699,
    otherNames: ['SBB-PK'],
  }),
  entry('DE-12', 'Bayerische Staatsbibliothek', {
    sigel: '12',
    cities: ['München'],
    postcodes: ['80539'],
    type: 'library',
    lat: 48.1474,
    lon: 11.5806,
  }),
  entry('DE-Tue120', 'Deutsch-Amerikanisches Institut, Bibliothek', {
    sigel: 'Tü 120',
    cities: ['Tübingen'],
  }),
  entry('DE-MUS-815718', 'Museum für Naturkunde', {
    cities: ['Berlin'],
    type: 'museum',
    lat: 52.5302,
    lon: 13.3791,
  }),
  entry('DE-2051', 'Staatsarchiv München', { cities: ['München'], type: 'archive' }),
  entry('AT-OeNB', 'Österreichische Nationalbibliothek', { cities: ['Wien'], type: 'library' }),
  entry('DE-Mb50', 'Universitätsbibliothek Marburg', { cities: ['Marburg'] }),
];

describe('search', () => {
  describe('German folding', () => {
    it('meets umlauts and their ae/oe/ue spellings, ß and ss, case and accents in one form', () => {
      assert.equal(fold('München'), fold('MUENCHEN'));
      assert.equal(fold('Straße'), fold('strasse'));
      assert.equal(fold('Österreich'), 'oesterreich');
      assert.equal(fold('Île-de-France'), 'ile-de-france');
      // The agency's data is often NFD: a combining diaeresis folds like the composed letter.
      assert.equal(fold('Mu\u0308nchen'), fold('München'));
      assert.deepEqual(words('Staatsbibliothek zu Berlin - Preußischer'), [
        'staatsbibliothek',
        'zu',
        'berlin',
        'preussischer',
      ]);
    });

    it('measures distances on the sphere', () => {
      const berlinToMunich = distanceKm(
        { lat: 52.52, lon: 13.405 },
        { lat: 48.1374, lon: 11.5755 },
      );
      assert.ok(Math.abs(berlinToMunich - 504) < 5, String(berlinToMunich));
    });
  });

  describe('the index', () => {
    let index: SearchIndex;
    before(async () => {
      index = await SearchIndex.build('v1', ENTRIES);
    });
    const isils = (q: string, more = {}) =>
      index.search({ q, ...more }).hits.map((h) => h.entry.isil);

    it('finds by name, other names, ISIL, Sigel, city and postcode', () => {
      assert.equal(isils('Staatsbibliothek Berlin')[0], 'DE-1a');
      assert.equal(isils('SBB-PK')[0], 'DE-1a');
      assert.deepEqual(isils('DE-Tue120'), ['DE-Tue120']);
      assert.equal(isils('Tü 120')[0], 'DE-Tue120');
      assert.equal(isils('80539')[0], 'DE-12');
      assert.deepEqual(new Set(isils('Tübingen')), new Set(['DE-Tue120']));
    });

    it('finds identifiers and postcodes by their beginning from three characters, and an ISIL or Sigel typed whole first', () => {
      assert.deepEqual(isils('805'), ['DE-12'], 'a postcode by its beginning');
      assert.deepEqual(isils('80'), [], 'two characters find a code whole only');
      assert.deepEqual(isils('Tue12'), ['DE-Tue120'], "the ISIL's words by their beginning");
      // `de` is a word of six ISILs; `1a` of one: every word must match, and the ISIL comes first.
      assert.deepEqual(isils('DE-1a'), ['DE-1a']);
      assert.equal(isils('de').length, 6);
      // The Sigel typed whole, with its space, before an institution whose name holds its words.
      assert.equal(isils('1a')[0], 'DE-1a');
      // Codes and words together: the place's word and the postcode.
      assert.deepEqual(isils('München 80539'), ['DE-12']);
    });

    it('puts a postcode typed whole before an ISIL whose number it begins', async () => {
      const both = await SearchIndex.build('v2', [
        ...ENTRIES,
        entry('DE-MUS-107850', 'Heimatstube', { type: 'museum' }),
      ]);
      assert.deepEqual(
        both.search({ q: '10785' }).hits.map((h) => h.entry.isil),
        ['DE-1a', 'DE-MUS-107850'],
      );
    });

    it('folds the German way, matches prefixes and small typos', () => {
      assert.deepEqual(new Set(isils('Muenchen')), new Set(['DE-12', 'DE-2051']));
      assert.ok(isils('oesterreichische').includes('AT-OeNB'));
      assert.equal(isils('Staatsbib')[0]?.startsWith('DE-'), true);
      assert.ok(isils('Naturkunde').includes('DE-MUS-815718'));
      assert.ok(isils('Naturkunce').includes('DE-MUS-815718'), 'one typo');
      assert.ok(isils('Unversitätsbibliothek').includes('DE-Mb50'), 'a letter left out');
      assert.deepEqual(isils('Xylophon'), []);
    });

    it('wants every word first, and any of them when no institution has all', () => {
      assert.deepEqual(isils('Staatsarchiv München'), ['DE-2051']);
      const any = isils('Staatsarchiv Wien');
      assert.ok(any.includes('DE-2051') && any.includes('AT-OeNB'));
    });

    it('counts facets over the matches, and filters by them', () => {
      const all = index.search({ q: '' });
      assert.equal(all.total, ENTRIES.length);
      assert.deepEqual(all.facets.country, [
        { value: 'DE', count: 6 },
        { value: 'AT', count: 1 },
      ]);
      assert.deepEqual(
        all.facets.type.find((f) => f.value === 'library'),
        { value: 'library', count: 3 },
      );
      assert.deepEqual(isils('', { type: 'museum' }), ['DE-MUS-815718']);
      assert.deepEqual(new Set(isils('', { city: 'berlin' })), new Set(['DE-1a', 'DE-MUS-815718']));
      assert.deepEqual(isils('national', { country: 'at' }), ['AT-OeNB']);
      assert.deepEqual(new Set(isils('', { type: 'unknown' })), new Set(['DE-Tue120', 'DE-Mb50']));
    });

    it('keeps those near a point, nearest first, or inside a box', () => {
      const near = index.search({ q: '', near: { lat: 52.52, lon: 13.4, radiusKm: 5 } });
      assert.deepEqual(
        near.hits.map((h) => h.entry.isil),
        ['DE-MUS-815718', 'DE-1a'],
      );
      assert.ok(near.hits.every((h) => h.distanceKm! < 5));
      assert.deepEqual(isils('', { bbox: [11, 48, 12, 49] }), ['DE-12']);
      assert.deepEqual(isils('', { near: { lat: 0, lon: 0, radiusKm: 100 } }), []);
    });

    it('pages through the matches', () => {
      const first = index.search({ q: '', limit: 3, offset: 0 });
      const second = index.search({ q: '', limit: 3, offset: 3 });
      assert.equal(first.total, ENTRIES.length);
      assert.equal(first.hits.length, 3);
      const seen = [...first.hits, ...second.hits].map((h) => h.entry.isil);
      assert.equal(new Set(seen).size, 6);
    });
  });

  describe('autocomplete', () => {
    const completion = new Completion(ENTRIES);
    const names = (q: string, limit?: number) => completion.suggest(q, limit).map((e) => e.isil);

    it('takes every typed word as the start of a word of the name, ISIL or Sigel', () => {
      assert.deepEqual(names('staatsbib ber'), ['DE-1a']);
      assert.deepEqual(new Set(names('staats')), new Set(['DE-1a', 'DE-12', 'DE-2051']));
      assert.deepEqual(names('de-tue'), ['DE-Tue120']);
      assert.deepEqual(names('Tü 12'), ['DE-Tue120']);
      assert.deepEqual(
        names('muen'),
        ['DE-2051', 'DE-12'].filter((i) => names('muen').includes(i)),
      );
      assert.deepEqual(names(''), []);
      assert.deepEqual(names('zzz'), []);
    });

    it('puts names that start with the first word first, then shorter names, and keeps to the limit', () => {
      assert.deepEqual(names('staats'), ['DE-2051', 'DE-1a', 'DE-12']);
      assert.equal(names('b', 2).length, 0, 'one letter matches whole words only');
      assert.deepEqual(names('staats', 2), ['DE-2051', 'DE-1a']);
    });
  });
});
