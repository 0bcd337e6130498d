// The dataset `npm start` serves on a fresh clone (BUNDLED_DATASET): both seed chains work against
// it, and DE-1a, held by four of its sources, is answered from the record that wins by the rule of
// conflicts (the newest full record: the 2022 PICA+ one), the 2021 document being loaded unchanged.
import assert from 'node:assert/strict';
import path from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import type { LoadReport } from '../../src/load/loadSources';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { buildApp, DE_1A_RDF, local, parseRdfXml, needsThirdParty, PUBLIC } from '../support';

describe('the bundled dataset, as npm start serves it', () => {
  before(needsThirdParty);
  let app: Express;
  let report: LoadReport | undefined;
  before(async () => {
    ({ app, report } = await buildApp(BUNDLED_DATASET));
  });

  it('holds the real DE-1a document among its sources', () =>
    assert.ok(BUNDLED_DATASET.includes(DE_1A_RDF)));

  it('follows the Accept: text/html chain with 303, 302, 200', async () => {
    const r303 = await request(app).get('/resource/organisations/DE-1a').set('Accept', 'text/html');
    assert.equal(r303.status, 303);
    assert.equal(r303.headers.location, `${PUBLIC}/data/organisations/DE-1a.html`);
    assert.equal(r303.headers['content-length'], '0');
    const r302 = await request(app).get(local(r303.headers.location)).set('Accept', 'text/html');
    assert.equal(r302.status, 302);
    assert.equal(r302.headers.location, `${PUBLIC}/isil/DE-1a`);
    assert.equal(r302.headers['content-type'], 'text/html');
    const r200 = await request(app).get(local(r302.headers.location)).set('Accept', 'text/html');
    assert.equal(r200.status, 200);
    assert.equal(r200.headers['content-type'], 'text/html;charset=utf-8');
    assert.match(r200.text, /<h1 lang="de">Staatsbibliothek zu Berlin/);
  });

  it('follows the Accept: application/rdf+xml chain with 303, 200 and the seed headers', async () => {
    const r303 = await request(app)
      .get('/resource/organisations/DE-1a')
      .set('Accept', 'application/rdf+xml');
    assert.equal(r303.status, 303);
    assert.equal(r303.headers.location, `${PUBLIC}/data/organisations/DE-1a.rdf`);
    const r200 = await request(app)
      .get(local(r303.headers.location))
      .set('Accept', 'application/rdf+xml')
      .set('Accept-Encoding', 'identity');
    assert.equal(r200.status, 200);
    assert.equal(r200.headers['content-type'], 'application/rdf+xml;charset=UTF-8');
    assert.equal(r200.headers['content-location'], '/data/organisations/DE-1a.rdf');
    assert.equal(r200.headers['content-disposition'], 'inline; filename="DE-1a.rdf"');
    assert.equal(r200.headers.vary, 'Accept-Encoding, Accept-Profile');
    assert.match(
      r200.headers.link!,
      /^<http:\/\/creativecommons\.org\/publicdomain\/zero\/1\.0\/>; rel="license"/,
    );
    // The time of the institution's last event (docs/history.md): the bundled sources come without
    // a log, so their one version has the newest dcterms:modified of its records and links list.
    assert.equal(r200.headers['last-modified'], 'Mon, 15 Sep 2025 18:05:26 GMT');
    const quads = await parseRdfXml(r200.text);
    assert.ok(
      quads.some(
        (q) =>
          q.predicate.value === 'http://www.w3.org/2002/07/owl#sameAs' &&
          q.object.value === 'http://www.wikidata.org/entity/Q170109',
      ),
    );
    assert.ok(
      quads.some(
        (q) =>
          q.predicate.value === 'http://purl.org/dc/terms/modified' &&
          q.object.value.startsWith('2022-11-18'),
      ),
      "the record's own date is in the document",
    );
  });

  it('names the conflict over DE-1a and the source that won it', () => {
    const conflict = report!.conflicts.find((c) => c.isil === 'DE-1a');
    assert.ok(conflict, 'DE-1a is reported as a conflict');
    assert.ok(
      conflict.origins.some((o) => o.startsWith(`${DE_1A_RDF}#`)),
      'the 2021 document',
    );
    assert.ok(conflict.origins.length >= 3, conflict.origins.join(', '));
    assert.match(path.basename(conflict.winner), /^isil-directory_pica/);
  });
});
