// ISIL syntax (ISO 15511, docs/data-model.md): real well-formed and malformed identifiers, and the real lobid export.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ISIL_MAX_LENGTH, isilDefect, isilKey, parseIsil } from '../../../src/rdf/isil';
import { REAL_DATA, needsThirdParty } from '../../support';

/** The lobid-organisations export, as the project keeps it (a byte-for-byte copy of the original). */
const LOBID_TSV = path.join(REAL_DATA, 'lobid-organisations_isil-sigel-name_2023-11.tsv');

const WELL_FORMED: [string, string][] = [
  ['DE-1a', 'the seed institution'],
  ['DE-Tue120', 'letters and digits in the local part'],
  ['DE-MUS-872815', 'a hyphen inside the local part'],
  ['ZDB-1-AAS4', 'a three-character prefix'],
  ['DE-38-436', 'digits on both sides of a local hyphen'],
  ['GB-LO/N38', 'a slash in the local part'],
  ['AT-9:UBW-002', 'a colon in the local part'],
  ['O-ABC', 'a one-character prefix'],
  ['OCLC-1234', 'a four-character prefix'],
  ['DE-MUS-123456789', 'exactly 16 characters'],
  ['de-1A', 'another case of a well-formed ISIL'],
  ['De-4115', 'the real case twin from the lobid export'],
];

const MALFORMED: [string, string][] = [
  ['DE2789', 'no hyphen (real, lobid export)'],
  ['3064', 'no prefix (real, lobid export)'],
  ['DE%5F4050', 'percent-encoded underscore (real, lobid export)'],
  ['ZDB\u201118\u2011BSPI', 'U+2011 non-breaking hyphens (real, lobid export)'],
  ['DB-286-AVE', 'DB is not a country code (real, lobid export)'],
  ['DE-MUS-1234567890', '17 characters'],
  ['', 'empty'],
  ['DE-', 'no local part'],
  ['-1a', 'no prefix'],
  ['DE-1a/', 'ends with a slash'],
  ['DE--1', 'local part starts with a hyphen'],
  ['DE-1a-', 'local part ends with a hyphen'],
  ['DE-a//b', 'an empty path segment'],
  ['DE-1a\u0000', 'a NUL byte'],
  ['DE-1a ', 'a trailing space'],
  [' DE-1a', 'a leading space'],
  ['DE-1a\n', 'a trailing newline'],
  ['DE-ä', 'a non-ASCII letter'],
  ['DE-\u0301a', 'a combining mark'],
  ['../etc', 'a path traversal'],
  ['DE-1a/../x', 'a path traversal inside'],
  ['DE-1a.ttl', 'a file extension'],
  ['DE_1a', 'an underscore instead of the hyphen'],
  ['12-34', 'a two-character prefix of digits'],
  ['ABCDE-1', 'a five-character prefix'],
  ['DE-1a?x=1', 'a query string'],
  ['DE-1a#x', 'a fragment'],
];

describe('parseIsil: well-formed', () => {
  for (const [isil, why] of WELL_FORMED) {
    it(`${isil} (${why})`, () => {
      assert.equal(isilDefect(isil), undefined);
      assert.equal(parseIsil(isil), isil);
    });
  }
});

describe('parseIsil: malformed', () => {
  for (const [text, why] of MALFORMED) {
    it(`${JSON.stringify(text)} (${why})`, () => {
      assert.equal(parseIsil(text), undefined);
      assert.equal(typeof isilDefect(text), 'string');
    });
  }
  it('the length bound is 16 (ISO 15511 §4)', () => assert.equal(ISIL_MAX_LENGTH, 16));
});

describe('isilKey', () => {
  const rows: [string, string][] = [
    ['de-1A', 'DE-1a'],
    ['DE-STG252', 'DE-Stg252'],
    ['DE-LUEN3', 'DE-Luen3'],
    ['De-4115', 'DE-4115'],
    ['zdb-1-aas4', 'ZDB-1-AAS4'],
    ['gb-lo/n38', 'GB-LO/N38'],
  ];
  for (const [a, b] of rows)
    it(`${a} and ${b} are one ISIL`, () => assert.equal(isilKey(a), isilKey(b)));
  it('keeps different ISILs apart', () => assert.notEqual(isilKey('DE-1a'), isilKey('DE-1')));
});

describe('the real lobid-organisations export (18,681 ISILs)', () => {
  before(needsThirdParty);
  let isils: string[] = [];
  before(() => {
    const [header, ...rows] = fs.readFileSync(LOBID_TSV, 'utf8').split('\n');
    assert.equal(header, 'id\tisil\tsigel\tname');
    isils = rows.filter((row) => row !== '').map((row) => row.split('\t')[1] ?? '');
  });

  it('at least 18,600 of its ISILs are well-formed', () => {
    const good = isils.filter((isil) => parseIsil(isil) !== undefined).length;
    assert.ok(good >= 18_600, `${good} of ${isils.length} well-formed`);
  });

  // SOURCES.md lists these as the malformed values of the export.
  const KNOWN_BAD = ['DE2789', '3064', 'DE%5F4050', 'DB-286-AVE', 'ZDB\u201118\u2011BSPI'];
  for (const bad of KNOWN_BAD) {
    it(`rejects the known-bad ${JSON.stringify(bad)}`, () => {
      assert.ok(isils.includes(bad), 'the export holds it');
      assert.equal(parseIsil(bad), undefined);
    });
  }

  // The upper-case duplicates are syntactically fine; only their case makes them doubtful.
  const CASE_TWINS: [string, string][] = [
    ['DE-STG252', 'DE-Stg252'],
    ['DE-LUEN3', 'DE-Luen3'],
  ];
  for (const [twin, canonical] of CASE_TWINS) {
    it(`accepts the case twin ${twin} and gives it the key of ${canonical}`, () => {
      assert.ok(isils.includes(twin) && isils.includes(canonical), 'the export holds both');
      assert.equal(parseIsil(twin), twin);
      assert.equal(isilKey(twin), isilKey(canonical));
    });
  }

  it('accepts De-4115, the case twin of a well-formed ISIL', () => {
    assert.ok(isils.includes('De-4115'));
    assert.equal(parseIsil('De-4115'), 'De-4115');
  });

  it('no accepted ISIL holds a character outside A-Z a-z 0-9 / : -', () => {
    const odd = isils.filter(
      (isil) => parseIsil(isil) !== undefined && !/^[A-Za-z0-9/:-]{1,16}$/.test(isil),
    );
    assert.deepEqual(odd, []);
  });
});
