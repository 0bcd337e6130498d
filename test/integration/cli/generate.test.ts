// The generator: the model's shape, well-formed distinct ISILs of every kind, the same bytes per seed;
// its PICA+ records, shaped like the agency's, which all read and convert; and its snapshots,
// which are the loader's of the same N-Triples.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Parser, type Quad } from 'n3';
import { generate, generatePica, main } from '../../../cli/generate';
import { isomorphic } from 'rdf-isomorphic';
import { checkSnapshot } from '../../../cli/remote';
import { loadSources, writeSnapshot } from '../../../src/load/loadSources';
import { convertRecord } from '../../../src/mapping/pica/convert';
import { readPica, sniffPica, type PicaRecord } from '../../../src/mapping/pica/read';
import type { SkippedRecord, SourceRecord } from '../../../src/mapping/sourceRecord';
import { isilDefect, isilKey } from '../../../src/rdf/isil';
import { PREFIXES } from '../../../src/rdf/namespaces';
import { tempDir } from '../../support';

const { rdf, foaf, dc, wdrs, dcterms, v, geo } = PREFIXES;
const BASE = 'https://ld.zdb-services.de';
const text = (count: number, seed: number) => [...generate({ count, seed, base: BASE })].join('');

describe('generate', () => {
  let quads: Quad[];
  let institutions: string[];
  const objects = (s: string, p: string) =>
    quads.filter((q) => q.subject.value === s && q.predicate.value === p).map((q) => q.object);

  before(() => {
    quads = new Parser({ format: 'application/n-triples' }).parse(text(600, 7));
    institutions = quads
      .filter((q) => q.predicate.value === `${rdf}type` && q.object.value === `${foaf}Organization`)
      .map((q) => q.subject.value);
  });

  it('writes exactly --count institutions', () => assert.equal(institutions.length, 600));
  it('the same seed gives the same bytes', () => assert.equal(text(50, 3), text(50, 3)));
  it('another seed gives other data', () => assert.notEqual(text(50, 3), text(50, 4)));
  it('each institution has one name, one identifier, one description document', () => {
    for (const r of institutions) {
      assert.equal(objects(r, `${foaf}name`).length, 1, r);
      assert.equal(objects(r, `${dc}identifier`).length, 1, r);
      const [d] = objects(r, `${wdrs}describedby`);
      assert.ok(d, r);
      assert.equal(
        objects(d.value, `${dcterms}license`)[0]?.value,
        'http://creativecommons.org/publicdomain/zero/1.0/',
      );
      assert.match(
        objects(d.value, `${dcterms}modified`)[0]!.value,
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/,
      );
    }
  });
  it('ISILs are well-formed and distinct regardless of case', () => {
    const isils = institutions.map((r) => r.slice(`${BASE}/resource/organisations/`.length));
    for (const isil of isils) assert.equal(isilDefect(isil), undefined, isil);
    assert.equal(new Set(isils.map(isilKey)).size, isils.length);
  });
  for (const [shape, pattern] of [
    ['DE-123', /^DE-\d+$/],
    ['DE-Tue120', /^DE-[A-Z][a-z]+\d+$/],
    ['DE-MUS-123456', /^DE-MUS-\d{6}$/],
    ['ZDB-1-ABC', /^ZDB-\d+-[A-Z]+$/],
    ['DE-38-436', /^DE-\d+-\d+$/],
  ] as const) {
    it(`has ISILs shaped like ${shape}`, () =>
      assert.ok(institutions.some((r) => pattern.test(r.split('/').pop()!))));
  }
  it('uses every property of the model', () => {
    const used = new Set(quads.map((q) => q.predicate.value));
    for (const p of [
      'http://dbpedia.org/property/shortName',
      'http://www.w3.org/2002/07/owl#sameAs',
      `${foaf}homepage`,
      'http://purl.org/ontology/gbv/opac',
      `${v}url`,
      `${v}adr`,
      `${geo}location`,
      'http://schema.org/openingHoursSpecification',
      `${v}tel`,
      `${v}email`,
      `${dc}description`,
      `${v}street-address`,
      `${v}postal-code`,
      `${geo}lat`,
      `${rdf}value`,
    ]) {
      assert.ok(used.has(p), p);
    }
  });
  it('names are plainly synthetic and carry umlauts in NFC', () => {
    const names = quads
      .filter((q) => q.predicate.value === `${foaf}name`)
      .map((q) => q.object.value);
    assert.ok(names.every((n) => n.endsWith('(synthetisch)')));
    assert.ok(names.some((n) => /[äöüß]/.test(n)));
    assert.ok(names.every((n) => n === n.normalize('NFC')));
  });
  it('coordinates are inside Germany', () => {
    for (const q of quads.filter((x) => x.predicate.value === `${geo}lat`))
      assert.ok(Number(q.object.value) > 47 && Number(q.object.value) < 55.1);
  });
});

