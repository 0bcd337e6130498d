// The SRU harvest's command line: --from narrows the query by a date-of-change index, which the
// DNB's ISIL catalogue does not have, so it must be named.
import assert from 'node:assert/strict';
import { parseCommandLine, type HarvestOptions } from '../../../cli/harvest';

describe('harvest command line (SRU)', () => {
  it('adds --from by the index --date-index names', () => {
    const options = parseCommandLine(['--from', '2026-11-01', '--date-index', 'dnb.dat']);
    assert.equal((options as HarvestOptions).query, '(isl="DE-*") and dnb.dat>="2026-11-01"');
  });
  it('refuses --from without an index, saying the catalogue has none', () =>
    assert.throws(
      () => parseCommandLine(['--from', '2026-11-01']),
      /--from needs --date-index.*the DNB ISIL catalogue has none.*--oai/,
    ));
  it('refuses a date it cannot pass on', () =>
    assert.throws(
      () => parseCommandLine(['--from', 'yesterday', '--date-index', 'dat']),
      /--from: expected a date YYYY-MM-DD/,
    ));
});
