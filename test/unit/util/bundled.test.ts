// The bundled dataset's files (src/util/bundled.ts): third-party files of the manifest, in the
// order that decides an ISIL two of them hold.
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

  it('reads the name and redirect lists before the full records, and the links last', () => {
    assert.match(BUNDLED_NAMES[0]!, /isil-sigel-name/);
    assert.match(BUNDLED_NAMES[1]!, /isil-redirects/);
    assert.match(BUNDLED_NAMES.at(-1)!, /wikidata_isil-lookup/);
  });
});
