// The shapes of the published model, run by the real SHACL engine: one fixture per defect class,
// the records that must be valid, the real DE-1a document, and the ISIL rule held equal to the
// code's.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import util from 'node:util';
import { pathToFileURL } from 'node:url';
import { Parser, Writer, type Quad } from 'n3';
import {
  DEFECT_CLASSES,
  SHAPES_FILE,
  ShapesError,
  type Defect,
  type DefectClass,
} from '../../../src/load/describe/shapes';
import type { DescriptionJob } from '../../../src/load/describe/describeBatch';
import { DescribePool } from '../../../src/load/describe/describePool';
import { generate } from '../../../cli/generate';
import { loadSources } from '../../../src/load/loadSources';
import { isilDefect } from '../../../src/rdf/isil';
import {
  parseRdfXml,
  BASE,
  DE_1A,
  DE_1A_RDF,
  FIXTURES,
  REAL_DATA,
  needsThirdParty,
} from '../../support';

const DIR = path.join(FIXTURES, 'validate');
const FOAF_ORGANIZATION = 'http://xmlns.com/foaf/0.1/Organization';

/** A Turtle case as the loader hands it over: the institution's IRI and its N-Triples. */
function institution(turtle: string): { iri: string; ntriples: string } {
  const quads = new Parser({ baseIRI: 'https://ld.zdb-services.de/' }).parse(turtle);
  const typed = quads.find((q) => q.object.value === FOAF_ORGANIZATION);
  assert.ok(typed, 'the case types an institution');
  return {
    iri: typed.subject.value,
    ntriples: new Writer({ format: 'N-Triples' }).quadsToString(quads),
  };
}

const fixture = (name: string) => fs.readFileSync(path.join(DIR, `${name}.ttl`), 'utf8');
/** The valid institution with one piece of its text replaced. */
const variant = (from: string, to: string) => {
  const valid = fixture('valid');
  assert.ok(valid.includes(from), `valid.ttl contains ${from}`);
  return valid.replace(from, to);
};
const classes = (defects: readonly Defect[]) => [...new Set(defects.map((d) => d.defect))].sort();

/** Institutions as the canonical reading hands them to the describe stage, to be validated. */
const jobsOf = (batch: readonly { iri: string; ntriples: string }[]): DescriptionJob[] =>
  batch.map(({ iri, ntriples }, n) => ({
    subject: { isil: iri.slice(iri.lastIndexOf('/') + 1), iri, live: true, graph: `<${iri}>` },
    n,
    own: ntriples,
    linked: undefined,
    shared: [],
    validate: true,
  }));

/** The defects of each institution of `batch`, in order, described by `pool`. */
const validate = async (pool: DescribePool, batch: readonly { iri: string; ntriples: string }[]) =>
  (await pool.describe({ baseIri: BASE, jobs: jobsOf(batch) })).map((made) => made.defects!);

/** The defects of one institution, checked alone. */
const checkOne = async (pool: DescribePool, iri: string, ntriples: string) =>
  (await validate(pool, [{ iri, ntriples }]))[0]!;

