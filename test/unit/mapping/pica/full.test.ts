// The full profile's mapping on the agency's real records (both files, both eras): every field
// docs/data-model.md lists under "The full profile" that a record holds comes out as the property
// documented for it; the `zdb` projection (zdbProjection, src/rdf/profiles.ts, for the store's
// documents and the mementos alike) leaves exactly those out; and the opening-hours reader, rule by rule.
import assert from 'node:assert/strict';
import path from 'node:path';
import { Parser, type Quad } from 'n3';
import { convertRecord } from '../../../../src/mapping/pica/convert';
import { fullTriples } from '../../../../src/mapping/pica/full';
import { parseOpeningHours } from '../../../../src/mapping/pica/openingHours';
import { readPica, sniffPica, type PicaRecord } from '../../../../src/mapping/pica/read';
import { PREFIXES } from '../../../../src/rdf/namespaces';
import { FULL_TERMS, TERMS, zdbProjection } from '../../../../src/rdf/profiles';
import { BASE, needsThirdParty, REAL_DATA } from '../../../support';

const { dcterms, schema } = PREFIXES;
const FILES = [
  'isil-directory_pica-plain_8-records.dat',
  'isil-directory_picaplus-xml_2013_9-records.xml',
];

/** Field and subfield (`*`: any) → the property the documented table gives it. */
const DOCUMENTED: readonly (readonly [string, string, string])[] = [
  ['008H', 'b', `${schema}identifier`],
  ['008H', 'f', `${schema}identifier`],
  ['008H', 'i', `${schema}identifier`],
  ['008H', 'a', `${schema}identifier`],
  ['035D', 'a', `${TERMS}formerSigel`],
  ['009Q', 'x', `${TERMS}sruEndpoint`],
  ['032P', 'f', `${schema}address`],
  ['032P', 'i', `${TERMS}openingHoursText`],
  ['035E', 'a', `${TERMS}status`],
  ['035E', 'f', `${TERMS}institutionType`],
  ['035E', 'g', `${TERMS}funder`],
  ['035E', 'h', `${TERMS}stockSize`],
  ['035E', 'b', `${TERMS}sector`],
  ['035E', 'l', `${TERMS}holdingsLicence`],
  ['035I', 'a', `${schema}memberOf`],
  ['035O', 'a', `${TERMS}interlibraryLoanCentreName`],
  ['035L', 'd', `${schema}contactPoint`],
  ['035G', 'a', `${TERMS}collectionSubject`],
  ['035H', 'a', `${TERMS}specialCollection`],
];

interface Converted {
  readonly isil: string;
  readonly record: PicaRecord;
  readonly quads: Quad[];
}

function converted(): Converted[] {
  const out: Converted[] = [];
  for (const name of FILES) {
    const file = path.join(REAL_DATA, name);
    const form = sniffPica(file)!;
    let n = 0;
    for (const record of readPica(file, form)) {
      if ('malformed' in record) continue;
      const isil = record.fields
        .find((f) => f.tag === '008H')
        ?.subfields.find((s) => s.code === 'e')?.value;
      const status = record.fields
        .find((f) => f.tag === '035E')
        ?.subfields.find((s) => s.code === 'a')?.value;
      if (!isil || status === 'I' || status === 'N') continue;
      const text = fullTriples(record, isil, { baseIri: BASE, blankNodePrefix: `f${n++}x` });
      out.push({ isil, record, quads: new Parser({ format: 'N-Triples' }).parse(text) });
    }
  }
  return out;
}

describe('the full profile of the real PICA+ records', () => {
  before(needsThirdParty);
  let records: Converted[];
  before(() => (records = converted()));

  it('reads records of both files', () => assert.ok(records.length >= 15, `${records.length}`));

  for (const [tag, code, property] of DOCUMENTED)
    it(`${tag} $${code} comes out as ${property.replace(/^.*[#/]/, '')}`, () => {
      const holding = records.filter((r) =>
        r.record.fields.some(
          (f) =>
            f.tag === tag &&
            f.subfields.some(
              (s) =>
                s.code === code && (tag !== '009Q' || /^(sru|openurl|paia|daia)$/i.test(s.value)),
            ),
        ),
      );
      assert.ok(holding.length > 0, `no real record holds ${tag} $${code}`);
      for (const r of holding)
        assert.ok(
          r.quads.some((q) => q.predicate.value === property),
          `${r.isil}: ${tag} $${code} without ${property}`,
        );
    });

  it('links the predecessor 035D $b names by its IRI (DE-1a: DE-He201)', () => {
    const de1a = records.find((r) => r.isil === 'DE-1a' && r.quads.length > 60)!;
    assert.ok(
      de1a.quads.some(
        (q) =>
          q.predicate.value === `${dcterms}replaces` &&
          q.object.value === `${BASE}/resource/organisations/DE-He201`,
      ),
    );
  });

  it('reads DE-Hil2 hours into two specifications and its SRU, PAIA, DAIA endpoints', () => {
    const hil2 = records.find((r) => r.isil === 'DE-Hil2')!;
    const specs = hil2.quads.filter(
      (q) => q.predicate.value === `${schema}openingHoursSpecification`,
    );
    assert.equal(specs.length, 2);
    for (const kind of ['sruEndpoint', 'paiaEndpoint', 'daiaEndpoint'])
      assert.ok(
        hil2.quads.some((q) => q.predicate.value === `${TERMS}${kind}`),
        kind,
      );
  });

  it('marks hours that do not read, keeping the text (DE-38M: "Mo-Fr 9.00-19 (Lesesaal)")', () => {
    const zbmed = records.find((r) => r.isil === 'DE-38M')!;
    assert.ok(zbmed.quads.some((q) => q.predicate.value === `${TERMS}openingHoursUnparsed`));
    assert.ok(!zbmed.quads.some((q) => q.predicate.value === `${schema}openingHoursSpecification`));
  });

  it('types the 2025 institution type 85 as its own concept, not as a library', () => {
    const museum = records.find((r) => r.isil === 'DE-MUS-872815')!;
    assert.ok(
      museum.quads.some(
        (q) =>
          q.predicate.value === `${TERMS}institutionType` &&
          q.object.value === `${BASE}/vocab/institution-types/85`,
      ),
    );
  });
});

