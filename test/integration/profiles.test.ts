// Negotiation by profile (docs/http-contract.md, "Profiles"): Accept-Profile and _profile, by
// token and IRI, with q-values; the 406 listing what is served; the 303 carrying the profile; the
// alternates list; Vary; and a cached zdb document never answering for full.
import assert from 'node:assert/strict';
import path from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import type { Quad } from 'n3';
import { createApp } from '../../src/http/app';
import { timestamp14 } from '../../src/history/model';
import { Service } from '../../src/documents/service';
import { createLogger } from '../../src/util/logger';
import {
  buildApp,
  BASE,
  local,
  needsThirdParty,
  openDataset,
  parseTurtle,
  PUBLIC,
  REAL_DATA,
  testConfig,
} from '../support';
import { historyOf } from '../support/history';

const DAT = path.join(REAL_DATA, 'isil-directory_pica-plain_8-records.dat');
const ZDB = `${BASE}/profiles/zdb`;
const FULL = `${BASE}/profiles/full`;
const TTL = '/data/organisations/DE-1a.ttl';
const SCHEMA = 'http://schema.org/';

/** Each case: what the request says, and the profile its answer must be in (or 406). */
const CASES: readonly (readonly [string, Record<string, string>, string, 'zdb' | 'full' | 406])[] =
  [
    ['nothing asked', {}, '', 'zdb'],
    ['the token full', { 'Accept-Profile': 'full' }, '', 'full'],
    ['the IRI of full', { 'Accept-Profile': `<${FULL}>` }, '', 'full'],
    ['the IRI of zdb', { 'Accept-Profile': `<${ZDB}>` }, '', 'zdb'],
    ['full preferred by q', { 'Accept-Profile': `<${ZDB}>;q=0.5, <${FULL}>;q=0.9` }, '', 'full'],
    ['zdb preferred by q', { 'Accept-Profile': `<${ZDB}>;q=0.9, <${FULL}>;q=0.5` }, '', 'zdb'],
    ['equal q: the client order', { 'Accept-Profile': 'full, zdb' }, '', 'full'],
    ['an unknown one before full', { 'Accept-Profile': '<urn:x:other>, full;q=0.2' }, '', 'full'],
    ['only unknown ones', { 'Accept-Profile': '<urn:x:other>, <urn:x:more>' }, '', 406],
    ['full refused with q=0', { 'Accept-Profile': 'full;q=0' }, '', 406],
    ['_profile=full', {}, '?_profile=full', 'full'],
    ['_profile by IRI', {}, `?_profile=${encodeURIComponent(FULL)}`, 'full'],
    ['_profile wins over the header', { 'Accept-Profile': 'full' }, '?_profile=zdb', 'zdb'],
    ['_profile unknown', {}, '?_profile=nope', 406],
  ];

/** shacl-engine over the full profile's shapes as served. */
async function fullValidator(app: Express) {
  const shapes = await request(app).get('/profiles/full/shapes.ttl');
  assert.equal(shapes.status, 200);
  const { Validator } = await import('shacl-engine');
  const { DataFactory, Store } = await import('n3');
  const factory = {
    ...DataFactory,
    dataset: (quads?: Iterable<Quad>) => new Store(quads ? [...quads] : undefined),
  };
  const named = shapes.text.replace(
    '@prefix : <#>',
    `@prefix : <${BASE}/profiles/full/shapes.ttl#>`,
  );
  const validator = new Validator(new Store(parseTurtle(named)), { factory });
  return async (turtle: string) =>
    (await validator.validate({ dataset: new Store(parseTurtle(turtle)) })).results.map((r) =>
      r.message.map((m) => m.value).join(' '),
    );
}

