// Search and autocomplete over HTTP, on the bundled dataset as `npm start` serves it,
// through each store adapter: the index is built from the descriptions the store port gives.
import assert from 'node:assert/strict';
import request from 'supertest';
import type { Server } from 'node:http';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import type { Service } from '../../src/documents/service';
import { loadSources } from '../../src/load/loadSources';
import { SearchHolder } from '../../src/search/searchHolder';
import type { Worker } from 'node:worker_threads';
import { ADAPTERS, BASE, buildApp, needsThirdParty } from '../support';

/** The rows of a CSV answer (RFC 4180: quoted fields may hold commas and doubled quotes). */
function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  for (const line of text.split('\r\n').filter(Boolean)) {
    const cells: string[] = [];
    for (const m of line.matchAll(/("([^"]|"")*"|[^,]*)(,|$)/g)) {
      if (m.index === line.length && m[0] === '') break;
      const cell = m[1]!;
      cells.push(cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell);
    }
    rows.push(cells);
  }
  return rows;
}

for (const adapter of ADAPTERS)
  describe(`search over HTTP (${adapter} store)`, function () {
    before(needsThirdParty);
    this.timeout(120_000);
    // One listening server: an answer's pages are absolute on the origin asked, the same port each time.
    let app: Server;
    let service: Service;
    before(async () => {
      const built = await buildApp(BUNDLED_DATASET, {}, adapter);
      service = built.service;
      app = built.app.listen(0);
    });
    after(() => app.close());

    it('answers 503 with Retry-After until the first index is built, then answers', async () => {
      const early = await request(app).get('/search?q=Berlin&format=json');
      if (early.status === 503) {
        assert.ok(Number(early.headers['retry-after']) >= 1);
        assert.match(early.text, /being built/);
      }
      const report = await service.search.ensure();
      assert.ok(report && report.institutions > 18_000, JSON.stringify(report));
      await request(app).get('/search?q=Berlin&format=json').expect(200);
    });

    it('finds an institution by name, by ISIL and folded the German way, in JSON, with facets', async () => {
      await service.search.ensure();
      const res = await request(app)
        .get('/search?q=Staatsbibliothek%20zu%20Berlin&format=json')
        .expect(200)
        .expect('Content-Type', 'application/json;charset=utf-8');
      assert.equal(res.headers['dataset-version'], service.current!.dataset.version);
      assert.ok(res.body.total > 0);
      assert.ok(res.body.hits.slice(0, 5).some((h: { isil: string }) => h.isil === 'DE-1a'));
      const byIsil = await request(app).get('/search?q=DE-1a&format=json').expect(200);
      assert.equal(byIsil.body.hits[0].isil, 'DE-1a');
      assert.equal(
        byIsil.body.hits[0].uri,
        'https://ld.zdb-services.de/resource/organisations/DE-1a',
      );
      // The Sigel, as typed with its space and umlaut, and folded.
      const sigel = await request(app).get('/search?q=L%C3%BCn%203&format=json').expect(200);
      assert.equal(sigel.body.hits[0].isil, 'DE-Luen3');
      assert.equal(sigel.body.hits[0].sigel, 'Lün 3');
      const typed = await request(app).get('/search?q=Luen3&format=json').expect(200);
      assert.equal(typed.body.hits[0].isil, 'DE-Luen3');
      const folded = await request(app).get('/search?q=Muenchen&format=json').expect(200);
      assert.ok(folded.body.total > 10);
      assert.ok(
        folded.body.hits.every((h: { name: string }) =>
          /München|Munich|Muenchen/i.test(h.name + JSON.stringify(h)),
        ),
      );
      assert.ok(
        Array.isArray(folded.body.facets.country) && folded.body.facets.country[0].value === 'DE',
      );
    });

    it('filters by facet and pages, negotiates HTML, JSON and CSV, and refuses bad parameters with 400', async () => {
      await service.search.ensure();
      const all = await request(app).get('/search?q=bibliothek&format=json&size=5').expect(200);
      const page2 = await request(app)
        .get('/search?q=bibliothek&format=json&size=5&page=2')
        .expect(200);
      assert.equal(all.body.total, page2.body.total);
      const ids = [...all.body.hits, ...page2.body.hits].map((h: { isil: string }) => h.isil);
      assert.equal(new Set(ids).size, 10);
      const country = all.body.facets.country.find((f: { value: string }) => f.value === 'ZDB');
      const zdb = await request(app)
        .get('/search?q=bibliothek&format=json&country=ZDB')
        .expect(200);
      assert.equal(zdb.body.total, country.count);
      assert.ok(zdb.body.hits.every((h: { isil: string }) => h.isil.startsWith('ZDB-')));

      const csv = await request(app)
        .get('/search?q=K%C3%B6ln&size=500')
        .set('Accept', 'text/csv')
        .expect(200);
      assert.match(csv.headers['content-type']!, /^text\/csv;charset=utf-8/);
      const rows = csvRows(csv.text);
      assert.deepEqual(rows[0], [
        'isil',
        'name',
        'sigel',
        'postcode',
        'city',
        'type',
        'lat',
        'lon',
        'uri',
      ]);
      assert.ok(rows.length > 10);
      assert.ok(
        rows
          .slice(1)
          .every(
            (r) =>
              r.length === 9 &&
              r[8] === `https://ld.zdb-services.de/resource/organisations/${r[0]}`,
          ),
      );

      const html = await request(app)
        .get('/search?q=K%C3%B6ln')
        .set('Accept', 'text/html')
        .expect(200);
      assert.match(html.headers['content-type']!, /^text\/html/);
      assert.match(html.headers.vary!, /Accept-Language/);
      assert.match(html.text, /<html lang="de">/);
      assert.match(html.text, /Treffer/);
      const english = await request(app)
        .get('/search?q=K%C3%B6ln&lang=en')
        .set('Accept', 'text/html')
        .expect(200);
      assert.match(english.text, /<html lang="en">/);
      assert.match(english.text, /results/);
      assert.match(english.text, /href="\/isil\/[^"]+\?lang=en"/, 'links keep the language');
      assert.notEqual(english.headers.etag, html.headers.etag);
      await request(app).get('/search?q=x').set('Accept', 'image/png').expect(406);

      for (const bad of [
        'q=' + 'x'.repeat(201),
        'q=a&size=0',
        'q=a&size=101',
        'q=a&page=-1',
        'q=a&type=zoo',
        'near=91,0',
        'near=abc',
        'near=52,13&radius=0',
        'radius=5',
        'bbox=1,2,3',
        'bbox=0,50,10,40',
        'sort=distance',
        'format=xml',
        'q=a&q=b',
      ]) {
        const res = await request(app).get(`/search?${bad}`).expect(400);
        assert.ok(res.text.length > 10, bad);
      }
    });

    it('answers fielded queries over the bundled data, and what was typed before as before', async () => {
      await service.search.ensure();
      const json = async (q: string) =>
        (
          await request(app)
            .get(`/search?format=json&q=${encodeURIComponent(q)}`)
            .expect(200)
        ).body;
      assert.equal((await json('isil:DE-1a')).hits[0].isil, 'DE-1a');
      assert.equal((await json('sigel:"Lün 3"')).hits[0].isil, 'DE-Luen3');
      const berlin = await json('name:Staatsbibliothek AND city:Berlin');
      assert.ok(berlin.hits.some((h: { isil: string }) => h.isil === 'DE-1a'));
      assert.ok(berlin.hits.every((h: { city?: string }) => h.city === 'Berlin'));
      const museums = await json('isil:DE-MUS -type:museum');
      assert.ok(
        museums.hits.every(
          (h: { isil: string; type?: string }) =>
            h.isil.startsWith('DE-MUS-') && h.type !== 'museum',
        ),
      );
      const all = await json('isil:DE-MUS');
      assert.ok(all.total > 1000 && all.total > museums.total);
      // A word before a colon that names no field is text, as it was.
      const kunst = await json('Kunst: Raum');
      const plain = await json('Kunst Raum');
      assert.deepEqual(kunst.hits, plain.hits);
    });

    it("downloads every match as CSV from the results page's link, not the page shown", async () => {
      await service.search.ensure();
      const page = await request(app).get('/search?q=Berlin&lang=en&size=20').expect(200);
      const shown = Number(/<p>([\d,]+) results ·/.exec(page.text)![1]!.replace(/,/g, ''));
      assert.ok(shown > 20, `${shown} results, more than a page`);
      const href = /<a href="([^"]+)" type="text\/csv">/
        .exec(page.text)![1]!
        .replace(/&#38;|&amp;/g, '&');
      const csv = await request(app).get(href).buffer(true).expect(200);
      assert.match(csv.headers['content-type']!, /^text\/csv;charset=utf-8/);
      assert.equal(csv.headers['content-disposition'], 'inline; filename="isil-search.csv"');
      const rows = csvRows(csv.text);
      assert.equal(rows[0]!.join(','), 'isil,name,sigel,postcode,city,type,lat,lon,uri');
      assert.equal(rows.length - 1, shown);
      // In the search's order, as the results page lists them.
      const json = await request(app).get('/search?q=Berlin&format=json&size=20').expect(200);
      assert.deepEqual(
        rows.slice(1, 21).map((r) => r[0]),
        json.body.hits.map((h: { isil: string }) => h.isil),
      );
      // A page asked for is still a page.
      const paged = await request(app).get('/search?q=Berlin&format=csv&size=5&page=2').expect(200);
      assert.equal(csvRows(paged.text).length, 6);
    });

    it('keeps those near a point nearest first, or inside a box', async () => {
      await service.search.ensure();
      const near = await request(app)
        .get('/search?near=52.52,13.40&radius=20&format=json&size=100')
        .expect(200);
      assert.ok(near.body.total > 0);
      const distances = near.body.hits.map((h: { distanceKm: number }) => h.distanceKm);
      assert.deepEqual(
        [...distances].sort((a, b) => a - b),
        distances,
      );
      assert.ok(distances.every((d: number) => d <= 20));
      const box = await request(app)
        // Among Berlin's museums placed by Wikidata's positions: the library by its name.
        .get('/search?q=Staatsbibliothek&bbox=13.0,52.3,13.8,52.7&format=json&size=100')
        .expect(200);
      assert.ok(
        box.body.hits.every(
          (h: { lat: number; lon: number }) =>
            h.lat >= 52.3 && h.lat <= 52.7 && h.lon >= 13 && h.lon <= 13.8,
        ),
      );
      assert.ok(box.body.hits.some((h: { isil: string }) => h.isil === 'DE-1a'));
    });

    it('suggests at most ten institutions as one types, as JSON', async () => {
      await service.search.ensure();
      const res = await request(app).get('/search/suggest?q=staatsbib%20ber').expect(200);
      assert.equal(res.headers['content-type'], 'application/json;charset=utf-8');
      assert.ok(res.body.suggestions.length > 0 && res.body.suggestions.length <= 10);
      assert.ok(res.body.suggestions.some((s: { isil: string }) => s.isil === 'DE-1a'));
      // Asked again (kept, most recently used first): the same answer, and 304 to its ETag.
      const again = await request(app).get('/search/suggest?q=staatsbib%20ber').expect(200);
      assert.equal(again.text, res.text);
      await request(app)
        .get('/search/suggest?q=staatsbib%20ber')
        .set('If-None-Match', res.headers.etag!)
        .expect(304);
      // An answer without a Last-Modified is not "not modified since" any date.
      await request(app)
        .get('/search/suggest?q=staatsbib%20ber')
        .set('If-Modified-Since', new Date().toUTCString())
        .expect(200);
      const fewer = await request(app).get('/search/suggest?q=staatsbib%20ber&limit=2').expect(200);
      assert.equal(fewer.body.suggestions.length, 2);
      const many = await request(app).get('/search/suggest?q=bi').expect(200);
      assert.equal(many.body.suggestions.length, 10);
      const none = await request(app).get('/search/suggest?q=').expect(200);
      assert.deepEqual(none.body.suggestions, []);
      await request(app)
        .get(`/search/suggest?q=${'y'.repeat(201)}`)
        .expect(400);
      await request(app).get('/search/suggest?q=a&limit=11').expect(400);
    });

    it('suggests an ISIL or Sigel typed whole first, in any case, as the search ranks it', async () => {
      await service.search.ensure();
      const first = async (q: string) =>
        (
          await request(app)
            .get(`/search/suggest?q=${encodeURIComponent(q)}`)
            .expect(200)
        ).body.suggestions[0]?.isil;
      assert.equal(await first('DE-1'), 'DE-1');
      assert.equal(await first('DE-1a'), 'DE-1a');
      assert.equal(await first('de-1A'), 'DE-1a');
      assert.equal(await first('Lün 3'), 'DE-Luen3');
      // The others that hold the typed words follow it.
      const rest = await request(app).get('/search/suggest?q=DE-1a').expect(200);
      assert.ok(rest.body.suggestions.some((s: { isil: string }) => s.isil === 'DE-Mm1a'));
    });
  });

