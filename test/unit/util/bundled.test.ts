// The bundled dataset's files (src/util/bundled.ts): third-party files of the manifest, in the
// order that decides an ISIL two of them hold, the files that join through the links last.
import assert from 'node:assert/strict';
import { BUNDLED_DATASET, BUNDLED_NAMES } from '../../../src/util/bundled';
import { thirdPartyFile, thirdPartyPath } from '../../../src/util/thirdParty';

describe('the bundled dataset', () => {
  it('is made of files the manifest lists', () => {
    for (const name of BUNDLED_NAMES) assert.doesNotThrow(() => thirdPartyFile(name), name);
  });

  it('reads them where npm run fetch-data puts them, in the same order', () => {
    assert.deepEqual(BUNDLED_DATASET, BUNDLED_NAMES.map(thirdPartyPath));
  });

  it('reads the name and redirect lists first, the links and what joins through them last', () => {
    const at = (pattern: RegExp) => BUNDLED_NAMES.findIndex((name) => pattern.test(name));
    assert.equal(at(/isil-sigel-name/), 0);
    assert.equal(at(/isil-redirects/), 1);
    const records = Math.max(at(/\.rdf$/), at(/\.xml$/), at(/\.dat$/));
    assert.ok(records < at(/wikidata_isil-lookup/), 'the links after every full record');
    assert.ok(at(/wikidata_isil-lookup/) < at(/museums-de/), 'the positions after the links');
  });
});
