// The agency's code lists (src/rdf/codeLists.ts): every code the real records of both eras of the
// format and the generator's use has a concept with a German and an English label; a list with a
// defect is refused, naming the node.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { generatePica } from '../../../cli/generate';
import { readPica, type PicaRecord } from '../../../src/mapping/pica/read';
import {
  CODE_LISTS_FILE,
  CodeListError,
  codeLists,
  codesOf,
  parseCodeLists,
  SCHEMES,
} from '../../../src/rdf/codeLists';
import { needsThirdParty, REAL_DATA, tempDir } from '../../support';

const BASE = 'https://ld.zdb-services.de';
const isRecord = (r: object): r is PicaRecord => 'fields' in r;

/** Every code of 035E in `records`, by subfield. */
function codesIn(records: readonly PicaRecord[]): Map<string, Set<string>> {
  const found = new Map(SCHEMES.map((s) => [s.subfield as string, new Set<string>()]));
  for (const record of records)
    for (const field of record.fields.filter((f) => f.tag === '035E'))
      for (const { code, value } of field.subfields) found.get(code)?.add(value.trim());
  return found;
}

function assertKnown(codes: Map<string, Set<string>>): void {
  for (const { name, subfield } of SCHEMES)
    for (const code of codes.get(subfield)!) {
      const concept = codesOf(name).get(code);
      assert.ok(concept, `${name} ${code}`);
      assert.ok(concept.de.trim() && concept.en.trim(), `${name} ${code} has both labels`);
    }
}

describe('the code lists', () => {
  const lists = codeLists(BASE);

  it('holds the four schemes under /vocab/', () =>
    assert.deepEqual(
      lists.schemes.map((s) => s.iri),
      ['institution-types', 'funders', 'stock-sizes', 'status'].map((n) => `${BASE}/vocab/${n}`),
    ));
  it('mints every concept at /vocab/<scheme>/<code>', () => {
    for (const scheme of lists.schemes)
      for (const concept of scheme.concepts.values())
        assert.equal(concept.iri, `${scheme.iri}/${concept.code}`);
  });
  it('has the types of the format of 16 September 2025, 00, 83 and 85', () => {
    const types = codesOf('institution-types');
    assert.equal(types.get('83')?.de, 'Gedenkstätte');
    assert.equal(types.get('85')?.en, 'Collection');
    assert.ok(types.has('00'));
  });
  it('has the four record statuses', () =>
    assert.deepEqual([...codesOf('status').keys()], ['H', 'P', 'N', 'I']));

  describe('know every code the real records use', () => {
    before(needsThirdParty);
    it('the plain PICA+ export (one record edited after the change of format)', () =>
      assertKnown(
        codesIn(
          [
            ...readPica(path.join(REAL_DATA, 'isil-directory_pica-plain_8-records.dat'), 'pica'),
          ].filter(isRecord),
        ),
      ));
    it('the PicaPlus-XML of 2013', () =>
      assertKnown(
        codesIn(
          [
            ...readPica(
              path.join(REAL_DATA, 'isil-directory_picaplus-xml_2013_9-records.xml'),
              'ppxml',
            ),
          ].filter(isRecord),
        ),
      ));
  });

  it('know every code the generator writes, of both eras', () => {
    const file = path.join(tempDir(), 'generated.dat');
    fs.writeFileSync(file, [...generatePica({ count: 400, seed: 3 })].join(''));
    const codes = codesIn([...readPica(file, 'pica')].filter(isRecord));
    assert.ok(codes.get('f')!.has('83') && codes.get('f')!.has('11'));
    assertKnown(codes);
  });

  describe('a list with a defect is refused, naming the node', () => {
    const text = fs.readFileSync(CODE_LISTS_FILE, 'utf8');
    const refused = (changed: string, why: RegExp) =>
      assert.throws(
        () => parseCodeLists(changed, BASE),
        (e: Error) => {
          assert.ok(e instanceof CodeListError);
          assert.match(e.message, why);
          return true;
        },
      );
    it('a concept without its English label', () =>
      refused(
        text.replace('"Gedenkstätte"@de,\n    "Memorial"@en', '"Gedenkstätte"@de'),
        /institution-types\/83> needs one .*prefLabel in "en", has 0/,
      ));
    it('a concept with a notation not its code', () =>
      refused(text.replace('skos:notation "83"', 'skos:notation "38"'), /institution-types\/83>/));
    it('a concept in another scheme', () =>
      refused(
        text.replace(
          '<funders/02> a skos:Concept ;\n  skos:inScheme <funders>',
          '<funders/02> a skos:Concept ;\n  skos:inScheme <status>',
        ),
        /funders\/02> must be in the one scheme/,
      ));
    it('a node no scheme lists', () =>
      refused(
        `${text}\n<funders/99> a <http://www.w3.org/2004/02/skos/core#Concept> .\n`,
        /funders\/99> is neither/,
      ));
    it('Turtle that does not parse', () => refused(`${text} <oops`, /code-lists\.ttl: /));
  });
});