describe('a search index whose store fails under it', () => {
  before(needsThirdParty);
  it('is "failed", not "building" for ever, and is tried again by a search after a while', async () => {
    const { dataset } = await loadSources([BUNDLED_DATASET[2]!], { baseIri: BASE });
    const failures: string[] = [];
    const holder = new SearchHolder({ onFailed: (version) => failures.push(version) });
    holder.follow(dataset);
    dataset.free();
    await holder.ensure();
    assert.equal(holder.state, 'failed');
    assert.deepEqual(failures, [dataset.version]);
    await holder.ensure(); // too soon to try again
    assert.equal(failures.length, 1);
  });
});

describe("the search index's thread", function () {
  before(needsThirdParty);
  this.timeout(60_000);

  it('answers from a thread of its own; when that thread dies, search answers 503 and the index is built again in a new one', async () => {
    const failures: string[] = [];
    const { app: express, service } = await buildApp(
      [BUNDLED_DATASET[2]!, BUNDLED_DATASET[3]!],
      {},
      'embedded',
      {
        search: { onFailed: (_version, error) => failures.push(error.message) },
      },
    );
    // Listening: the answers' pages are absolute on the origin asked, before and after alike.
    const app = express.listen(0);
    await service.search.ensure();
    const before = await request(app).get('/search?q=Staatsbibliothek&format=json').expect(200);
    assert.ok(before.body.hits.length > 0);
    const health = await request(app).get('/readyz').expect(200);
    assert.equal(health.body.search, 'ready');
    // The index lives in a worker thread: ending that thread takes the index with it.
    const { thread } = service.search as unknown as { thread: { worker: Worker } };
    assert.ok(thread.worker.threadId > 0);
    await thread.worker.terminate();
    const gone = await request(app).get('/search?q=Staatsbibliothek&format=json').expect(503);
    assert.ok(Number(gone.headers['retry-after']) >= 1);
    await request(app).get('/search/suggest?q=Staats').expect(503);
    assert.equal(failures.length, 1, failures.join('; '));
    assert.match(failures[0]!, /search index's thread/);
    // The 503 asked for the build again: once it is done, the same answers as before.
    await service.search.building;
    assert.equal(service.search.state, 'ready');
    const after = await request(app).get('/search?q=Staatsbibliothek&format=json').expect(200);
    assert.deepEqual(after.body.hits, before.body.hits);
    await request(app).get('/search/suggest?q=Staats').expect(200);
    // Closed with the service: search is unavailable, nothing is built again.
    service.close();
    app.close();
    assert.equal(service.search.state, 'idle');
  });
});