/** `main` with its report to stderr held back. */
function quietly(argv: string[]): number {
  const write = process.stderr.write;
  process.stderr.write = () => true;
  try {
    return main(argv);
  } finally {
    process.stderr.write = write;
  }
}

describe('generate --format pica', () => {
  const pica = (count: number, seed: number) => [...generatePica({ count, seed })].join('');
  let records: PicaRecord[];
  let converted: (SourceRecord | SkippedRecord)[];
  const values = (r: PicaRecord, tag: string, code: string) =>
    r.fields
      .filter((f) => f.tag === tag)
      .flatMap((f) => f.subfields.filter((s) => s.code === code).map((s) => s.value));
  const fieldsWith = (tag: string, code: string, value: string) =>
    records
      .flatMap((r) => r.fields)
      .filter(
        (f) => f.tag === tag && f.subfields.some((s) => s.code === code && s.value === value),
      );

  before(() => {
    const dir = tempDir();
    const file = path.join(dir, 'synthetic.dat');
    assert.equal(quietly(['--count', '600', '--seed', '7', '--format', 'pica', '--out', file]), 0);
    assert.equal(sniffPica(file), 'pica');
    records = [];
    for (const item of readPica(file, 'pica')) {
      assert.ok(!('malformed' in item), JSON.stringify(item));
      records.push(item);
    }
    converted = records.map((r, n) =>
      convertRecord(r, {
        baseIri: BASE,
        origin: `synthetic.dat#${r.id}`,
        blankNodePrefix: `g${n}x`,
      }),
    );
  });

  it('writes exactly --count records, one a line', () => assert.equal(records.length, 600));
  it('the same seed gives the same bytes', () => assert.equal(pica(50, 3), pica(50, 3)));
  it('another seed gives other records', () => assert.notEqual(pica(50, 3), pica(50, 4)));
  it('N-Triples stay the default format', () => {
    const file = path.join(tempDir(), 'default.out');
    assert.equal(quietly(['--count', '3', '--out', file]), 0);
    const quads = new Parser({ format: 'application/n-triples' }).parse(
      fs.readFileSync(file, 'utf8'),
    );
    assert.equal(quads.filter((q) => q.object.value === `${foaf}Organization`).length, 3);
  });
  it('refuses an unknown format', () =>
    assert.equal(quietly(['--count', '3', '--out', '/dev/null', '--format', 'marc']), 2));
  it('every record converts: none is malformed', () =>
    assert.deepEqual(
      converted.filter((c) => 'kind' in c && c.kind === 'malformed'),
      [],
    ));
  it('statuses H, P (the ZDB products), N (skipped by rule) and I (withdrawn) all occur', () => {
    const statuses = new Set(records.flatMap((r) => values(r, '035E', 'a')));
    assert.deepEqual([...statuses].sort(), ['H', 'I', 'N', 'P']);
    for (const r of records.filter((x) => values(x, '035E', 'a')[0] === 'P'))
      assert.match(values(r, '008H', 'e')[0]!, /^ZDB-/);
    assert.ok(converted.some((c) => 'kind' in c && c.kind === 'not-published'));
  });
  it('withdrawn records name earlier ISILs as successors, which the converter finds', () => {
    const withdrawn = converted.filter(
      (c): c is SourceRecord => 'status' in c && c.status === 'withdrawn',
    );
    assert.ok(withdrawn.length > 0);
    const isils = new Set(converted.map((c) => ('isil' in c ? c.isil : c.id)));
    const successors = withdrawn.map((c) => c.successor).filter((s) => s !== undefined);
    assert.ok(successors.length > 0);
    assert.ok(successors.every((s) => isils.has(s)));
  });
  it('has records of both eras of 035E: the 2025 type codes and subfield $m', () => {
    const types = new Set(records.flatMap((r) => values(r, '035E', 'f')));
    for (const code of ['00', '83', '85', '11', '60']) assert.ok(types.has(code), code);
    assert.ok(records.some((r) => values(r, '035E', 'm').length > 0));
  });
  it('has every field the mapping reads', () => {
    for (const [tag, code, value] of [
      ['009Q', 'z', 'A'],
      ['009Q', 'z', 'B'],
      ['009Q', 'z', 'W'],
      ['029@', '4', 'c'],
      ['032P', '2', 'S'],
      ['032P', '2', 'P'],
      ['035B', 'a', 'S'],
      ['035B', 'a', 'W'],
    ] as const)
      assert.ok(fieldsWith(tag, code, value).length > 0, `${tag} $${code} ${value}`);
    for (const [tag, code] of [
      ['001B', 't'],
      ['029A', 'a'],
      ['032P', 'k'],
      ['032P', 'l'],
      ['032P', 'i'],
      ['032P', 'j'],
      ['035B', 'i'],
      ['035B', 'k'],
      ['047A', 'a'],
    ] as const)
      assert.ok(
        records.some((r) => values(r, tag, code).length > 0),
        `${tag} $${code}`,
      );
  });
  it('some addresses and contacts carry the display flag n', () => {
    assert.ok(fieldsWith('032P', 'p', 'n').length > 0);
    assert.ok(fieldsWith('035B', 'c', 'n').length > 0);
  });
  it('some later contacts repeat the main phone number, as real ones do', () =>
    assert.ok(
      records.some((r) => {
        const [main, ...later] = r.fields
          .filter((f) => f.tag === '035B')
          .map((f) => f.subfields.find((s) => s.code === 'f')?.value);
        return later.includes(main);
      }),
    ));
  it('text is NFD as the source has it, and the converted literals are NFC', () => {
    const names = records.flatMap((r) => values(r, '029A', 'a'));
    assert.ok(names.some((n) => n !== n.normalize('NFC')));
    assert.ok(names.every((n) => n === n.normalize('NFD')));
    const out = converted
      .filter((c): c is SourceRecord => 'ntriples' in c)
      .map((c) => c.ntriples)
      .join('');
    assert.equal(out, out.normalize('NFC'));
  });
  it('ISILs are well-formed and distinct regardless of case', () => {
    const isils = records.flatMap((r) => values(r, '008H', 'e'));
    for (const isil of isils) assert.equal(isilDefect(isil), undefined, isil);
    assert.equal(new Set(isils.map(isilKey)).size, isils.length);
  });
  it('PPNs carry the check digit of 003@ (weights 2, 3, … from the right, modulo 11, 10 as X)', () => {
    const valid = (id: string) => {
      const sum = [...id.slice(0, -1)]
        .reverse()
        .reduce((total, digit, i) => total + Number(digit) * (i + 2), 0);
      const check = (11 - (sum % 11)) % 11;
      return id.at(-1) === (check === 10 ? 'X' : String(check));
    };
    assert.ok(['009000046', '101211659X', '00900341X'].every(valid));
    assert.ok(!valid('009000047'));
    for (const r of records) assert.ok(valid(r.id!), r.id);
  });
});