/** The converter's whole description of each real record, published or withdrawn, as N-Triples. */
function described(): { isil: string; ntriples: string }[] {
  const out: { isil: string; ntriples: string }[] = [];
  for (const name of FILES) {
    const file = path.join(REAL_DATA, name);
    let n = 0;
    for (const record of readPica(file, sniffPica(file)!)) {
      if ('malformed' in record) continue;
      const result = convertRecord(record, {
        baseIri: BASE,
        origin: name,
        blankNodePrefix: `d${n++}x`,
      });
      if ('ntriples' in result) out.push({ isil: result.isil, ntriples: result.ntriples });
    }
  }
  return out;
}

describe('the zdb projection of the real records', () => {
  before(needsThirdParty);
  const parse = (text: string) => new Parser({ format: 'N-Triples' }).parse(text);

  it('leaves out only full terms and the blank nodes that carry one', () => {
    let full = 0;
    for (const { isil, ntriples } of described()) {
      const all = parse(ntriples);
      const kept = new Set(zdbProjection(all));
      const fullTerm = (q: Quad) =>
        q.predicate.value.startsWith(TERMS) || FULL_TERMS.includes(q.predicate.value);
      const fullNodes = new Set<string>();
      for (const q of all.filter(fullTerm))
        for (const term of [q.subject, q.object])
          if (term.termType === 'BlankNode') fullNodes.add(term.value);
      const touchesFull = (q: Quad) =>
        [q.subject, q.object].some((t) => t.termType === 'BlankNode' && fullNodes.has(t.value));
      const replacedBy = `${dcterms}isReplacedBy`;
      for (const q of all.filter((q) => !kept.has(q)))
        assert.ok(
          fullTerm(q) || touchesFull(q) || q.predicate.value === replacedBy,
          `${isil}: ${q.predicate.value} left out`,
        );
      if (kept.size < all.length) full++;
    }
    assert.ok(full >= 15, `${full} records with full fields`);
  });

  it('keeps no full term', () => {
    for (const { isil, ntriples } of described())
      for (const q of zdbProjection(parse(ntriples)))
        assert.ok(
          !q.predicate.value.startsWith(TERMS) && !FULL_TERMS.includes(q.predicate.value),
          `${isil}: ${q.predicate.value}`,
        );
  });
});

describe('the full profile of a record with a parent (029R, which no real record holds)', () => {
  const record = (subfields: { code: string; value: string }[]): PicaRecord => ({
    id: '1',
    position: '1',
    fields: [{ tag: '029R', occurrence: undefined, subfields }],
  });
  const parents = (r: PicaRecord) =>
    new Parser({ format: 'N-Triples' })
      .parse(fullTriples(r, 'DE-X1', { baseIri: BASE, blankNodePrefix: 'p' }))
      .filter((q) => q.predicate.value === `${schema}parentOrganization`);
  it('links a parent named by its ISIL by its IRI', () =>
    assert.equal(
      parents(record([{ code: '9', value: 'DE-1' }]))[0]?.object.value,
      `${BASE}/resource/organisations/DE-1`,
    ));
  it('names a parent without an ISIL', () =>
    assert.equal(
      parents(record([{ code: 'a', value: 'Universität X' }]))[0]?.object.termType,
      'BlankNode',
    ));
});

describe('parseOpeningHours', () => {
  const cases: readonly (readonly [string, string | undefined])[] = [
    ['Mo-Fr 9.00-21.00, Sa 10.00-18.00', 'Mo-Fr 09:00:00-21:00:00|Sa 10:00:00-18:00:00'],
    ['Mo-Sa 8.00-22.00', 'Mo-Sa 08:00:00-22:00:00'],
    ['Mo-Fr 8.00-24.00', 'Mo-Fr 08:00:00-23:59:59'],
    ['Di 9:30 - 12 Uhr', 'Di-Di 09:30:00-12:00:00'],
    ['Mo-Fr 9.00-19 (Lesesaal)', undefined],
    ['nach Vereinbarung', undefined],
    ['Mo-Fr 18.00-9.00', undefined],
    ['Fr-Mo 9-12', undefined],
  ];
  const short = ['Mo', 'Di', 'Mi', 'Do', 'Fr', 'Sa', 'So'];
  const longNames = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
  for (const [text, expected] of cases)
    it(`${text} → ${expected ?? 'not read'}`, () => {
      const rules = parseOpeningHours(text);
      const shown = rules
        ?.map((r) => {
          const first = short[longNames.indexOf(r.days[0]!)];
          const last = short[longNames.indexOf(r.days[r.days.length - 1]!)];
          return `${first}-${last} ${r.opens}-${r.closes}`;
        })
        .join('|');
      assert.equal(shown === undefined ? undefined : shown.replace('Sa-Sa', 'Sa'), expected);
    });
});
