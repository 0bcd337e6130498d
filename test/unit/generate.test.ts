// The generator: the model's shape, well-formed distinct ISILs of every kind, the same bytes per seed.
import assert from 'node:assert/strict';
import { Parser, type Quad } from 'n3';
import { generate } from '../../loader/generate';
import { isilDefect, isilKey } from '../../src/rdf/isil';
import { PREFIXES } from '../../src/rdf/namespaces';

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
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000$/,
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
