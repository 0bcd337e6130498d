// The `zdb` profile's documents pinned: one SHA-256 over every bundled institution's document
// (live and withdrawn) in each format, as served before the fuller description was stored beside
// them. A digest that moves means a zdb client sees other bytes (docs/data-model.md, Profiles).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import type { Institution } from '../../src/store/dataset';
import { FORMATS, type FormatName } from '../../src/rdf/formats';
import { Documents } from '../../src/documents/documents';
import type { Answer } from '../../src/documents/representation';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { needsThirdParty, openDataset, testConfig } from '../support';

/**
 * The digest of each format's documents, in ISIL order, made at the commit before profiles. The
 * pages were pinned again once they linked the code lists and showed Wikidata's positions.
 */
const PINNED: Record<string, string> = {
  html: '965210081e47b2bcea0c24dc0ea6b5fe4a97e7d47f107512972bcb24ceb62e37',
  rdf: '3cdb26171dcf43a134af51955f885517f915d99b247505472c6f96920356f4b3',
  ttl: '2d7cdc6456874aaa7e85123cf4b4b812530e687eb0a263a0d25a68a6fb9c5a06',
  jsonld: 'dc917aeb5529c64211b5679072e6dbbace9e4309de78f76ba06bbf504fc5f2e9',
  nt: '800e3eb1c53f2c88dcc1a29ad4b7aaf06210856828976a434b25fe76fd2d092a',
  n3: '2d7cdc6456874aaa7e85123cf4b4b812530e687eb0a263a0d25a68a6fb9c5a06',
  trig: '2d7cdc6456874aaa7e85123cf4b4b812530e687eb0a263a0d25a68a6fb9c5a06',
  nq: '800e3eb1c53f2c88dcc1a29ad4b7aaf06210856828976a434b25fe76fd2d092a',
};

const ANSWER: Answer = { status: 200, headers: () => ({}) };
const ORIGIN = 'http://localhost:8080';

describe('the zdb documents of the bundled dataset', function () {
  this.timeout(900_000);
  before(needsThirdParty);
  const digests: Record<string, string> = {};
  before(async () => {
    const { dataset } = await openDataset(BUNDLED_DATASET, testConfig());
    const documents = new Documents(dataset, 0);
    const all: Institution[] = [
      ...dataset.institutions(),
      ...[...dataset.withdrawnInstitutions()].map((w) => ({ ...w, modified: w.modified })),
    ].sort((a, b) => (a.isil < b.isil ? -1 : 1));
    for (const format of FORMATS.map((f) => f.name)) {
      const hash = crypto.createHash('sha256');
      for (const institution of all) {
        const document = await documents.get(ORIGIN, institution, format, ANSWER);
        hash.update(`${institution.isil}\n`).update(document.body);
      }
      digests[format] = hash.digest('hex');
    }
    dataset.free();
  });

  for (const format of FORMATS.map((f) => f.name) as FormatName[])
    it(`are the bytes they were in ${format}`, () => {
      assert.equal(digests[format], PINNED[format]);
    });
});
