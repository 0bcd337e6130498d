// institutionIriFor: the only way from request input to query text takes an ISIL and nothing else.
import assert from 'node:assert/strict';
import type { Isil } from '../../src/rdf/isil';
import { institutionIriFor, loadQueries, QueryTemplateError } from '../../src/store/queries';

const BASE = 'https://ld.zdb-services.de';

describe('institutionIriFor', () => {
  for (const isil of ['DE-1a', 'DE-MUS-872815', 'GB-LO/N38', 'AT-9:UBW-002', 'ZDB-1-AAS4']) {
    it(`binds ${isil}`, () => {
      const query = loadQueries().describe.bind(institutionIriFor(BASE, isil as Isil));
      assert.ok(query.includes(`<${BASE}/resource/organisations/${isil}>`));
      assert.ok(!query.includes('urn:x-bind'));
    });
  }
  // Each of these is forced past the type checker, as a bug elsewhere could do.
  const forged = [
    'DE-1a> } ; DROP ALL #',
    'DE-1a>',
    'DE-1a\n',
    'DE-1a"',
    '../x',
    'DE-1a ',
    'DE-{1}',
    '',
    'DE-1a\\u003e',
    'x'.repeat(17),
    'DE-ä',
  ];
  for (const text of forged) {
    it(`refuses a forged ISIL ${JSON.stringify(text)}`, () =>
      assert.throws(() => institutionIriFor(BASE, text as Isil), QueryTemplateError));
  }
});
