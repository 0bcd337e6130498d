// The reconciliation service, W3C Entity Reconciliation API 0.2 as OpenRefine speaks
// it, on the bundled dataset: every answer is validated against the spec's own JSON Schemas
// (data/third-party/conformance/reconciliation-0.2, fetched from reconciliation-api/specs), and the
// candidates are checked for what they mean: the right institution first, `match` only when sure.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import request from 'supertest';
import type { Express } from 'express';
import type { Service } from '../../src/documents/service';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { buildApp, CONFORMANCE, needsThirdParty } from '../support';

const SCHEMAS = path.join(CONFORMANCE, 'reconciliation-0.2', 'schemas');

function validators(): Record<string, ValidateFunction> {
  const ajv = new Ajv({ strict: false, validateSchema: false, allErrors: true, logger: false });
  // (openapi.json is Swagger 2.0's schema, which the manifest's `authentication` refers to.)
  for (const file of fs.readdirSync(SCHEMAS).filter((f) => f.endsWith('.json')))
    ajv.addSchema(JSON.parse(fs.readFileSync(path.join(SCHEMAS, file), 'utf8')));
  const get = (name: string) =>
    ajv.getSchema(`https://reconciliation-api.github.io/specs/0.2/schemas/${name}`)!;
  return {
    manifest: get('manifest.json'),
    queries: get('reconciliation-query.json'),
    results: get('reconciliation-result-batch.json'),
    entities: get('suggest-entities-response.json'),
    types: get('suggest-types-response.json'),
    properties: get('suggest-properties-response.json'),
  };
}

function valid(validate: ValidateFunction, value: unknown): void {
  assert.ok(validate(value), JSON.stringify(validate.errors, null, 1));
}

