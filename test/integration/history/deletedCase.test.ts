// An ISIL asked in another case is redirected to its canonical spelling on every route, whether it
// is live, withdrawn, or gone from the data with only its past left (HTTP contract §5): never 404
// where the canonical spelling answers.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../../src/http/app';
import { timestamp14 } from '../../../src/history/model';
import { createLogger } from '../../../src/util/logger';
import { Service } from '../../../src/documents/service';
import { BASE, openDataset, PUBLIC, tempDir, testConfig } from '../../support';
import { historyOf } from '../../support/history';

const T1 = 1_700_000_000;
const T2 = 1_750_000_000;
const T3 = 1_760_000_000;

const PREFIXES = `@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix dc: <http://purl.org/dc/elements/1.1/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix v: <http://www.w3.org/2006/vcard/ns#> .
@prefix org: <${BASE}/resource/organisations/> .
`;

const live = (isil: string, name: string) => `org:${isil} a foaf:Organization ;
    dc:identifier "(ISIL)${isil}" ; foaf:name "${name}" ;
    v:adr [ a v:Address ; v:locality "Teststadt" ; v:postal-code "12345" ] .
`;
const withdrawn = (isil: string, name: string) => `org:${isil} a foaf:Organization ;
    dc:identifier "(ISIL)${isil}" ; foaf:name "${name}" ; owl:deprecated true .
`;

/**
 * Version 1: DE-Cs1, DE-Cs2 and DE-Cs3. Version 2: DE-Cs2 deleted, DE-Cs3 withdrawn. Version 3:
 * the withdrawn DE-Cs3 deleted too; DE-Cs1 stays.
 */
function versions() {
  const dir = tempDir();
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, PREFIXES + text);
    return [file];
  };
  const one = live('DE-Cs1', 'Stadtbibliothek Bleibt');
  return [
    {
      version: 'v1',
      time: T1,
      sources: write(
        'v1.ttl',
        one + live('DE-Cs2', 'Werkbibliothek Fort') + live('DE-Cs3', 'Zweigstelle Nord'),
      ),
    },
    { version: 'v2', time: T2, sources: write('v2.ttl', one + withdrawn('DE-Cs3', 'Nord')) },
    { version: 'v3', time: T3, sources: write('v3.ttl', one) },
  ];
}

/** Each route an ISIL stands in, for the ISIL spelled `isil`. */
const routes = (isil: string) => [
  `/resource/organisations/${isil}`,
  `/data/organisations/${isil}`,
  `/data/organisations/${isil}.ttl`,
  `/data/organisations/${isil}.jsonld`,
  `/isil/${isil}`,
  `/timegate/data/organisations/${isil}.ttl`,
  `/timemap/data/organisations/${isil}.ttl`,
  `/timemap/json/data/organisations/${isil}.nt`,
  `/timegate/isil/${isil}`,
  `/timemap/isil/${isil}`,
  `/memento/${timestamp14(T1)}/data/organisations/${isil}.ttl`,
  `/memento/${timestamp14(T1)}/isil/${isil}`,
];

describe('an ISIL in another case: 301 to its spelling, live or deleted', function () {
  this.timeout(120_000);
  let app: Express;
  before(async () => {
    const all = versions();
    const history = await historyOf(all, BASE);
    const config = testConfig();
    const { dataset } = await openDataset(all.at(-1)!.sources, config, 'embedded');
    dataset.history = history;
    const service = new Service(config);
    service.use(dataset);
    app = createApp({ service, logger: createLogger('silent') });
  });

  for (const [asked, canonical, what] of [
    ['de-cS1', 'DE-Cs1', 'a live ISIL'],
    ['de-cS2', 'DE-Cs2', 'a deleted ISIL'],
    ['DE-CS3', 'DE-Cs3', 'a withdrawn ISIL deleted later'],
  ] as const)
    for (const [from, to] of routes(asked).map((r, i) => [r, routes(canonical)[i]!]))
      it(`${what}: ${from} is 301 to ${to}`, async () => {
        const res = await request(app).get(`${from}?lang=en`);
        assert.equal(res.status, 301);
        assert.equal(res.headers.location, `${PUBLIC}${to}?lang=en`);
      });

  it('the canonical spelling of a deleted ISIL answers 410 with its past', async () => {
    const res = await request(app).get('/data/organisations/DE-Cs2.ttl');
    assert.equal(res.status, 410);
    assert.match(res.headers.link ?? '', /timemap\/data\/organisations\/DE-Cs2\.ttl/);
  });

  it('its memento in the canonical spelling is served', async () => {
    const res = await request(app).get(`/memento/${timestamp14(T1)}/data/organisations/DE-Cs2.nt`);
    assert.equal(res.status, 200);
    assert.match(res.text, /Werkbibliothek Fort/);
  });

  it('an ISIL the history never knew, in any case, is still 404', async () => {
    for (const unknown of [
      '/data/organisations/de-cs9.ttl',
      '/timegate/data/organisations/de-cs9.ttl',
    ])
      assert.equal((await request(app).get(unknown)).status, 404, unknown);
  });
});
