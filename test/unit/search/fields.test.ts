// The fields of an institution (src/search/fields.ts) are the documented ones: docs/search.md
// lists the module's own list, and the data extension's properties, as the modules have them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FIELDS, institutionFields } from '../../../src/search/fields';
import { EXTEND_PROPERTIES } from '../../../src/search/extend';
import { entry } from '../../support/searchEntry';

const MANUAL = fs.readFileSync(path.join(__dirname, '../../../docs/search.md'), 'utf8');

/** The rows of the table that follows `head` in the manual, as their cells. */
function table(head: string): string[][] {
  const at = MANUAL.indexOf(head);
  assert.ok(at >= 0, head);
  const rows = MANUAL.slice(at).split('\n').slice(2);
  const end = rows.findIndex((r) => !r.startsWith('|'));
  return rows.slice(0, end).map((r) =>
    r
      .slice(1, -1)
      .split(' | ')
      .map((c) => c.trim()),
  );
}

describe('the fields of an institution', () => {
  it('are the ones docs/search.md lists, with what each holds', () =>
    assert.deepEqual(
      table('| Field | What it holds |'),
      FIELDS.map((f) => [`\`${f.name}\``, f.description]),
    ));

  it("are the data extension's properties docs/search.md lists", () =>
    assert.deepEqual(
      table('| Property | Name | Value |'),
      EXTEND_PROPERTIES.map((p) => [`\`${p.id}\``, p.name, p.description]),
    ));

  it('give the URI and the page from the context, and leave out what the data lacks', () => {
    const context = { baseIri: 'https://x.example', pagePattern: 'https://x.example/isil/{isil}' };
    const fields = institutionFields(entry('DE-1', 'Eins', { cities: ['Bonn'] }), context);
    assert.deepEqual(fields, {
      isil: 'DE-1',
      name: 'Eins',
      city: 'Bonn',
      country: 'DE',
      uri: 'https://x.example/resource/organisations/DE-1',
      page: 'https://x.example/isil/DE-1',
    });
  });
});
