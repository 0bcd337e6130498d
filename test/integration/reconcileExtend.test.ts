// Reconciliation's data extension (W3C Reconciliation API 0.2), on the bundled dataset through
// each store adapter: the manifest's `extend`, the property proposals and `extend` answers, each
// validated against the spec's own schemas (data-extension-*.json, read where the third-party
// inputs are); then a scripted client drives the flow as OpenRefine does, over a listening server:
// reconcile a column of names, then extend the matched column.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import request from 'supertest';
import type { Express } from 'express';
import type { Service } from '../../src/documents/service';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { EXTEND_PROPERTIES } from '../../src/search/extend';
import { ADAPTERS, buildApp, CONFORMANCE, needsThirdParty, PUBLIC } from '../support';

const SCHEMAS = path.join(CONFORMANCE, 'reconciliation-0.2', 'schemas');

function validators(): Record<'manifest' | 'query' | 'response' | 'proposal', ValidateFunction> {
  const ajv = new Ajv({ strict: false, validateSchema: false, allErrors: true, logger: false });
  for (const file of fs.readdirSync(SCHEMAS).filter((f) => f.endsWith('.json')))
    ajv.addSchema(JSON.parse(fs.readFileSync(path.join(SCHEMAS, file), 'utf8')));
  const at = (root: string, name: string) => ajv.getSchema(`${root}${name}`)!;
  const spec = 'https://reconciliation-api.github.io/specs/0.2/schemas/';
  return {
    manifest: at(spec, 'manifest.json'),
    query: at(spec, 'data-extension-query.json'),
    response: at(spec, 'data-extension-response.json'),
    // The proposal schema's $id names the draft, not 0.2.
    proposal: at(
      'https://reconciliation-api.github.io/specs/draft/schemas/',
      'data-extension-property-proposal.json',
    ),
  };
}

function valid(validate: ValidateFunction, value: unknown): void {
  assert.ok(validate(value), JSON.stringify(validate.errors, null, 1));
}

const PROPERTIES = [
  'isil',
  'sigel',
  'name',
  'city',
  'postcode',
  'street',
  'coordinates',
  'homepage',
  'email',
  'phone',
  'type',
  'wikidata',
  'gnd',
  'successor',
  'otherNames',
];

