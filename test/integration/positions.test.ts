// Wikidata's positions (src/load/read/wikidata.ts, src/load/place/wikidataSets.ts): the real
// query answer of October 2020, joined to ISILs through the real ISIL lookup, in a graph of its
// own with its provenance; used by geo search, the GeoJSON export and the page, which says so;
// never in the documents, which stay byte for byte those of the same sources without it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { loadSources, type Loaded } from '../../src/load/loadSources';
import { RDF_FORMATS } from '../../src/rdf/formats';
import type { Service } from '../../src/documents/service';
import { positionsGraphIri } from '../../src/store/positions';
import { BASE, buildApp, needsThirdParty, REAL_DATA, tempDir } from '../support';

const NAMES = path.join(REAL_DATA, 'lobid-organisations_isil-sigel-name_2023-11.tsv');
const LOOKUP = path.join(REAL_DATA, 'wikidata_isil-lookup_2023-09.tsv');
const POSITIONS = path.join(REAL_DATA, 'wikidata_museums-de_2020-10.geojson');
/** Museums the lookup joins to an item of the query answer, and one it does not. */
const GAINING = ['DE-MUS-078617', 'DE-MUS-046417', 'DE-Hil1'];
const WITHOUT = 'DE-1a';

/** The rows of a real list whose ISIL (in `column`) is one of `isils`, after its header. */
function subset(file: string, column: number, isils: readonly string[], to: string): string {
  const [header, ...rows] = fs.readFileSync(file, 'utf8').split('\n');
  const kept = rows.filter((row) => isils.includes(row.split('\t')[column] ?? ''));
  fs.writeFileSync(to, [header, ...kept, ''].join('\n'));
  return to;
}

describe('positions from Wikidata', function () {
  this.timeout(120_000);
  before(needsThirdParty);
  let sources: string[];
  let withPositions: { app: Express; service: Service };
  let without: Express;
  let loaded: Loaded;
  before(async () => {
    const folder = tempDir();
    const isils = [...GAINING, WITHOUT];
    sources = [
      subset(NAMES, 1, isils, path.join(folder, 'names.tsv')),
      subset(LOOKUP, 2, isils, path.join(folder, 'lookup.tsv')),
    ];
    withPositions = await buildApp([...sources, POSITIONS]);
    without = (await buildApp(sources)).app;
    loaded = await loadSources([...sources, POSITIONS], { baseIri: BASE });
    await withPositions.service.search.ensure();
  });
  after(() => loaded.dataset.free());

  it('joins the items to the ISILs through the lookup', () =>
    assert.deepEqual([...loaded.dataset.positions!.keys()].sort(), [...GAINING].sort()));
  it('counts them in the load report', () => assert.equal(loaded.report.positions, 3));
  it('keeps them in a graph of its own, each institution with its Wikidata item', () => {
    const rows = loaded.dataset.store.select(
      `SELECT ?item WHERE { GRAPH <${positionsGraphIri(BASE)}> { <${BASE}/resource/organisations/DE-MUS-078617> <http://www.w3.org/2003/01/geo/wgs84_pos#location> ?item } }`,
    );
    assert.deepEqual(
      rows.map((r) => r.item!.value),
      ['http://www.wikidata.org/entity/Q877567'],
    );
  });
  it("says where and when they are from: Wikidata, the query's month, CC0", () => {
    const graph = `<${positionsGraphIri(BASE)}>`;
    const ask = (pattern: string) =>
      loaded.dataset.store.ask(`ASK { GRAPH ${graph} { ${graph} ${pattern} } }`);
    assert.ok(ask('<http://purl.org/dc/terms/source> <http://www.wikidata.org/>'));
    assert.ok(
      ask(
        '<http://purl.org/dc/terms/created> "2020-10-01"^^<http://www.w3.org/2001/XMLSchema#date>',
      ),
    );
    assert.ok(
      ask('<http://purl.org/dc/terms/license> <http://creativecommons.org/publicdomain/zero/1.0/>'),
    );
  });

  for (const isil of GAINING)
    it(`leaves ${isil}'s documents byte for byte as they are without it`, async () => {
      for (const format of RDF_FORMATS) {
        const url = `/data/organisations/${isil}.${format.ext}`;
        const a = await request(withPositions.app).get(url).set('Accept-Encoding', 'identity');
        const b = await request(without).get(url).set('Accept-Encoding', 'identity');
        assert.equal(a.status, 200);
        assert.equal(a.text, b.text, url);
        assert.equal(a.headers.etag, b.headers.etag, url);
      }
    });

  it('finds them by geo search', async () => {
    // Cologne's Museum für Angewandte Kunst (Q877567), from Wikidata alone.
    const res = await request(withPositions.app)
      .get('/search?format=json&near=50.938,6.955&radius=2')
      .expect(200);
    const isils = (res.body as { hits: { isil: string }[] }).hits.map((h) => h.isil);
    assert.deepEqual(isils, ['DE-MUS-078617']);
  });
  it('exports them as GeoJSON features marked as Wikidata’s', async () => {
    const res = await request(withPositions.app).get('/search?format=geojson').expect(200);
    const features = (
      JSON.parse(res.text) as {
        features: { id: string; properties: { positionFrom?: string } }[];
      }
    ).features;
    assert.deepEqual(features.map((f) => f.id).sort(), [...GAINING].sort());
    assert.ok(features.every((f) => f.properties.positionFrom === 'wikidata'));
  });
  it('shows them on the page, saying they are from Wikidata', async () => {
    const res = await request(withPositions.app).get('/isil/DE-Hil1?lang=en').expect(200);
    assert.match(res.text, /id="map"/);
    assert.match(
      res.text,
      /href="http:\/\/www\.wikidata\.org\/entity\/Q896935">position from Wikidata<\/a>/,
    );
  });
  it('a page without one has no map', async () => {
    const res = await request(withPositions.app).get(`/isil/${WITHOUT}?lang=en`).expect(200);
    assert.doesNotMatch(res.text, /id="map"/);
  });
});
