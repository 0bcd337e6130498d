// The states a change log compares, read back from a served dataset (src/history/states.ts, for a
// restored snapshot whose log does not end with it), are the loader's own: the same hash for the
// same data, the `full` fields included, or a restore would log changes that never happened.
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadSources } from '../../../src/load/loadSources';
import { statesOf } from '../../../src/history/states';
import { BASE, needsThirdParty, REAL_DATA } from '../../support';

const RECORDS = [
  path.join(REAL_DATA, 'isil-directory_pica-plain_8-records.dat'),
  path.join(REAL_DATA, 'isil-directory_picaplus-xml_2013_9-records.xml'),
];

describe('the states read back from a served dataset', () => {
  before(needsThirdParty);

  it("are the loader's, for records with full fields", async () => {
    const loaded = await loadSources(RECORDS, { baseIri: BASE });
    try {
      const read = await statesOf(loaded.dataset);
      assert.ok(loaded.history.states.size >= 10, `${loaded.history.states.size} ISILs`);
      assert.deepEqual(
        new Map([...read.states].sort(([a], [b]) => (a < b ? -1 : 1))),
        new Map([...loaded.history.states].sort(([a], [b]) => (a < b ? -1 : 1))),
      );
    } finally {
      loaded.dataset.free();
    }
  });
});
