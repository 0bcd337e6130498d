// Search for machines over HTTP, through each store adapter, on generated institutions (most of
// them with coordinates, unlike the bundled data): fielded queries, GeoJSON, JSON Lines, CSV
// columns, and a bulk export that keeps the version it started in across a reload.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import request from 'supertest';
import type { Server } from 'node:http';
import { check } from '@placemarkio/check-geojson';
import { generate } from '../../cli/generate';
import type { Service } from '../../src/documents/service';
import { fieldContext } from '../../src/http/searchExport';
import { ADAPTERS, BASE, buildApp, openDataset, tempDir, testConfig } from '../support';

const COUNT = 300;

/** The bytes of a response, whatever its type (supertest parses only some). */
function binary(res: request.Response, callback: (error: Error | null, body: Buffer) => void) {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}

interface Line {
  isil: string;
  name: string;
  city?: string;
  type?: string;
  lat?: number;
  [key: string]: unknown;
}

const lines = (body: Buffer): Line[] =>
  body
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

for (const adapter of ADAPTERS)
  describe(`search for machines (${adapter} store)`, function () {
    this.timeout(120_000);
    // One listening server: an answer's pages are absolute on the origin asked, the same port each time.
    let app: Server;
    let service: Service;
    let all: Line[];
    const folder = tempDir();
    const source = path.join(folder, 'generated.nt');
    const other = path.join(folder, 'other.nt');
    before(async () => {
      fs.writeFileSync(source, [...generate({ count: COUNT, seed: 39, base: BASE })].join(''));
      fs.writeFileSync(other, [...generate({ count: 50, seed: 40, base: BASE })].join(''));
      const built = await buildApp([source], {}, adapter);
      service = built.service;
      app = built.app.listen(0);
      await service.search.ensure();
      const res = await request(app).get('/search?format=jsonl').buffer(true).parse(binary);
      all = lines(res.body as Buffer);
    });
    after(() => {
      app.close();
      fs.rmSync(folder, { recursive: true, force: true });
    });

    it('exports every match as JSON Lines, all fields, with the version, CORS and an ETag', async () => {
      const res = await request(app)
        .get('/search?format=jsonl')
        .buffer(true)
        .parse(binary)
        .expect(200)
        .expect('Content-Type', 'application/x-ndjson');
      assert.equal(all.length, COUNT);
      assert.equal(res.headers['dataset-version'], service.current!.dataset.version);
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.match(res.headers.etag!, /^W\/"/);
      const first = all[0]!;
      for (const key of ['isil', 'name', 'city', 'postcode', 'street', 'uri', 'page', 'modified'])
        assert.ok(key in first, key);
      await request(app)
        .get('/search?format=jsonl')
        .set('If-None-Match', res.headers.etag!)
        .expect(304);
    });

    it('orders JSON Lines as the search ranks them, ties by ISIL, and negotiates them by Accept', async () => {
      const q = 'Bibliothek';
      const page = await request(app).get(`/search?format=json&size=100&q=${q}`).expect(200);
      const res = await request(app)
        .get(`/search?q=${q}`)
        .set('Accept', 'application/x-ndjson')
        .buffer(true)
        .parse(binary)
        .expect(200);
      const exported = lines(res.body as Buffer);
      assert.equal(exported.length, page.body.total);
      assert.deepEqual(
        exported.slice(0, 100).map((l) => l.isil),
        page.body.hits.map((h: Line) => h.isil),
      );
      const scores: { isil: string; score: number }[] = page.body.hits;
      scores.forEach((h, i) => {
        const next = scores[i + 1];
        if (next && next.score === h.score) assert.ok(h.isil < next.isil, `${h.isil} ${next.isil}`);
      });
    });

    it('gzips JSON Lines when asked, with an ETag of its own', async () => {
      const plain = await request(app)
        .get('/search?format=jsonl')
        .set('Accept-Encoding', 'identity')
        .buffer(true)
        .parse(binary);
      assert.equal(plain.headers['content-encoding'], undefined);
      const res = await request(app)
        .get('/search?format=jsonl')
        .set('Accept-Encoding', 'gzip')
        .buffer(true)
        .parse((r, cb) => {
          // supertest would gunzip: read the bytes as sent.
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => cb(null, Buffer.concat(chunks)));
        })
        .expect(200)
        .expect('Content-Encoding', 'gzip');
      assert.notEqual(res.headers.etag, plain.headers.etag);
      const body = res.body as Buffer;
      const text = body[0] === 0x1f ? gunzipSync(body) : body;
      assert.equal(text.toString(), (plain.body as Buffer).toString());
    });

    it('takes fields= for JSON Lines and CSV, in the order given, and refuses an unknown one', async () => {
      const jsonl = await request(app)
        .get('/search?format=jsonl&fields=name,isil')
        .buffer(true)
        .parse(binary)
        .expect(200);
      const first = lines(jsonl.body as Buffer)[0]!;
      assert.deepEqual(Object.keys(first), ['name', 'isil']);
      const csv = await request(app).get('/search?format=csv&fields=city,isil,phone').expect(200);
      const [head, row] = csv.text.split('\r\n');
      assert.equal(head, 'city,isil,phone');
      const [city, isil, phone] = row!.split(',');
      const line = all.find((l) => l.isil === isil)!;
      // A leading + would be a formula to a spreadsheet: written inert, as every CSV value.
      assert.deepEqual([city, phone], [line.city ?? '', line.phone ? `'${line.phone}` : '']);
      const unknown = await request(app).get('/search?format=csv&fields=isil,colour').expect(400);
      assert.match(unknown.text, /colour/);
      await request(app).get('/search?format=json&fields=isil').expect(400);
      const plain = await request(app).get('/search?format=csv').expect(200);
      assert.equal(plain.text.split('\r\n')[0], 'isil,name,sigel,postcode,city,type,lat,lon,uri');
    });

    it('answers GeoJSON: valid RFC 7946, the matches with coordinates, the others counted', async () => {
      const res = await request(app)
        .get('/search?format=geojson')
        .buffer(true)
        .parse(binary)
        .expect(200)
        .expect('Content-Type', 'application/geo+json');
      const text = (res.body as Buffer).toString();
      const collection = check(text);
      assert.equal(collection.type, 'FeatureCollection');
      const parsed = JSON.parse(text);
      const located = all.filter((l) => l.lat !== undefined);
      assert.equal(parsed.features.length, located.length);
      assert.equal(parsed.withoutCoordinates, COUNT - located.length);
      assert.ok(parsed.withoutCoordinates > 0);
      const feature = parsed.features[0];
      const line = all.find((l) => l.isil === feature.id)!;
      assert.deepEqual(feature.geometry.coordinates, [line.lon, line.lat]);
      assert.deepEqual(Object.keys(feature.properties).sort(), [
        'city',
        'name',
        'page',
        'type',
        'uri',
      ]);
      assert.equal(res.headers['dataset-version'], service.current!.dataset.version);
      await request(app)
        .get('/search?q=Bibliothek')
        .set('Accept', 'application/geo+json')
        .expect(200)
        .expect('Content-Type', 'application/geo+json');
    });

    it('finds by field: city:, name: with a phrase, type:, postcode:, isil:, with AND, OR and NOT', async () => {
      const ask = async (q: string) =>
        lines(
          (
            await request(app)
              .get(`/search?format=jsonl&q=${encodeURIComponent(q)}`)
              .buffer(true)
              .parse(binary)
              .expect(200)
          ).body as Buffer,
        );
      const sample = all.find((l) => l.city && l.postcode)!;
      const city = sample.city!;
      const inCity = await ask(`city:"${city}"`);
      assert.deepEqual(
        inCity.map((l) => l.isil).sort(),
        all
          .filter((l) => l.city === city)
          .map((l) => l.isil)
          .sort(),
      );
      const byPostcode = await ask(`postcode:${sample.postcode as string}`);
      assert.ok(byPostcode.some((l) => l.isil === sample.isil));
      assert.ok(byPostcode.every((l) => String(l.postcode).startsWith(sample.postcode as string)));
      const byIsil = await ask(`isil:${sample.isil}`);
      assert.equal(byIsil[0]!.isil, sample.isil);
      const archives = await ask('type:archive');
      assert.deepEqual(
        archives.map((l) => l.isil).sort(),
        all
          .filter((l) => l.type === 'archive')
          .map((l) => l.isil)
          .sort(),
      );
      const notArchives = await ask('NOT type:archive');
      assert.equal(notArchives.length + archives.length, COUNT);
      const either = await ask(`type:archive OR city:"${city}"`);
      assert.equal(either.length, new Set([...archives, ...inCity].map((l) => l.isil)).size);
      const both = await ask(`type:archive AND city:"${city}"`);
      assert.ok(both.every((l) => l.type === 'archive' && l.city === city));
      const phrase = sample.name.split(' ').slice(0, 2).join(' ');
      const named = await ask(`name:"${phrase}"`);
      assert.ok(
        named.some((l) => l.isil === sample.isil),
        phrase,
      );
      assert.ok(
        named.every((l) => l.name.includes(phrase)),
        phrase,
      );
      // The same words in another order are not the phrase.
      const reversed = phrase.split(' ').reverse().join(' ');
      const unordered = await ask(`name:"${reversed}"`);
      assert.ok(!unordered.some((l) => l.isil === sample.isil), reversed);
    });

    it('combines city=, type= and country= with q by AND, and the AND-then-OR fallback only without operators', async () => {
      const sample = all.find((l) => l.city)!;
      const q = encodeURIComponent(`city:"${sample.city}"`);
      const filtered = await request(app).get(`/search?format=json&size=100&q=${q}&type=archive`);
      assert.ok(
        filtered.body.hits.every((h: Line) => h.type === 'archive' && h.city === sample.city),
      );
      const fallback = await request(app)
        .get(`/search?format=json&q=${encodeURIComponent(`city:"${sample.city}" Qwertzuiop`)}`)
        .expect(200);
      assert.ok(fallback.body.total > 0, 'no operators: any term');
      const strict = await request(app)
        .get(`/search?format=json&q=${encodeURIComponent(`city:"${sample.city}" AND Qwertzuiop`)}`)
        .expect(200);
      assert.equal(strict.body.total, 0, 'an operator: no fallback');
    });

    it('answers a malformed query 400 naming what and where; the page shows it with the query kept', async () => {
      const api = await request(app).get('/search?format=json&q=name%3A%22Museum').expect(400);
      assert.match(api.text, /quote is not closed at character 6/);
      const page = await request(app)
        .get('/search?q=name%3A%22Museum')
        .set('Accept', 'text/html')
        .expect(400)
        .expect('Content-Type', /text\/html/);
      assert.match(page.text, /role="alert"[^<]*quote is not closed/);
      assert.match(page.text, /value="name:&#34;Museum"/);
    });

    it('shows a clicked facet as the fielded query it is', async () => {
      const page = await request(app)
        .get(`/search?q=Bibliothek&type=library&lang=en`)
        .set('Accept', 'text/html')
        .expect(200);
      assert.match(page.text, /As a query: <a href="[^"]*"><code>Bibliothek type:library<\/code>/);
    });

    it('streams an export in the version it started in, across a reload', async () => {
      const before = service.current!.dataset.version;
      const spec = {
        request: { q: '' },
        format: 'jsonl' as const,
        fields: ['isil' as const],
        context: fieldContext(testConfig(), BASE),
      };
      const started = await service.search.exportStart(spec);
      assert.equal(started.version, before);
      const { dataset } = await openDataset([other], testConfig(), adapter);
      service.use(dataset);
      await service.search.ensure();
      assert.notEqual(service.search.version, before);
      const chunk = await service.search.exportNext(started.value.id);
      assert.equal(chunk.value.version, before);
      assert.equal(lines(Buffer.from(chunk.value.text)).length, COUNT);
      assert.ok(chunk.value.done);
      const now = await request(app).get('/search?format=jsonl').buffer(true).parse(binary);
      assert.equal(lines(now.body as Buffer).length, 50);
    });
  });
