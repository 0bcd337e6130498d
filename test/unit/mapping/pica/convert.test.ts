// The PICA+ converter: each row of docs/data-model.md's `zdb` mapping (read through the `zdb`
// projection, zdbProjection, since the converter writes the `full` fields beside them),
// display flags, statuses, both eras of the format, NFC and white space, one node per phone number,
// and N-Triples Oxigraph accepts.
import assert from 'node:assert/strict';
import { Parser, type Quad } from 'n3';
import oxigraph from 'oxigraph';
import { convertRecord, type ConvertOptions } from '../../../../src/mapping/pica/convert';
import type { PicaRecord } from '../../../../src/mapping/pica/read';
import type { SkippedRecord, SourceRecord } from '../../../../src/mapping/sourceRecord';
import { CC0, PREFIXES, XSD_STRING } from '../../../../src/rdf/namespaces';
import { zdbProjection } from '../../../../src/rdf/profiles';

const { rdf, rdfs, xsd, owl, foaf, v, dbp, dc, dcterms, geo, wgs84, schema, gbv, wdrs, cdtype } =
  PREFIXES;
const BASE = 'https://example.org/isil';
const OPTIONS: ConvertOptions = { baseIri: BASE, origin: 'test.dat#1', blankNodePrefix: 'p7x' };
const R = `${BASE}/resource/organisations/DE-Xy1`;
const D = `${BASE}/data/organisations/DE-Xy1`;

type FieldSpec = [tag: string, ...subfields: [code: string, value: string][]];

/** A record of the given fields, after the identity fields every record has. */
function record(...fields: FieldSpec[]): PicaRecord {
  const all: FieldSpec[] = [
    ['001B', ['0', '9006:18-11-22'], ['t', '14:37:34.000']],
    ['003@', ['0', '4711']],
    ['008H', ['e', 'DE-Xy1']],
    ...fields,
  ];
  const hasStatus = fields.some(([tag]) => tag === '035E');
  if (!hasStatus) all.push(['035E', ['a', 'H']]);
  return {
    id: '4711',
    position: 'line 1',
    fields: all.map(([tag, ...subfields]) => ({
      tag,
      occurrence: undefined,
      subfields: subfields.map(([code, value]) => ({ code, value })),
    })),
  };
}

function convert(rec: PicaRecord): SourceRecord {
  const result = convertRecord(rec, OPTIONS);
  assert.ok('ntriples' in result, JSON.stringify(result));
  return result;
}

function skipped(rec: PicaRecord): SkippedRecord {
  const result = convertRecord(rec, OPTIONS);
  assert.ok('kind' in result, JSON.stringify(result));
  return result;
}

class Graph {
  readonly quads: Quad[];
  constructor(ntriples: string, profile: 'zdb' | 'full' = 'full') {
    const quads = new Parser({ format: 'application/n-triples' }).parse(ntriples);
    this.quads = profile === 'zdb' ? zdbProjection(quads) : quads;
  }
  objects(subject: string, predicate: string): Quad['object'][] {
    return this.quads
      .filter((q) => q.subject.value === subject && q.predicate.value === predicate)
      .map((q) => q.object);
  }
  values(subject: string, predicate: string): string[] {
    return this.objects(subject, predicate).map((o) => o.value);
  }
  /** The nodes `R p ?node`, each as its types and its other values. */
  nodes(predicate: string): { types: string[]; props: Record<string, string[]> }[] {
    return this.objects(R, predicate).map((node) => {
      const props: Record<string, string[]> = {};
      for (const q of this.quads.filter((x) => x.subject.equals(node)))
        if (q.predicate.value !== `${rdf}type`)
          (props[q.predicate.value] ??= []).push(q.object.value);
      return { types: this.values(node.value, `${rdf}type`).sort(), props };
    });
  }
}

const graph = (...fields: FieldSpec[]) => new Graph(convert(record(...fields)).ntriples, 'zdb');