describe('negotiation by profile', () => {
  before(needsThirdParty);
  let app: Express;
  before(async () => {
    ({ app } = await buildApp([DAT]));
  });

  describe('a document, case by case', () => {
    for (const [name, headers, query, expected] of CASES)
      it(`${name}: ${expected}`, async () => {
        const res = await request(app).get(`${TTL}${query}`).set(headers);
        if (expected === 406) {
          assert.equal(res.status, 406);
          // Cached like every 406, so a shared cache must key it by the profile asked for too.
          assert.match(res.headers.vary!, /\bAccept-Profile\b/);
          assert.match(res.text, new RegExp(FULL.replace(/[/.]/g, '\\$&')));
          assert.match(res.text, new RegExp(ZDB.replace(/[/.]/g, '\\$&')));
          return;
        }
        assert.equal(res.status, 200);
        assert.equal(res.headers['content-profile'], `<${BASE}/profiles/${expected}>`);
        assert.ok(res.headers.link!.includes(`<${BASE}/profiles/${expected}>; rel="profile"`));
        const hasHours = parseTurtle(res.text).some(
          (q) => q.predicate.value === `${SCHEMA}dayOfWeek`,
        );
        assert.equal(hasHours, expected === 'full');
      });
  });

  it('names Accept-Profile in Vary', async () => {
    const res = await request(app).get(TTL);
    assert.equal(res.headers.vary, 'Accept-Encoding, Accept-Profile');
  });

  it('never answers full from a cached zdb document, nor zdb from a cached full one', async () => {
    const zdb = await request(app).get(TTL);
    const full = await request(app).get(TTL).set('Accept-Profile', 'full');
    const again = await request(app).get(TTL);
    assert.notEqual(zdb.text, full.text);
    assert.notEqual(zdb.headers.etag, full.headers.etag);
    assert.equal(again.text, zdb.text);
    assert.equal((await request(app).get(TTL).set('Accept-Profile', 'full')).text, full.text);
  });

  it('answers If-None-Match with the zdb ETag by 200 when full is asked', async () => {
    const zdb = await request(app).get(TTL);
    const full = await request(app)
      .get(TTL)
      .set('Accept-Profile', 'full')
      .set('If-None-Match', zdb.headers.etag!);
    assert.equal(full.status, 200);
  });

  it('carries the profile from /resource to the document, with _mediatype for Accept', async () => {
    const res = await request(app)
      .get('/resource/organisations/DE-1a?_mediatype=text/turtle')
      .set('Accept-Profile', 'full');
    assert.equal(res.status, 303);
    assert.equal(res.headers.location, `${PUBLIC}${TTL}?_profile=full`);
    assert.match(res.headers.vary!, /Accept-Profile/);
    const doc = await request(app).get(local(res.headers.location));
    assert.equal(doc.headers['content-profile'], `<${FULL}>`);
  });

  it('keeps the 303 of the default profile as it was', async () => {
    const res = await request(app)
      .get('/resource/organisations/DE-1a')
      .set('Accept', 'text/turtle');
    assert.equal(res.headers.location, `${PUBLIC}${TTL}`);
  });

  it('406 on /resource for an unknown profile', async () => {
    const res = await request(app)
      .get('/resource/organisations/DE-1a')
      .set('Accept', 'text/turtle')
      .set('Accept-Profile', '<urn:x:other>');
    assert.equal(res.status, 406);
  });

  describe('the alternates list (_profile=alt)', () => {
    let turtle: request.Response;
    let html: request.Response;
    before(async () => {
      turtle = await request(app).get(`${TTL}?_profile=alt`);
      html = await request(app).get('/isil/DE-1a?_profile=alt');
    });
    it('lists every format in every profile in RDF', () => {
      const quads = parseTurtle(turtle.text);
      const representations = quads.filter((q) => q.predicate.value.endsWith('#hasRepresentation'));
      assert.equal(representations.length, 16);
    });
    it('and as a page', () => {
      assert.match(html.headers['content-type']!, /^text\/html/);
      assert.match(html.text, /DE-1a\.ttl\?_profile=full/);
    });
    it('and in Link headers with type and profile', () =>
      assert.ok(
        turtle.headers.link!.includes(
          `<${PUBLIC}${TTL}?_profile=full>; rel="alternate"; type="text/turtle"; profile="${FULL}"`,
        ),
      ));
  });

  it('shows the full fields on the page in the full profile only', async () => {
    const full = await request(app).get('/isil/DE-1a?_profile=full&lang=en');
    const zdb = await request(app).get('/isil/DE-1a?lang=en');
    assert.match(full.text, /Special collections/);
    assert.match(full.text, /Mon, Tue, Wed, Thu, Fri, Sat 08:00–22:00/);
    assert.doesNotMatch(zdb.text, /Special collections/);
    assert.equal(full.headers['content-profile'], `<${FULL}>`);
  });

  describe('the profiles themselves', () => {
    it('describes each profile at its IRI, full with its shapes', async () => {
      const res = await request(app).get('/profiles/full');
      assert.equal(res.status, 200);
      const quads = parseTurtle(res.text);
      assert.ok(
        quads.some((q) => q.subject.value === FULL && q.object.value.endsWith('prof/Profile')),
      );
      assert.ok(quads.some((q) => q.object.value === `${BASE}/profiles/full/shapes.ttl`));
      assert.equal((await request(app).get('/profiles/zdb')).status, 200);
      assert.equal((await request(app).get('/profiles/other')).status, 404);
    });

    it("serves shapes that every real record's full description holds", async () => {
      const validate = await fullValidator(app);
      const isils = ['DE-1a', 'DE-294', 'DE-38', 'DE-38M', 'DE-B2042', 'DE-Hil2', 'DE-MUS-872815'];
      for (const isil of [...isils, 'ZDB-1-AAS4']) {
        const doc = await request(app).get(`/data/organisations/${isil}.ttl?_profile=full`);
        assert.equal(doc.status, 200, isil);
        assert.deepEqual(await validate(doc.text), [], isil);
      }
    });

    it('and that a description breaking them does not', async () => {
      const validate = await fullValidator(app);
      const broken = `<${BASE}/resource/organisations/DE-X> a <http://xmlns.com/foaf/0.1/Organization> ; <https://ld.zdb-services.de/terms#funder> "07" .`;
      assert.equal((await validate(broken)).length, 1);
    });
  });

  it('disseminates the full profile by OAI-PMH as rdf-full, rdf staying zdb', async () => {
    const full = await request(app).get('/oai?verb=ListRecords&metadataPrefix=rdf-full');
    const zdb = await request(app).get('/oai?verb=ListRecords&metadataPrefix=rdf');
    assert.match(full.text, /specialCollection/);
    assert.doesNotMatch(zdb.text, /specialCollection/);
  });
});

describe('a memento in the zdb profile', function () {
  this.timeout(120_000);
  before(needsThirdParty);
  const TIME = 1_700_000_000;
  let app: Express;
  before(async () => {
    // The history holds the description as stored, full fields and all.
    const history = await historyOf([{ version: 'v1', time: TIME, sources: [DAT] }], BASE);
    const config = testConfig();
    const { dataset } = await openDataset([DAT], config, 'embedded');
    dataset.history = history;
    const service = new Service(config);
    service.use(dataset);
    app = createApp({ service, logger: createLogger('silent') });
  });

  it('is the current zdb document, without the full fields the history holds', async () => {
    const memento = await request(app).get(`/memento/${timestamp14(TIME)}${TTL}`);
    const current = await request(app).get(TTL);
    assert.equal(memento.status, 200);
    assert.equal(memento.text, current.text);
    assert.doesNotMatch(memento.text, /dayOfWeek|ld\.zdb-services\.de\/terms#/);
  });
});
