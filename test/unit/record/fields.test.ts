// The fields of an institution (src/record/fields.ts) are the documented ones: docs/search.md
// lists the module's own list, and the data extension's properties, as the modules have them; the
// e-mail addresses and the time read from a description as docs/search.md says.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { toDescription } from '../../../src/rdf/description';
import { flatRecord } from '../../../src/record/flatRecord';
import { FIELDS, institutionFields } from '../../../src/record/fields';
import { EXTEND_PROPERTIES } from '../../../src/search/extend';
import { entry } from '../../support/flatRecords';

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

  it("read the main contact's e-mail, the interlibrary loan's, and the record's time as written", () => {
    const r = 'https://x.example/resource/organisations/DE-9';
    const doc = 'https://x.example/data/organisations/DE-9';
    const nt = (zone: string, pref: string, withPoints = true) =>
      [
        `<${r}> <http://www.w3.org/2007/05/powder-s#describedby> <${doc}> .`,
        `<${doc}> <http://purl.org/dc/terms/modified> "2022-11-18T14:37:34${zone}"^^<http://www.w3.org/2001/XMLSchema#dateTime> .`,
        `<${r}> <http://www.w3.org/2006/vcard/ns#email> "mailto:a-fernleihe@x.example" .`,
        `<${r}> <http://www.w3.org/2006/vcard/ns#email> "mailto:info@x.example" .`,
        `<${r}> <http://www.w3.org/2006/vcard/ns#email> "mailto:z-general@x.example" .`,
        `<${r}> <http://www.w3.org/2006/vcard/ns#tel> _:tel .`,
        `_:tel <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2006/vcard/ns#Pref> .`,
        `_:tel <http://www.w3.org/1999/02/22-rdf-syntax-ns#value> "${pref}" .`,
        ...(withPoints
          ? [
              `<${r}> <http://schema.org/contactPoint> _:ill .`,
              `_:ill <http://schema.org/contactType> "Gebende Fernleihe" .`,
              `_:ill <http://schema.org/email> "a-fernleihe@x.example" .`,
              `_:ill <http://schema.org/telephone> "+49 1 2" .`,
              `<${r}> <http://schema.org/contactPoint> _:desk .`,
              `_:desk <http://schema.org/contactType> "Auskunft" .`,
              `_:desk <http://schema.org/email> "info@x.example" .`,
              `_:desk <http://schema.org/telephone> "+49 1 3" .`,
            ]
          : []),
      ].join('\n');
    const main = flatRecord('DE-9', toDescription(r, nt('', '+49 (1) 3')));
    assert.equal(main.email, 'info@x.example', "the main phone number's contact's");
    assert.equal(main.illEmail, 'a-fernleihe@x.example');
    assert.equal(main.modified, '2022-11-18T14:37:34', 'no zone added');
    // No contact point has the main number: the address no contact point names, the general one.
    const general = flatRecord('DE-9', toDescription(r, nt('+01:00', '+49 9')));
    assert.equal(general.email, 'z-general@x.example');
    assert.equal(general.modified, '2022-11-18T14:37:34+01:00', 'the zone the record has');
    // No contact points at all: the first address.
    const plain = flatRecord('DE-9', toDescription(r, nt('Z', '+49 9', false)));
    assert.equal(plain.email, 'a-fernleihe@x.example');
    assert.equal(plain.illEmail, undefined);
  });

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