describe('convertRecord', () => {
  describe('identity and description document', () => {
    let result: SourceRecord;
    let g: Graph;
    before(() => {
      result = convert(record(['029A', ['a', 'Stadtbibliothek Mu\u0308nster']]));
      g = new Graph(result.ntriples, 'zdb');
    });
    it('is a published record of the ISIL in 008H $e', () => {
      assert.equal(result.isil, 'DE-Xy1');
      assert.equal(result.status, 'published');
      assert.equal(result.origin, 'test.dat#1');
      assert.equal(result.successor, undefined);
    });
    it('a foaf:Organization under the given base', () =>
      assert.deepEqual(g.values(R, `${rdf}type`), [`${foaf}Organization`]));
    it('foaf:name from 029A $a, in NFC, typed xsd:string', () => {
      const [name] = g.objects(R, `${foaf}name`);
      assert.equal(name!.value, 'Stadtbibliothek M\u00fcnster');
      assert.equal((name as { datatype: { value: string } }).datatype.value, XSD_STRING);
    });
    it('dc:identifier "(ISIL)…"', () =>
      assert.deepEqual(g.values(R, `${dc}identifier`), ['(ISIL)DE-Xy1']));
    it('owl:sameAs lobid', () =>
      assert.deepEqual(g.values(R, `${owl}sameAs`), ['http://lobid.org/organisation/DE-Xy1']));
    it('wdrs:describedby the description, which carries CC0', () => {
      assert.deepEqual(g.values(R, `${wdrs}describedby`), [D]);
      assert.deepEqual(g.values(D, `${dcterms}license`), [CC0]);
    });
    it('dcterms:modified from 001B, as the original writes it (no time zone)', () => {
      const [modified] = g.objects(D, `${dcterms}modified`);
      assert.equal(modified!.value, '2022-11-18T14:37:34.000');
      assert.equal((modified as { datatype: { value: string } }).datatype.value, `${xsd}dateTime`);
      assert.equal(result.modified?.toISOString(), '2022-11-18T14:37:34.000Z');
    });
    it('nothing else', () =>
      assert.deepEqual(
        [...new Set(g.quads.map((q) => q.predicate.value))].sort(),
        [
          `${rdf}type`,
          `${foaf}name`,
          `${dc}identifier`,
          `${owl}sameAs`,
          `${wdrs}describedby`,
          `${dcterms}license`,
          `${dcterms}modified`,
        ].sort(),
      ));
  });

  describe('each row of the mapping', () => {
    it('dbp:shortName from 029@ $a where $4 = c only', () =>
      assert.deepEqual(
        graph(['029@', ['a', 'Lang'], ['4', 'a']], ['029@', ['a', 'Kurz'], ['4', 'c']]).values(
          R,
          `${dbp}shortName`,
        ),
        ['Kurz'],
      ));
    it('foaf:homepage from the first 009Q $z A', () =>
      assert.deepEqual(
        graph(
          ['009Q', ['u', 'https://a.example/'], ['z', 'A']],
          ['009Q', ['u', 'https://b.example/'], ['z', 'A']],
        ).values(R, `${foaf}homepage`),
        ['https://a.example/'],
      ));
    it('gbv:opac, a cdtype:CatalogueOrIndex with its foaf:homepage, from each 009Q $z B', () =>
      assert.deepEqual(
        graph(
          ['009Q', ['u', 'https://opac.example/'], ['z', 'B']],
          ['009Q', ['u', 'https://opac2.example/'], ['z', 'B']],
        ).nodes(`${gbv}opac`),
        [
          {
            types: [`${cdtype}CatalogueOrIndex`],
            props: { [`${foaf}homepage`]: ['https://opac.example/'] },
          },
          {
            types: [`${cdtype}CatalogueOrIndex`],
            props: { [`${foaf}homepage`]: ['https://opac2.example/'] },
          },
        ],
      ));
    it('v:url, the URL itself with its dc:description, from each 009Q $z W', () => {
      const g = graph(
        ['009Q', ['u', 'https://x.example/srv'], ['x', 'Online-Auskunft'], ['z', 'W']],
        ['009Q', ['u', 'https://x.example/api'], ['z', 'W']],
      );
      assert.deepEqual(g.values(R, `${v}url`), ['https://x.example/srv', 'https://x.example/api']);
      assert.deepEqual(g.values('https://x.example/srv', `${dc}description`), ['Online-Auskunft']);
      assert.deepEqual(g.values('https://x.example/api', `${dc}description`), []);
    });
    describe('032P $2 S, the main address', () => {
      let g: Graph;
      before(
        () =>
          (g = graph([
            '032P',
            ['a', 'Hauptstr. 1'],
            ['b', 'Ko\u0308ln'],
            ['d', 'DE'],
            ['e', '50931'],
            ['f', 'Nordrhein-Westfalen'],
            ['i', 'Mo-Fr 9-18'],
            ['j', 'Lesesaal s. Homepage'],
            ['k', '6.92859'],
            ['l', '50.92592'],
            ['n', '05315000'],
            ['p', 'j'],
            ['2', 'S'],
          ])),
      );
      it('v:adr, a v:Address and v:Pref with street ($a), locality ($b), postcode ($e)', () =>
        assert.deepEqual(g.nodes(`${v}adr`), [
          {
            types: [`${v}Address`, `${v}Pref`],
            props: {
              [`${v}street-address`]: ['Hauptstr. 1'],
              [`${v}locality`]: ['K\u00f6ln'],
              [`${v}postal-code`]: ['50931'],
            },
          },
        ]));
      it('geo:location, a wgs84:SpatialThing with geo:lat ($l) and geo:long ($k)', () =>
        assert.deepEqual(g.nodes(`${geo}location`), [
          {
            types: [`${wgs84}SpatialThing`],
            props: { [`${geo}lat`]: ['50.92592'], [`${geo}long`]: ['6.92859'] },
          },
        ]));
      it('coordinates stay strings typed xsd:string, as the original types them', () =>
        assert.ok(
          g.quads
            .filter((q) => q.predicate.value === `${geo}lat`)
            .every(
              (q) => (q.object as { datatype: { value: string } }).datatype.value === XSD_STRING,
            ),
        ));
      it('schema:openingHoursSpecification with rdfs:comment ($i) and schema:description ($j)', () =>
        assert.deepEqual(g.nodes(`${schema}openingHoursSpecification`), [
          {
            types: [`${schema}OpeningHoursSpecification`],
            props: {
              [`${rdfs}comment`]: ['Mo-Fr 9-18'],
              [`${schema}description`]: ['Lesesaal s. Homepage'],
            },
          },
        ]));
      it('country, region and district key are not published', () =>
        assert.ok(
          !g.quads.some((q) => ['DE', 'Nordrhein-Westfalen', '05315000'].includes(q.object.value)),
        ));
    });
    it('no geo:location without both coordinates', () =>
      assert.deepEqual(
        graph(['032P', ['b', 'Bonn'], ['l', '50.7'], ['2', 'S']]).nodes(`${geo}location`),
        [],
      ));
    it('v:adr, a v:Address, v:Postal and v:Parcel with locality and postcode, from each 032P $2 P', () =>
      assert.deepEqual(
        graph(['032P', ['b', 'Berlin'], ['d', 'DE'], ['e', '10772'], ['p', 'j'], ['2', 'P']]).nodes(
          `${v}adr`,
        ),
        [
          {
            types: [`${v}Address`, `${v}Parcel`, `${v}Postal`],
            props: { [`${v}locality`]: ['Berlin'], [`${v}postal-code`]: ['10772'] },
          },
        ],
      ));
    describe('035B contacts', () => {
      let g: Graph;
      before(
        () =>
          (g = graph(
            [
              '035B',
              ['a', 'S'],
              ['c', 'j'],
              ['d', '49'],
              ['e', '30'],
              ['f', '2 66-433888'],
              ['g', '49'],
              ['h', '30'],
              ['i', '2 66-333501'],
              ['k', 'info@example.org'],
            ],
            // A later contact repeating the main numbers, as the real DE-1a record does.
            [
              '035B',
              ['a', 'W'],
              ['b', 'Fernleihe'],
              ['d', '49'],
              ['e', '30'],
              ['f', '2 66-433888'],
              ['g', '49'],
              ['h', '30'],
              ['i', '2 66-338432'],
              ['k', 'fl@example.org'],
            ],
            ['035B', ['a', 'W'], ['d', '49'], ['e', '30'], ['f', '2 66-333501']],
          )),
      );
      const tels = () =>
        g
          .nodes(`${v}tel`)
          .map((n) => [
            n.types.map((t) => t.slice(v.length)).join(' '),
            ...n.props[`${rdf}value`]!,
          ]);
      it('v:tel voice ($d $e $f) and fax ($g $h $i) as "+cc area number", v:Pref for the main contact, each number once', () =>
        assert.deepEqual(tels(), [
          ['Pref Voice', '+49 30 2 66-433888'],
          ['Fax Pref', '+49 30 2 66-333501'],
          ['Fax', '+49 30 2 66-338432'],
          // The same number as the main fax, but as a voice number: its own node.
          ['Voice', '+49 30 2 66-333501'],
        ]));
      it('v:email as mailto: IRIs, with no literal rdf:type (a quirk of the original)', () => {
        assert.deepEqual(g.values(R, `${v}email`), [
          'mailto:info@example.org',
          'mailto:fl@example.org',
        ]);
        assert.ok(!g.quads.some((q) => q.subject.value.startsWith('mailto:')));
      });
      it('the main contact keeps v:Pref even when it comes after a later one', () => {
        const later = graph(
          ['035B', ['a', 'W'], ['f', '1'], ['k', 'w@example.org']],
          ['035B', ['a', 'S'], ['f', '1']],
        );
        assert.deepEqual(
          later.nodes(`${v}tel`).map((n) => n.types),
          [[`${v}Pref`, `${v}Voice`]],
        );
      });
    });
    it('dc:description from every 047A $a', () =>
      assert.deepEqual(
        graph(['047A', ['a', 'Eins'], ['a', 'Zwei']], ['047A', ['a', 'Drei']]).values(
          R,
          `${dc}description`,
        ),
        ['Eins', 'Zwei', 'Drei'],
      ));
    it('leaves out what the model does not publish (sigel, type, ILL, subjects, predecessors)', () => {
      const g = graph(
        ['008H', ['d', '1a']],
        ['035D', ['a', 'He 201'], ['b', 'DE-He201']],
        ['035G', ['a', 'Recht']],
        ['035L', ['a', 'e'], ['d', 'ill@example.org']],
      );
      assert.ok(!g.quads.some((q) => /He 201|DE-He201|Recht|ill@/.test(q.object.value)));
    });
  });

  describe('display flags', () => {
    it('an address with 032P $p n is not published, nor its coordinates and hours', () => {
      const g = graph(
        [
          '032P',
          ['a', 'Geheim 1'],
          ['b', 'Bonn'],
          ['i', 'Mo'],
          ['k', '7.1'],
          ['l', '50.7'],
          ['p', 'n'],
          ['2', 'S'],
        ],
        ['032P', ['b', 'Bonn'], ['e', '53111'], ['p', 'n'], ['2', 'P']],
      );
      for (const p of [`${v}adr`, `${geo}location`, `${schema}openingHoursSpecification`])
        assert.deepEqual(g.objects(R, p), [], p);
    });
    it('a contact with 035B $c n is not published', () => {
      const g = graph([
        '035B',
        ['a', 'S'],
        ['c', 'n'],
        ['d', '49'],
        ['f', '123'],
        ['k', 'x@example.org'],
      ]);
      assert.deepEqual(g.objects(R, `${v}tel`), []);
      assert.deepEqual(g.objects(R, `${v}email`), []);
    });
    it('an address or contact without a flag is published', () => {
      const g = graph(
        ['032P', ['b', 'Bonn'], ['2', 'S']],
        ['035B', ['a', 'W'], ['k', 'y@example.org']],
      );
      assert.equal(g.objects(R, `${v}adr`).length, 1);
      assert.equal(g.objects(R, `${v}email`).length, 1);
    });
  });

  describe('record status (035E $a)', () => {
    it('P (a product record) is published like H', () =>
      assert.equal(convert(record(['035E', ['a', 'P'], ['f', '89']])).status, 'published'));
    it('N is skipped by rule, with the ISIL', () =>
      assert.deepEqual(skipped(record(['035E', ['a', 'N']])), {
        origin: 'test.dat#1',
        id: 'DE-Xy1',
        reason: 'status N (a location without address) is not published',
        kind: 'not-published',
      }));
    it('an unknown status is malformed', () =>
      assert.equal(
        skipped(record(['035E', ['a', 'Q']])).reason,
        'unknown record status "Q" (035E $a)',
      ));
    it('no status is malformed', () => {
      const rec = record();
      const without = { ...rec, fields: rec.fields.filter((f) => f.tag !== '035E') };
      assert.equal(skipped(without).kind, 'malformed');
    });
    it('records of both eras convert: the 2025 type codes (00, 83, 85) and subfield $m', () => {
      for (const fields of [
        [
          ['a', 'H'],
          ['b', 's'],
          ['c', '0011'],
          ['e', 'GBV'],
          ['f', '11'],
          ['g', '07'],
          ['h', '10'],
          ['l', 'CC0'],
        ],
        [
          ['a', 'H'],
          ['b', 'm'],
          ['f', '85'],
          ['g', '02'],
          ['h', '04'],
        ],
        [
          ['a', 'H'],
          ['f', '00'],
          ['m', 'x'],
        ],
        [
          ['a', 'P'],
          ['f', '83'],
          ['m', 'Lizenz'],
        ],
      ] as [string, string][][])
        assert.equal(convert(record(['035E', ...fields])).status, 'published');
    });

    describe('I: withdrawn', () => {
      let result: SourceRecord;
      let g: Graph;
      before(() => {
        result = convert(
          record(
            ['029A', ['a', 'fru\u0308her: Institut']],
            ['032P', ['b', 'Berlin'], ['2', 'S']],
            ['035E', ['a', 'I']],
            ['047A', ['a', 'Aufgegangen in DE-11-97']],
          ),
        );
        g = new Graph(result.ntriples, 'zdb');
      });
      it('is withdrawn, with the successor its note names', () => {
        assert.equal(result.status, 'withdrawn');
        assert.equal(result.successor, 'DE-11-97');
      });
      it('carries only the minimal description, owl:deprecated and dcterms:isReplacedBy', () => {
        assert.deepEqual(
          g.quads.map((q) => `${q.subject.value} ${q.predicate.value} ${q.object.value}`).sort(),
          [
            `${R} ${rdf}type ${foaf}Organization`,
            `${R} ${foaf}name fr\u00fcher: Institut`,
            `${R} ${dc}identifier (ISIL)DE-Xy1`,
            `${R} ${owl}deprecated true`,
            `${R} ${dcterms}isReplacedBy ${BASE}/resource/organisations/DE-11-97`,
            `${R} ${wdrs}describedby ${D}`,
            `${D} ${dcterms}license ${CC0}`,
            `${D} ${dcterms}modified 2022-11-18T14:37:34.000`,
          ].sort(),
        );
        const [deprecated] = g.objects(R, `${owl}deprecated`);
        assert.equal(
          (deprecated as { datatype: { value: string } }).datatype.value,
          `${xsd}boolean`,
        );
      });
      it('finds the successor in lobid’s form of the note too ("Ungültig; … aufgegangen in …")', () =>
        assert.equal(
          convert(
            record(
              ['035E', ['a', 'I']],
              ['047A', ['a', 'Ungu\u0308ltig; 2019 aufgegangen in DE-38; s. dort']],
            ),
          ).successor,
          'DE-38',
        ));
      it('without such a note there is no successor and no dcterms:isReplacedBy', () => {
        const plain = convert(record(['035E', ['a', 'I']], ['047A', ['a', 'Geschlossen 2010']]));
        assert.equal(plain.successor, undefined);
        assert.ok(!plain.ntriples.includes(`${dcterms}isReplacedBy`));
      });
      it('a note naming a malformed ISIL or the record itself gives no successor', () => {
        assert.equal(
          convert(record(['035E', ['a', 'I']], ['047A', ['a', 'aufgegangen in XX2-']])).successor,
          undefined,
        );
        assert.equal(
          convert(record(['035E', ['a', 'I']], ['047A', ['a', 'aufgegangen in DE-Xy1']])).successor,
          undefined,
        );
      });
    });
  });

  describe('records that cannot be converted', () => {
    it('no ISIL: malformed, with the record id', () => {
      const rec = record();
      assert.deepEqual(skipped({ ...rec, fields: rec.fields.filter((f) => f.tag !== '008H') }), {
        origin: 'test.dat#1',
        id: '4711',
        reason: 'no ISIL (008H $e)',
        kind: 'malformed',
      });
    });
    it('an ISIL that cannot stand in an IRI: malformed', () => {
      const rec = record();
      const fields = rec.fields.map((f) =>
        f.tag === '008H' ? { ...f, subfields: [{ code: 'e', value: 'DE 1<a>' }] } : f,
      );
      assert.equal(skipped({ ...rec, fields }).kind, 'malformed');
    });
    it('a malformed ISIL that can stand in an IRI is converted: the loader judges its syntax', () => {
      const rec = record();
      const fields = rec.fields.map((f) =>
        f.tag === '008H' ? { ...f, subfields: [{ code: 'e', value: 'DE2789' }] } : f,
      );
      assert.equal(convert({ ...rec, fields }).isil, 'DE2789');
    });
  });

  describe('text', () => {
    it('every literal in NFC with white-space runs collapsed to one space', () => {
      const g = graph(
        ['029A', ['a', '  Universita\u0308t\n\t\t\tBibliothek   Ko\u0308ln ']],
        ['047A', ['a', 'A\u0308\tB']],
      );
      assert.deepEqual(g.values(R, `${foaf}name`), ['Universit\u00e4t Bibliothek K\u00f6ln']);
      assert.deepEqual(g.values(R, `${dc}description`), ['\u00c4 B']);
    });
    it('escapes quotes, backslashes and control characters so the N-Triples parse', () =>
      assert.deepEqual(graph(['029A', ['a', 'Say "hi" \\ \u0007bell']]).values(R, `${foaf}name`), [
        'Say "hi" \\ \u0007bell',
      ]));
    it('an empty value gives no triple', () =>
      assert.deepEqual(graph(['029@', ['a', '  '], ['4', 'c']]).values(R, `${dbp}shortName`), []));
    it('URLs: www. gets http://, spaces are percent-encoded, what is no URL is left out', () =>
      assert.deepEqual(
        graph(
          ['009Q', ['u', 'www.example.org/a'], ['z', 'W']],
          ['009Q', ['u', 'https://example.org/a b'], ['z', 'W']],
          ['009Q', ['u', 'siehe Homepage'], ['z', 'W']],
          ['009Q', ['u', 'http://[broken'], ['z', 'W']],
        ).values(R, `${v}url`),
        ['http://www.example.org/a', 'https://example.org/a%20b'],
      ));
  });

  describe('001B, the modification time', () => {
    const modifiedOf = (date: string, time?: string) => {
      const rec = record();
      const fields = rec.fields.map((f) =>
        f.tag === '001B'
          ? {
              ...f,
              subfields: [
                { code: '0', value: date },
                ...(time === undefined ? [] : [{ code: 't', value: time }]),
              ],
            }
          : f,
      );
      return convert({ ...rec, fields });
    };
    it('two-digit years 69–99 are 19xx', () =>
      assert.equal(
        modifiedOf('9006:18-11-99', '10:00:00.000').modified?.toISOString(),
        '1999-11-18T10:00:00.000Z',
      ));
    it('a time without milliseconds, or none, is completed', () => {
      assert.ok(
        modifiedOf('9006:01-02-03', '04:05:06').ntriples.includes('"2003-02-01T04:05:06.000"'),
      );
      assert.ok(modifiedOf('9006:01-02-03').ntriples.includes('"2003-02-01T00:00:00.000"'));
    });
    it('a date that does not exist gives no modification time', () => {
      const result = modifiedOf('9006:31-02-21', '10:00:00.000');
      assert.equal(result.modified, undefined);
      assert.ok(!result.ntriples.includes(`${dcterms}modified`));
    });
  });

  describe('N-Triples', () => {
    let result: SourceRecord;
    before(
      () =>
        (result = convert(
          record(
            ['009Q', ['u', 'http://stabikat.de'], ['z', 'B']],
            ['032P', ['b', 'Berlin'], ['k', '13.3'], ['l', '52.5'], ['i', 'Mo'], ['2', 'S']],
            ['035B', ['a', 'S'], ['f', '1'], ['i', '2']],
          ),
        )),
    );
    it('blank-node labels start with the prefix the caller gives', () => {
      const labels = result.ntriples.match(/_:\S+/g)!;
      assert.ok(labels.length >= 5);
      assert.ok(labels.every((l) => l.startsWith('_:p7x')));
    });
    it('free-text URLs and e-mails of every kind give IRIs Oxigraph accepts, or none', () => {
      const hostile = [
        'http://example.org/100%zz',
        'http://example.org/a[1]',
        'http://example.org/#a#b',
        'http://example.org/{x}|y^z`',
        'http://example.org/\u{1F4DA}',
        'http://example.org/a\u00A0b\\c',
        'http://[::1]/',
        'http://exa mple.org/',
        'https://example.org/?q="x"&r=<y>',
        'ftp://example.org/Mu\u0308nster',
      ];
      const rec = record(...hostile.map((u): FieldSpec => ['009Q', ['u', u], ['z', 'W']]), [
        '035B',
        ['a', 'S'],
        ['k', 'a b@exa<mple>.org'],
      ]);
      const { ntriples } = convert(rec);
      const store = new oxigraph.Store();
      try {
        store.load(ntriples, { format: 'application/n-triples' });
        assert.equal(store.size, new Graph(ntriples).quads.length);
      } finally {
        (store as unknown as { free(): void }).free();
      }
      const urls = new Graph(ntriples).values(R, `${v}url`);
      assert.ok(urls.length >= 8, urls.join(' '));
      assert.ok(urls.includes('http://example.org/100%25zz'));
      assert.ok(urls.includes('ftp://example.org/M\u00fcnster'));
    });
    it('Oxigraph loads them', () => {
      const store = new oxigraph.Store();
      try {
        store.load(result.ntriples, { format: 'application/n-triples' });
        assert.equal(store.size, new Graph(result.ntriples).quads.length);
      } finally {
        (store as unknown as { free(): void }).free();
      }
    });
  });
});