for (const adapter of ADAPTERS)
  describe(`reconciliation's data extension (${adapter} store)`, function () {
    before(needsThirdParty);
    // The remote store reads the 18,672 descriptions for the index one query each: on a busy
    // 2-core machine, minutes (105 s to load, 15 ms a description).
    this.timeout(900_000);
    let app: Express;
    let service: Service;
    let schema: ReturnType<typeof validators>;
    before(async () => {
      schema = validators();
      ({ app, service } = await buildApp(BUNDLED_DATASET, {}, adapter));
      await service.search.ensure();
    });

    it('names its property proposals in the manifest, which the schema accepts', async () => {
      const res = await request(app).get('/reconcile').expect(200);
      valid(schema.manifest, res.body);
      assert.deepEqual(res.body.extend.propose_properties, {
        service_url: `${PUBLIC}/reconcile`,
        service_path: '/properties',
      });
    });

    it('proposes every property, and as many as asked for', async () => {
      const res = await request(app)
        .get('/reconcile/properties?type=http://xmlns.com/foaf/0.1/Organization')
        .expect(200);
      valid(schema.proposal, res.body);
      assert.deepEqual(
        res.body.properties.map((p: { id: string }) => p.id).sort(),
        [...PROPERTIES].sort(),
      );
      const three = await request(app).get('/reconcile/properties?limit=3').expect(200);
      valid(schema.proposal, three.body);
      assert.equal(three.body.properties.length, 3);
      await request(app).get('/reconcile/properties?limit=none').expect(400);
    });

    it('extends ISILs with every property, typed as the spec says, validated', async () => {
      const query = {
        ids: ['DE-1a', 'DE-100-303', 'XX-nothing'],
        properties: PROPERTIES.map((id) => ({ id })),
      };
      valid(schema.query, query);
      const res = await request(app)
        .get(`/reconcile?extend=${encodeURIComponent(JSON.stringify(query))}`)
        .expect(200);
      valid(schema.response, res.body);
      assert.equal(res.headers['dataset-version'], service.current!.dataset.version);
      const row = res.body.rows['DE-1a'];
      assert.deepEqual(row.isil, [{ str: 'DE-1a' }]);
      assert.deepEqual(row.sigel, [{ str: '1a' }]);
      assert.deepEqual(row.city, [{ str: 'Berlin' }]);
      assert.deepEqual(row.postcode, [{ str: '10772' }]);
      assert.deepEqual(row.street, [{ str: 'Potsdamer Str. 33' }]);
      assert.deepEqual(row.coordinates, [{ str: '52.50771,13.37063' }]);
      assert.deepEqual(row.type, [{ str: 'library' }]);
      assert.equal(row.wikidata[0].id, 'Q170109');
      assert.equal(row.gnd[0].id, '5036103-X');
      assert.match(row.name[0].str, /^Staatsbibliothek zu Berlin/);
      assert.deepEqual(row.successor, []);
      // A withdrawn ISIL: its successor, an institution of this service.
      const withdrawn = res.body.rows['DE-100-303'];
      assert.equal(withdrawn.successor[0].id, 'DE-100-401');
      assert.deepEqual(withdrawn.city, []);
      assert.ok(Object.values(res.body.rows['XX-nothing']).every((v) => (v as []).length === 0));
      const meta = new Map(res.body.meta.map((m: { id: string }) => [m.id, m]));
      assert.equal(res.body.meta.length, PROPERTIES.length);
      assert.match((meta.get('wikidata') as { service: string }).service, /^https:\/\/wikidata/);
      assert.equal((meta.get('successor') as { service: string }).service, `${PUBLIC}/reconcile`);
      assert.equal(EXTEND_PROPERTIES.length, PROPERTIES.length);
    });

    it('refuses an extend query that is not one, or names an unknown property, with 400', async () => {
      const ask = (extend: string) => request(app).post('/reconcile').type('form').send({ extend });
      await ask('{').expect(400);
      await ask('{"ids": "DE-1a", "properties": []}').expect(400);
      const unknown = await ask('{"ids": ["DE-1a"], "properties": [{"id": "colour"}]}').expect(400);
      assert.match(unknown.text, /colour/);
    });

    it('refuses a property asked twice with 400 naming it', async () => {
      for (const properties of [
        '[{"id": "city"}, {"id": "city"}]',
        '[{"id": "name"}, {"id": "city"}, {"id": "name", "settings": {}}]',
      ]) {
        const extend = `{"ids": ["DE-1a"], "properties": ${properties}}`;
        for (const res of [
          await request(app).post('/reconcile').type('form').send({ extend }),
          await request(app).get('/reconcile').query({ extend }),
        ]) {
          assert.equal(res.status, 400, properties);
          assert.match(res.text, /the property (city|name) is asked more than once/);
        }
      }
    });

    it('is driven as OpenRefine drives it: reconcile a column, then extend it, over a listening server', async () => {
      const server = http.createServer(app).listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const post = async (form: Record<string, string>) => {
          const res = await fetch(`${base}/reconcile`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams(form).toString(),
          });
          assert.equal(res.status, 200);
          return res.json() as Promise<Record<string, unknown>>;
        };
        const manifest = (await (await fetch(`${base}/reconcile`)).json()) as {
          defaultTypes: { id: string }[];
          extend: { propose_properties: { service_url: string; service_path: string } };
        };
        // A column of ISILs, as OpenRefine sends a batch of rows with the ISIL as a property.
        const column = ['DE-1a', 'DE-Luen3'];
        const queries = Object.fromEntries(
          column.map((isil, i) => [
            `q${i}`,
            {
              query: '',
              type: manifest.defaultTypes[0]!.id,
              properties: [{ pid: 'isil', v: isil }],
            },
          ]),
        );
        const reconciled = (await post({ queries: JSON.stringify(queries) })) as Record<
          string,
          { result: { id: string; match: boolean }[] }
        >;
        const ids = column.map((_, i) => {
          const best = reconciled[`q${i}`]!.result[0]!;
          assert.ok(best.match, JSON.stringify(best));
          return best.id;
        });
        assert.deepEqual(ids, column);
        const { service_url, service_path } = manifest.extend.propose_properties;
        const proposed = (await (
          await fetch(
            `${service_url.replace(PUBLIC, base)}${service_path}?type=${encodeURIComponent(manifest.defaultTypes[0]!.id)}`,
          )
        ).json()) as { properties: { id: string }[] };
        const chosen = proposed.properties.filter((p) =>
          ['city', 'postcode', 'wikidata'].includes(p.id),
        );
        const extended = await post({
          extend: JSON.stringify({ ids, properties: chosen.map(({ id }) => ({ id })) }),
        });
        valid(schema.response, extended);
        const rows = extended.rows as Record<string, Record<string, unknown[]>>;
        assert.deepEqual(rows['DE-1a']!.city, [{ str: 'Berlin' }]);
        assert.deepEqual(Object.keys(rows), ids);
      } finally {
        server.close();
      }
    });
  });