describe('generate --format snapshot', function () {
  // Comparing two datasets of 12,000 quads with blank nodes as graphs takes 13 s on an idle core.
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = tempDir()));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("is the loader's snapshot of the same N-Triples, as a dataset (graphs included)", async () => {
    const ntriples = path.join(dir, 'g.nt');
    const generated = path.join(dir, 'generated.nq');
    assert.equal(main(['--count', '300', '--seed', '5', '--out', ntriples]), 0);
    assert.equal(
      main(['--count', '300', '--seed', '5', '--out', generated, '--format', 'snapshot']),
      0,
    );
    const loaded = await loadSources([ntriples], {
      baseIri: BASE,
      validate: false,
      requireInstitutions: true,
    });
    const loaderSnapshot = path.join(dir, 'loaded.nq');
    await writeSnapshot(loaded, loaderSnapshot);
    loaded.dataset.free();
    const quadsOf = (file: string) =>
      new Parser({ format: 'application/n-quads' }).parse(fs.readFileSync(file, 'utf8'));
    const expected = quadsOf(loaderSnapshot);
    const actual = quadsOf(generated);
    assert.equal(actual.length, expected.length);
    assert.ok(isomorphic(actual, expected), 'the two snapshots differ as datasets');
  });

  it('loads as a snapshot: its trailer matches its bytes and counts', async () => {
    const generated = path.join(dir, 'checked.nq');
    assert.equal(main(['--count', '120', '--out', generated, '--format', 'snapshot']), 0);
    assert.match(checkSnapshot(generated, BASE), /^[0-9a-f]{12}$/);
    const loaded = await loadSources([generated], {
      baseIri: BASE,
      validate: false,
      requireInstitutions: true,
    });
    try {
      assert.equal(loaded.dataset.institutionCount, 120);
    } finally {
      loaded.dataset.free();
    }
    // One byte changed: refused by the sha256 of its trailer.
    const bytes = fs.readFileSync(generated);
    bytes[200] = bytes[200] === 0x61 ? 0x62 : 0x61;
    fs.writeFileSync(generated, bytes);
    assert.throws(() => checkSnapshot(generated, BASE), /sha256/);
  });
});