describe('reconciliation (W3C Reconciliation API 0.2)', function () {
  before(needsThirdParty);
  this.timeout(60_000);
  let app: Express;
  let service: Service;
  let schema: Record<string, ValidateFunction>;
  before(async () => {
    schema = validators();
    ({ app, service } = await buildApp(BUNDLED_DATASET));
    await service.search.ensure();
  });

  it('describes itself in a manifest the schema accepts', async () => {
    const res = await request(app).get('/reconcile').expect(200);
    assert.equal(res.headers['content-type'], 'application/json;charset=utf-8');
    valid(schema.manifest!, res.body);
    assert.deepEqual(res.body.versions, ['0.2']);
    assert.equal(res.body.identifierSpace, 'https://ld.zdb-services.de/resource/organisations/');
    assert.match(res.body.view.url, /\{\{id\}\}$/);
    assert.match(res.body.preview.url, /\/reconcile\/preview\?id=\{\{id\}\}$/);
    const jsonp = await request(app).get('/reconcile?callback=jQuery123_cb').expect(200);
    assert.match(jsonp.headers['content-type']!, /^text\/javascript/);
    assert.match(jsonp.text, /^\/\*\*\/jQuery123_cb\(\{"versions":\["0.2"\]/);
    await request(app).get('/reconcile?callback=alert(1)//').expect(400);
  });

  it('answers a batch by GET and by form POST, validated, the right institution first', async () => {
    const batch = {
      q0: {
        query: 'Staatsbibliothek zu Berlin - Preußischer Kulturbesitz, Haus Potsdamer Straße',
        limit: 3,
      },
      q1: { query: 'Stadtmuseum Medebach', type: 'http://xmlns.com/foaf/0.1/Organization' },
      q2: {
        query: 'Staatsbibliothek Berlin',
        properties: [{ pid: 'isil', v: 'DE-1a' }],
      },
      q3: {
        query: 'Universitäts- und Stadtbibliothek Köln',
        properties: [{ pid: 'city', v: 'Köln' }],
      },
      q4: { query: 'zzzz qqqq xxxx' },
    };
    valid(schema.queries!, batch);
    const get = await request(app)
      .get(`/reconcile?queries=${encodeURIComponent(JSON.stringify(batch))}`)
      .expect(200);
    const post = await request(app)
      .post('/reconcile')
      .type('form')
      .send({ queries: JSON.stringify(batch) })
      .expect(200);
    assert.deepEqual(post.body, get.body);
    assert.equal(post.headers['cache-control'], 'no-store');
    valid(schema.results!, get.body);
    const { q0, q1, q2, q3, q4 } = get.body;
    assert.equal(q0.result[0].id, 'DE-1a');
    assert.ok(q0.result.length <= 3);
    assert.equal(q0.result[0].match, false, 'a name alone is never an automatic match');
    assert.equal(q1.result[0].id, 'DE-MUS-446515');
    assert.equal(q2.result[0].id, 'DE-1a');
    assert.equal(q2.result[0].match, true, 'the ISIL given and found');
    assert.equal(q3.result[0].id, 'DE-38');
    assert.deepEqual(
      q4.result.filter((r: { match: boolean }) => r.match),
      [],
    );
    for (const r of [...q0.result, ...q1.result]) {
      assert.ok(r.score >= 0 && r.score <= 100);
      assert.ok(
        r.type.some((t: { id: string }) => t.id === 'http://xmlns.com/foaf/0.1/Organization'),
      );
    }
  });

  it('takes a record without a city for unknown, not a mismatch, and a full record of the town named first', async () => {
    const batch = {
      alone: { query: 'Landesarchiv Berlin' },
      city: { query: 'Landesarchiv Berlin', properties: [{ pid: 'city', v: 'Berlin' }] },
      sbb: { query: 'Staatsbibliothek zu Berlin' },
    };
    const res = await request(app)
      .get(`/reconcile?queries=${encodeURIComponent(JSON.stringify(batch))}`)
      .expect(200);
    valid(schema.results!, res.body);
    const { alone, city, sbb } = res.body;
    // DE-2297's record is a name alone: the city given says nothing for or against it.
    assert.equal(city.result[0].id, 'DE-2297');
    assert.equal(city.result[0].score, alone.result[0].score);
    assert.ok(!city.result[0].features.some((f: { id: string }) => f.id === 'city_match'));
    assert.equal(city.result[0].match, false);
    // The library itself (its full record, in Berlin), not the picture agency of its name.
    assert.equal(sbb.result[0].id, 'DE-1a');
    assert.equal(sbb.result[0].match, false, 'a name alone is never an automatic match');
  });

  it('completes entities, types and properties, and previews an institution', async () => {
    const entities = await request(app)
      .get('/reconcile/suggest/entity?prefix=staatsbib%20ber')
      .expect(200);
    valid(schema.entities!, entities.body);
    assert.ok(entities.body.result.some((e: { id: string }) => e.id === 'DE-1a'));
    const types = await request(app).get('/reconcile/suggest/type?prefix=mus').expect(200);
    valid(schema.types!, types.body);
    assert.deepEqual(
      types.body.result.map((t: { name: string }) => t.name),
      ['Museum'],
    );
    const properties = await request(app).get('/reconcile/suggest/property?prefix=').expect(200);
    valid(schema.properties!, properties.body);
    assert.deepEqual(
      properties.body.result.map((p: { id: string }) => p.id),
      ['isil', 'city', 'postcode'],
    );
    const preview = await request(app).get('/reconcile/preview?id=DE-1a').expect(200);
    assert.match(preview.text, /Staatsbibliothek zu Berlin/);
    await request(app).get('/reconcile/preview?id=XX-nothing').expect(404);
  });

  it('refuses what is not a batch, a form or a method it takes, clearly', async () => {
    for (const queries of [
      'not json',
      '[1,2]',
      '{"q0": 5}',
      '{"q0": {"query": 7}}',
      '{"q0": {"query": "a", "limit": 0}}',
      '{"q0": {"polluted": 1}}',
      '{"q0": {"properties": []}}',
      JSON.stringify(
        Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`q${i}`, { query: 'a' }])),
      ),
    ]) {
      const res = await request(app).post('/reconcile').type('form').send({ queries }).expect(400);
      assert.ok(res.text.length > 10);
    }
    await request(app)
      .post('/reconcile')
      .set('Content-Type', 'application/json')
      .send('{}')
      .expect(415);
    await request(app).put('/reconcile').expect(405);
    await request(app).post('/reconcile/preview').expect(405);
    const preflight = await request(app).options('/reconcile').expect(204);
    assert.match(preflight.headers['access-control-allow-methods']!, /POST/);
    await request(app).post('/search').expect(405);
  });

  it("answers one client's flood of big batches one at a time, the rest 429 with Retry-After, and serves documents meanwhile", async () => {
    const batch = JSON.stringify(
      Object.fromEntries(
        Array.from({ length: 100 }, (_, i) => [
          `q${i}`,
          { query: `Stadtbibliothek Museum Archiv ${i}` },
        ]),
      ),
    );
    const flood = Array.from({ length: 6 }, () =>
      request(app).post('/reconcile').type('form').send({ queries: batch }),
    );
    const document = request(app).get('/data/organisations/DE-1a.ttl');
    const answers = await Promise.all(flood);
    const statuses = answers.map((r) => r.status).sort();
    assert.ok(statuses.filter((s) => s === 200).length >= 1, statuses.join());
    assert.ok(statuses.includes(429), statuses.join());
    for (const busy of answers.filter((r) => r.status === 429))
      assert.equal(busy.headers['retry-after'], '1');
    for (const done of answers.filter((r) => r.status === 200))
      assert.equal(Object.keys(done.body).length, 100);
    assert.equal((await document).status, 200);
  });
});
