import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { deletionLine } from '../../../cli/oaiHarvest';
import { deletionsOf, isilOfOaiIdentifier } from '../../../src/update/deletions';
import { tempDir } from '../../support';

describe('deletions', () => {
  it('reads the ISIL of an identifier oai:<repository>:<ISIL>', () => {
    assert.equal(isilOfOaiIdentifier('oai:ld.zdb-services.de:DE-Bo133'), 'DE-Bo133');
    assert.equal(isilOfOaiIdentifier('oai:host:'), undefined);
    assert.equal(isilOfOaiIdentifier('urn:nbn:de:1'), undefined);
  });

  it('finds every deletion line of a harvest', () => {
    const file = path.join(tempDir(), 'harvest.xml');
    const deletions = ['DE-1', 'DE-Bo133'].map((isil) =>
      deletionLine({ identifier: `oai:stand-in.invalid:${isil}`, datestamp: '2026-12-01' }),
    );
    fs.writeFileSync(file, `<harvest>\n<record/>\n${deletions.join('\n')}\n</harvest>\n`);
    assert.deepEqual(deletionsOf(file), ['DE-1', 'DE-Bo133']);
  });

  it('refuses a deletion that names no ISIL, saying which', () => {
    const file = path.join(tempDir(), 'numbers.xml');
    fs.writeFileSync(file, `${deletionLine({ identifier: 'oai:dnb:', datestamp: 'x' })}\n`);
    assert.throws(() => deletionsOf(file), /the deletion of "oai:dnb:" names no ISIL/);
  });
});