describe('validate: the shapes of the published model', function () {
  before(needsThirdParty);
  // In this thread: the pool's threads run the very same function (see 'batches on a pool').
  let validator: DescribePool;
  const check = (turtle: string) => {
    const { iri, ntriples } = institution(turtle);
    return checkOne(validator, iri, ntriples);
  };
  before(() => {
    validator = DescribePool.start({ validate: true, workers: 0 });
  });
  after(() => validator.close());

  describe('records that are valid', () => {
    it('a published institution with every part the shapes check', async () =>
      assert.deepEqual(await check(fixture('valid')), []));
    it('a name-only record (no address, no coordinates, no modification time)', async () =>
      assert.deepEqual(await check(fixture('name-only')), []));
    it('a withdrawn record (owl:deprecated, dcterms:isReplacedBy; no name, no description)', async () =>
      assert.deepEqual(await check(fixture('withdrawn')), []));
    it('a withdrawn record that still has its name and address', async () =>
      assert.deepEqual(
        await check(
          variant(
            '  wdrs:describedby',
            '  owl:deprecated "1"^^xsd:boolean ;\n  wdrs:describedby',
          ).replace(/ {2}geo:location .*\n/, ''),
        ),
        [],
      ));
  });

  describe('the real DE-1a document, read from RDF/XML', () => {
    it('has no defect', async () => {
      const quads = await parseRdfXml(fs.readFileSync(DE_1A_RDF, 'utf8'));
      const ntriples = new Writer({ format: 'N-Triples' }).quadsToString(quads);
      assert.deepEqual(await checkOne(validator, DE_1A, ntriples), []);
    });
  });

  describe('one fixture per defect class triggers that class and no other', () => {
    for (const defect of DEFECT_CLASSES) {
      it(defect, async () => {
        const defects = await check(fixture(defect));
        assert.deepEqual(classes(defects), [defect]);
        for (const d of defects)
          assert.equal(d.focus, 'https://ld.zdb-services.de/resource/organisations/DE-X1');
      });
    }
    it('each defect says what is wrong', async () => {
      const [defect] = await check(fixture('malformed-isil'));
      assert.match(defect!.message, /not a well-formed ISIL.*\(ISIL\)DE2789/);
    });
    it('a defect of one shape reported by two constraints is listed once', async () =>
      assert.equal((await check(fixture('email-not-mailto'))).length, 1));
  });

  describe('the rules in detail', () => {
    const cases: readonly [string, string, string, readonly DefectClass[]][] = [
      [
        'two names',
        '  foaf:name "Stadtbibliothek Beispielstadt" ;',
        '  foaf:name "A", "B" ;',
        ['no-name'],
      ],
      ['a blank name', '"Stadtbibliothek Beispielstadt"', '"  "', ['no-name']],
      ['an identifier without "(ISIL)"', '"(ISIL)DE-X1"', '"DE-X1"', ['malformed-isil']],
      ['"(isil)" in lower case', '"(ISIL)DE-X1"', '"(isil)DE-X1"', ['malformed-isil']],
      ['an ISIL in another case', '"(ISIL)DE-X1"', '"(ISIL)de-x1"', []],
      ['no identifier', '  dc:identifier "(ISIL)DE-X1" ;\n', '', ['malformed-isil']],
      [
        'no description',
        '  wdrs:describedby <https://ld.zdb-services.de/data/organisations/DE-X1> .',
        '  owl:sameAs <http://lobid.org/organisation/DE-X1> .',
        ['description-incomplete'],
      ],
      [
        'a modification time that is no xsd:dateTime',
        '"2021-12-15T13:55:44.000"^^xsd:dateTime',
        '"15.12.2021"',
        ['description-incomplete'],
      ],
      [
        'a postal address alone needs no coordinates',
        'a v:Address, v:Pref ;',
        'a v:Address, v:Postal ;',
        [],
      ],
      [
        'a latitude with a decimal comma',
        '"52.50771"',
        '"52,50771"',
        ['coordinates-outside-country'],
      ],
      ['a latitude beyond the pole', '"52.50771"', '"95.1"', ['coordinates-outside-country']],
      [
        'a location without longitude',
        '; geo:long "13.37063"^^xsd:string ]',
        ']',
        ['coordinates-missing'],
      ],
      [
        'a postal code with letters',
        'v:postal-code "10785"',
        'v:postal-code "D-10785"',
        ['malformed-postcode'],
      ],
      [
        'a postal code that is an IRI',
        'v:postal-code "10772"',
        'v:postal-code <urn:x:10772>',
        ['malformed-postcode'],
      ],
      [
        'an e-mail as an http URL',
        '<mailto:info@stadtbibliothek.example.org>',
        '<http://stadtbibliothek.example.org/kontakt>',
        ['email-not-mailto'],
      ],
      [
        'an e-mail without a domain',
        '<mailto:info@stadtbibliothek.example.org>',
        '<mailto:info>',
        ['email-not-mailto'],
      ],
      [
        'a homepage as a literal',
        '<https://stadtbibliothek.example.org/>',
        '"https://stadtbibliothek.example.org/"',
        ['url-unparseable'],
      ],
      [
        'a homepage without a host',
        '<https://stadtbibliothek.example.org/>',
        '<http:///index.html>',
        ['url-unparseable'],
      ],
      [
        'a homepage with a space in the host',
        '<https://stadtbibliothek.example.org/>',
        '<http://stadt%20bibliothek/>',
        ['url-unparseable'],
      ],
      [
        'a homepage with an IDN host, a port and a query',
        '<https://stadtbibliothek.example.org/>',
        '<http://bücherei.example:8080/a?b=c#d>',
        [],
      ],
      [
        'a predicate that ends in no XML name',
        '  foaf:name "Stadtbibliothek Beispielstadt" ;',
        '  foaf:name "Stadtbibliothek Beispielstadt" ; <http://example.org/ns/> "x" ;',
        ['not-rdfxml'],
      ],
      [
        'rdf:li, which RDF/XML would read back as rdf:_1',
        '  foaf:name "Stadtbibliothek Beispielstadt" ;',
        '  foaf:name "Stadtbibliothek Beispielstadt" ; <http://www.w3.org/1999/02/22-rdf-syntax-ns#li> "x" ;',
        ['not-rdfxml'],
      ],
      [
        'a predicate whose XML name starts after digits',
        '  foaf:name "Stadtbibliothek Beispielstadt" ;',
        '  foaf:name "Stadtbibliothek Beispielstadt" ; <http://example.org/ns/123start> "x" ;',
        [],
      ],
      [
        'a tab, a line feed and a carriage return in a literal',
        '"Hauptstraße 1"',
        '"Haupt\\tstraße\\n1\\r"',
        [],
      ],
      [
        'U+FFFF in a name',
        '"Stadtbibliothek Beispielstadt"',
        '"Stadtbibliothek\\uFFFFBeispielstadt"',
        ['not-rdfxml'],
      ],
      [
        'a catalogue on ftp:',
        '<https://katalog.example.org/?q=1>',
        '<ftp://katalog.example.org/>',
        ['url-unparseable'],
      ],
      [
        'a v:url on file:',
        '<https://stadtbibliothek.example.org/%C3%B6ffnungszeiten>',
        '<file:///etc/passwd>',
        ['url-unparseable'],
      ],
    ];
    for (const [name, from, to, expected] of cases)
      it(`${name}: ${expected.length === 0 ? 'valid' : expected.join(', ')}`, async () =>
        assert.deepEqual(classes(await check(variant(from, to))), expected));
  });

  describe('rules by the country of the ISIL prefix', () => {
    /** valid.ttl moved to another ISIL, postal code and place. */
    const at = (isil: string, postcode: string, lat: string, long: string) =>
      fixture('valid')
        .replaceAll('DE-X1', isil)
        .replace('"10785"', `"${postcode}"`)
        .replace('"10772"', `"${postcode}"`)
        .replace('"52.50771"', `"${lat}"`)
        .replace('"13.37063"', `"${long}"`);
    const cases: readonly [string, string, readonly DefectClass[]][] = [
      ['Vienna, AT', at('AT-OeNB', '1015', '48.20', '16.37'), []],
      ['Zurich, CH', at('CH-000001-X', '8001', '47.37', '8.54'), []],
      ['Vaduz, LI', at('LI-LB', '9490', '47.14', '9.52'), []],
      [
        'an Austrian postal code of five digits',
        at('AT-OeNB', '10150', '48.20', '16.37'),
        ['malformed-postcode'],
      ],
      [
        'a German postal code in Switzerland',
        at('CH-000001-X', '10785', '47.37', '8.54'),
        ['malformed-postcode'],
      ],
      [
        'Berlin coordinates for Vienna',
        at('AT-OeNB', '1015', '52.50', '13.37'),
        ['coordinates-outside-country'],
      ],
      ['a London postal code for a GB ISIL', at('GB-UkLiU', 'SW1A 1AA', '51.5', '-0.12'), []],
      [
        'a street in the postal code of a GB ISIL',
        at('GB-UkLiU', 'Great Russell Street 1', '51.5', '-0.12'),
        ['malformed-postcode'],
      ],
      [
        'a ZDB product anywhere on Earth (no box for ZDB)',
        at('ZDB-1-AAS4', '10785', '-33.9', '151.2'),
        [],
      ],
      [
        'an ISIL in lower case keeps its country',
        at('de-x1', '1078', '52.5', '13.4'),
        ['malformed-postcode'],
      ],
    ];
    for (const [name, turtle, expected] of cases)
      it(`${name}: ${expected.length === 0 ? 'valid' : expected.join(', ')}`, async () =>
        assert.deepEqual(classes(await check(turtle)), expected));
  });

  describe('the ISIL pattern of the shapes is the rule of src/rdf/isil.ts', () => {
    let matches: (isil: string) => boolean;
    before(() => {
      const base = pathToFileURL(SHAPES_FILE).href;
      const quads = new Parser({ baseIRI: base }).parse(fs.readFileSync(SHAPES_FILE, 'utf8'));
      const of = (p: string) =>
        quads.find(
          (q: Quad) => q.subject.value === `${base}#isil` && q.predicate.value.endsWith(p),
        )!.object.value;
      const re = new RegExp(of('#pattern'), of('#flags'));
      const maxLength = Number(of('#maxLength'));
      matches = (isil) => `(ISIL)${isil}`.length <= maxLength && re.test(`(ISIL)${isil}`);
    });
    const agree = (isil: string) =>
      assert.equal(matches(isil), isilDefect(isil) === undefined, `"${isil}"`);

    it('for every two-letter prefix, in both cases', () => {
      for (let a = 65; a <= 90; a++)
        for (let b = 65; b <= 90; b++) {
          const prefix = String.fromCharCode(a, b);
          agree(`${prefix}-1`);
          agree(`${prefix.toLowerCase()}-1`);
        }
    });
    it('for the shapes and lengths of prefix and local part', () => {
      for (const isil of [
        'DE-1a',
        'DE-38-436',
        'ZDB-1-AAS4',
        'DE-MUS-872815',
        'O-1',
        'OCLC-X',
        'GB-LO/N38',
        'D1-x',
        'DE-',
        '-1',
        'DE--1',
        'DE-1-',
        'DE-1/',
        'DE-1//2',
        'DE-/1',
        'DE-:',
        'DE-a:b',
        'ABCDE-1',
        'DE-123456789012',
        'DE-1234567890123',
        'DE2789',
        '3064',
        'DE%5F4050',
        'ZDB‑18‑BSPI',
        'De-4115',
        'DE-1 a',
        'DE-1\n',
        '',
        'UK-1',
        'EU-1',
        'XX-1',
        '12-3',
        '1-2',
        'A1B-2',
      ])
        agree(isil);
    });
    it('for every ISIL of the real lobid name list', () => {
      const rows = fs
        .readFileSync(
          path.join(REAL_DATA, 'lobid-organisations_isil-sigel-name_2023-11.tsv'),
          'utf8',
        )
        .split('\n')
        .slice(1)
        .map((line) => line.split('\t')[1])
        .filter((isil): isil is string => isil !== undefined);
      assert.ok(rows.length > 18_000);
      for (const isil of rows) agree(isil);
    });
  });

  describe('shapes that cannot be used are refused', () => {
    let dir: string;
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isil-ld-shapes-'));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const shapes = (name: string, body: string) => {
      const file = path.join(dir, name);
      fs.writeFileSync(
        file,
        `@prefix : <#> . @prefix sh: <http://www.w3.org/ns/shacl#> .\n@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n${body}`,
      );
      return file;
    };

    const start = async (shapesFile: string) =>
      DescribePool.start({ shapesFile, validate: true, workers: 1 });
    it('a file that is not Turtle', () =>
      assert.rejects(start(shapes('broken.ttl', ':a :b')), ShapesError));
    it('a shape with a constraint but no defect class', () =>
      assert.rejects(
        start(
          shapes(
            'unmapped.ttl',
            ':S sh:targetClass foaf:Organization ; sh:property [ sh:path foaf:name ; sh:minCount 1 ] .',
          ),
        ),
        /names no :defect class/,
      ));
    it('a defect class that the load report does not know', () =>
      assert.rejects(
        start(
          shapes(
            'unknown.ttl',
            ':S sh:targetClass foaf:Organization ; :defect "too-old" ; sh:property [ sh:path foaf:name ; sh:minCount 1 ] .',
          ),
        ),
        /"too-old", which is none of/,
      ));
    it('owl:imports, which the validator does not follow', () =>
      assert.rejects(
        start(shapes('imports.ttl', '<> <http://www.w3.org/2002/07/owl#imports> <urn:x:more> .')),
        /owl:imports/,
      ));
    it('a property shape inherits the class of the shape that holds it', async () => {
      const v = await start(
        shapes(
          'inherit.ttl',
          ':S sh:targetClass foaf:Organization ; :defect "no-name" ; sh:property [ sh:path foaf:name ; sh:minCount 1 ] .',
        ),
      );
      const { iri, ntriples } = institution(
        '<https://ld.zdb-services.de/resource/organisations/DE-X9> a <http://xmlns.com/foaf/0.1/Organization> .',
      );
      try {
        assert.deepEqual(classes(await checkOne(v, iri, ntriples)), ['no-name']);
      } finally {
        await v.close();
      }
    });
  });

  describe('batches on a pool of workers', () => {
    /** valid.ttl as the institution ISIL, with the defects it is given. */
    const cases: readonly [string, readonly DefectClass[]][] = [
      ['DE-P1', []],
      ['DE-P2', ['no-name']],
      ['DE-P3', []],
      ['DE-P4', ['email-not-mailto']],
      ['DE-P5', ['malformed-postcode']],
    ];
    const broken: Record<string, [string, string]> = {
      'no-name': ['  foaf:name "Stadtbibliothek Beispielstadt" ;', ''],
      'email-not-mailto': [
        '<mailto:info@stadtbibliothek.example.org>',
        '<http://stadtbibliothek.example.org/kontakt>',
      ],
      'malformed-postcode': ['v:postal-code "10785"', 'v:postal-code "D-10785"'],
    };
    const batch = cases.map(([isil, defects]) => {
      let turtle = fixture('valid');
      for (const d of defects) turtle = turtle.replace(...broken[d]!);
      return institution(turtle.replaceAll('DE-X1', isil));
    });

    it('answers each institution of a batch in order, with its own defects', async () => {
      const found = await validate(validator, batch);
      assert.deepEqual(
        found.map(classes),
        cases.map(([, defects]) => defects),
      );
      found.forEach((defects, i) => {
        for (const d of defects) assert.equal(d.focus, batch[i]!.iri);
      });
    });
    it('answers batches sent at once to two workers, each with its own results', async () => {
      const two = DescribePool.start({ validate: true, workers: 2 });
      try {
        assert.equal(two.workers, 2);
        const rotations = cases.map((_, k) => [...batch.slice(k), ...batch.slice(0, k)]);
        const answers = await Promise.all(rotations.map((b) => validate(two, b)));
        answers.forEach((found, k) =>
          assert.deepEqual(
            found.map(classes),
            rotations[k]!.map((b) => cases[batch.indexOf(b)]![1]),
          ),
        );
      } finally {
        await two.close();
      }
    });
    it('a pool that stops while it owes answers fails them, and every later batch, with why', async () => {
      // Closing is one of the ways an engine stops (as a worker that dies or does not answer in
      // time does): the batches it owes must fail with the reason, not hang the loader.
      const pool = DescribePool.start({ validate: true, workers: 1 });
      const owed = assert.rejects(validate(pool, batch), /the describing threads were closed/);
      await pool.close();
      await owed;
      await assert.rejects(validate(pool, batch), /the describing threads were closed/);
    });
    it('an empty batch has no results', async () =>
      assert.deepEqual(await validate(validator, []), []));
    it('the loader, sending many batches without waiting, counts what each institution alone has', async () => {
      // 900 generated institutions, about a tenth without coordinates: more batches than the two
      // workers may hold, so the loader also waits for answers on the way.
      const texts = [...generate({ count: 900, seed: 11, base: BASE })];
      const alone = await validate(
        validator,
        texts.map((ntriples) => ({ iri: /^<([^>]+)>/.exec(ntriples)![1]!, ntriples })),
      );
      const expected = new Map<DefectClass, number>();
      for (const defects of alone)
        for (const { defect } of defects) expected.set(defect, (expected.get(defect) ?? 0) + 1);
      assert.ok((expected.get('coordinates-missing') ?? 0) > 20, 'the case has defects to count');

      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isil-ld-validate-'));
      try {
        const file = path.join(dir, 'generated.nt');
        fs.writeFileSync(file, texts.join(''));
        const { dataset, report } = await loadSources([file], {
          baseIri: BASE,
          validate: true,
          workers: 2,
        });
        dataset.free();
        assert.deepEqual(new Map(report.defects.map((d) => [d.defect, d.count])), expected);
        assert.equal(report.defective, alone.filter((d) => d.length > 0).length);
        // Each example is a defect its institution has alone: answers went to their own.
        const byIri = new Map(texts.map((t, k) => [/^<([^>]+)>/.exec(t)![1]!, alone[k]!]));
        for (const { examples } of report.defects)
          for (const example of examples)
            assert.ok(
              byIri.get(example.focus)!.some((d) => util.isDeepStrictEqual(d, example)),
              `${example.focus} ${example.defect}`,
            );
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
    it('finds the same defects in the descriptions the canonical reading reads as in each read by its own query', async () => {
      // The first load reads every description canonically, and the shapes check them as it goes;
      // the second finds the version's states in the cache, reads nothing canonically, and the
      // shapes read each description from the store by its own query (describe.rq).
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isil-ld-validate-'));
      try {
        const file = path.join(dir, 'generated.nt');
        fs.writeFileSync(file, [...generate({ count: 400, seed: 12, base: BASE })].join(''));
        const options = {
          baseIri: BASE,
          validate: true,
          workers: 2,
          statesCache: path.join(dir, 'cache'),
        };
        const read = await loadSources([file], options);
        read.dataset.free();
        const queried = await loadSources([file], options);
        queried.dataset.free();
        assert.ok(read.canonical, 'the first load read its descriptions canonically');
        assert.equal(queried.canonical, undefined, 'the second took its states from the cache');
        assert.ok(read.report.defective > 10, 'the case has defects to find');
        assert.deepEqual(queried.report.defects, read.report.defects);
        assert.equal(queried.report.defective, read.report.defective);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
    it('a closed validator refuses batches with a clear error instead of waiting', async () => {
      const closed = DescribePool.start({ validate: true, workers: 1 });
      await closed.close();
      await assert.rejects(validate(closed, batch), /the describing threads were closed/);
    });
  });

  it('text that is not N-Triples is an error naming the institution', () =>
    assert.rejects(
      checkOne(validator, DE_1A, '<a> <b> .'),
      new RegExp(`^Error: ${DE_1A}: not N-Triples`),
    ));
});
