// One institution's fields in every format that carries them (src/record/fields.ts): JSON Lines,
// CSV, GeoJSON, the search's JSON, the suggestions, reconciliation's `extend`, OAI-PMH's oai_dc and
// the page's schema.org. DE-1a of the bundled dataset has them all: four e-mail addresses (its
// contact points', its interlibrary loan's first), and a `dcterms:modified` without a zone.
import assert from 'node:assert/strict';
import request from 'supertest';
import type { Server } from 'node:http';
import { repositoryIdentifier, oaiIdentifier } from '../../src/oai/identifiers';
import { FIELD_NAMES } from '../../src/record/fields';
import type { Service } from '../../src/documents/service';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { BASE, buildApp, needsThirdParty } from '../support';

type Value = string | number | readonly string[];

/** The cells of one CSV line (RFC 4180), a spreadsheet's formula guard (`'+49`) taken off. */
function csvCells(line: string): string[] {
  const cells: string[] = [];
  for (const m of line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)) {
    if (m.index === line.length && m[0] === '') break;
    const cell = m[1]!.startsWith('"') ? m[1]!.slice(1, -1).replace(/""/g, '"') : m[1]!;
    cells.push(cell.replace(/^'(?=[=+\-@])/, ''));
  }
  return cells;
}

describe("one institution's fields, the same in every format", function () {
  before(needsThirdParty);
  this.timeout(120_000);
  // One listening server: the pages are absolute on the origin asked, its port the same throughout.
  let app: Server;
  let service: Service;
  /** DE-1a's fields as JSON Lines has them: every field. */
  let fields: Record<string, Value>;
  before(async () => {
    const built = await buildApp(BUNDLED_DATASET, { PUBLIC_URL: '' });
    service = built.service;
    app = built.app.listen(0);
    await service.search.ensure();
    const res = await request(app).get('/search?q=DE-1a&format=jsonl').buffer(true).expect(200);
    fields = res.text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, Value>)
      .find((l) => l.isil === 'DE-1a')!;
  });

  after(() => app.close());

  it("gives the main contact's e-mail address, and the interlibrary loan's as its own field", () => {
    assert.equal(fields.email, 'info@sbb.spk-berlin.de');
    assert.equal(fields.illEmail, 'Fernleihe1@sbb.spk-berlin.de');
    assert.equal(fields.phone, '+49 30 2 66-433888');
  });

  it('gives the record its own time, without a zone it does not have', () =>
    assert.equal(fields.modified, '2022-11-18T14:37:34'));

  it('gives the page absolute, on the origin asked', () =>
    assert.match(String(fields.page), /^http:\/\/127\.0\.0\.1:\d+\/isil\/DE-1a$/));

  it('has the same values in the CSV, every field asked', async () => {
    const res = await request(app)
      .get(`/search?q=DE-1a&format=csv&fields=${FIELD_NAMES.join(',')}`)
      .buffer(true)
      .expect(200);
    const row = res.text
      .split('\r\n')
      .map(csvCells)
      .find((cells) => cells[0] === 'DE-1a')!;
    FIELD_NAMES.forEach((name, i) => {
      const value = fields[name];
      const text =
        value === undefined ? '' : Array.isArray(value) ? value.join(' | ') : String(value);
      assert.equal(row[i], text, name);
    });
  });

  it("has the same values in GeoJSON's properties", async () => {
    const res = await request(app).get('/search?q=DE-1a&format=geojson').buffer(true).expect(200);
    const feature = (
      JSON.parse(res.text) as { features: { id: string; properties: object }[] }
    ).features.find((f) => f.id === 'DE-1a')!;
    for (const [name, value] of Object.entries(feature.properties))
      assert.deepEqual(value, fields[name], name);
  });

  it("has the same values in the search's JSON and in the suggestions", async () => {
    const json = await request(app).get('/search?q=DE-1a&format=json').expect(200);
    const suggested = await request(app).get('/search/suggest?q=DE-1a').expect(200);
    for (const hit of [json.body.hits[0], suggested.body.suggestions[0]]) {
      assert.equal(hit.isil, 'DE-1a');
      for (const [name, value] of Object.entries(hit).filter(([k]) => k !== 'score'))
        assert.deepEqual(value, fields[name], name);
    }
  });

  it("has the same values in reconciliation's extend", async () => {
    const properties = [
      'name',
      'sigel',
      'city',
      'postcode',
      'street',
      'homepage',
      'email',
      'phone',
    ];
    const extend = { ids: ['DE-1a'], properties: properties.map((id) => ({ id })) };
    const res = await request(app)
      .get(`/reconcile?extend=${encodeURIComponent(JSON.stringify(extend))}`)
      .expect(200);
    const row = res.body.rows['DE-1a'] as Record<string, { str: string }[]>;
    for (const name of properties) assert.deepEqual(row[name], [{ str: fields[name] }], name);
  });

  it("has the same values in OAI-PMH's oai_dc", async () => {
    const identifier = oaiIdentifier(repositoryIdentifier(BASE), 'DE-1a');
    const res = await request(app)
      .get(`/oai?verb=GetRecord&metadataPrefix=oai_dc&identifier=${identifier}`)
      .expect(200);
    const dc = /<oai_dc:dc[\s\S]*<\/oai_dc:dc>/.exec(res.text)![0];
    const all = (element: string) =>
      [...dc.matchAll(new RegExp(`<dc:${element}>([^<]*)</dc:${element}>`, 'g'))].map((m) => m[1]);
    assert.equal(all('title')[0], fields.name);
    assert.deepEqual(all('identifier'), [fields.isil, fields.uri]);
    assert.deepEqual(all('date'), [String(fields.modified).slice(0, 10)]);
  });

  it("has the same values in the page's schema.org", async () => {
    const res = await request(app).get('/isil/DE-1a').set('Accept', 'text/html').expect(200);
    const blocks = [
      ...res.text.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g),
    ];
    const org = JSON.parse(blocks[1]![1]!) as Record<string, unknown>;
    assert.equal(org.name, fields.name);
    assert.equal(org.email, fields.email);
    assert.equal(org.telephone, fields.phone);
    assert.equal(org.url, fields.homepage);
  });
});
