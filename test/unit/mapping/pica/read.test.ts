// The PICA+ readers: both real forms, records across chunk boundaries, malformed records skipped
// with their position, and files that are not well-formed refused whole with file and position.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  PicaFileError,
  readPica,
  sniffPica,
  type MalformedPicaRecord,
  type PicaForm,
  type PicaRecord,
} from '../../../../src/mapping/pica/read';
import { DE_1A_RDF, needsThirdParty, tempDir, REAL_DATA } from '../../../support';
import { brokenPica } from '../../../support/brokenPica';

const REAL_DAT = path.join(REAL_DATA, 'isil-directory_pica-plain_8-records.dat');
const REAL_XML = path.join(REAL_DATA, 'isil-directory_picaplus-xml_2013_9-records.xml');
let brokenDir: string | undefined;
/** A broken variant of a real file (test/support/brokenPica.ts), made on first use. */
const broken = (name: string) => path.join((brokenDir ??= brokenPica()), name);

type Item = PicaRecord | MalformedPicaRecord;

/** Every item the reader yields before it stops, and the error it stops with. */
function collect(file: string, form: PicaForm): { items: Item[]; error: unknown } {
  const items: Item[] = [];
  try {
    for (const item of readPica(file, form)) items.push(item);
    return { items, error: undefined };
  } catch (error) {
    return { items, error };
  }
}

function records(file: string, form: PicaForm): PicaRecord[] {
  const { items, error } = collect(file, form);
  assert.equal(error, undefined);
  return items.map((item) => {
    assert.ok(!('malformed' in item), JSON.stringify(item));
    return item;
  });
}

function fileError(file: string, form: PicaForm): PicaFileError {
  const { error } = collect(file, form);
  assert.ok(error instanceof PicaFileError, `expected a PicaFileError, got ${String(error)}`);
  assert.equal(error.file, file);
  assert.ok(error.message.includes(file) && error.message.includes(error.position));
  return error;
}

const subfield = (record: PicaRecord, tag: string, code: string) =>
  record.fields.find((f) => f.tag === tag)?.subfields.find((s) => s.code === code)?.value;

const ISIL_OF = (r: PicaRecord) => subfield(r, '008H', 'e');

/** A normalized PICA+ line: fields `[tag, [[code, value], …]]`, each ended by 0x1E. */
function line(fields: [string, [string, string][]][]): string {
  return `${fields.map(([tag, subs]) => `${tag} ${subs.map(([c, v]) => `\x1f${c}${v}`).join('')}\x1e`).join('')}\n`;
}

const minimal = (id: string, isil: string): [string, [string, string][]][] => [
  ['003@', [['0', id]]],
  ['008H', [['e', isil]]],
];

function write(dir: string, name: string, content: string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}

describe('PICA+ reader, normalized form', () => {
  before(needsThirdParty);
  let real: PicaRecord[];
  before(() => (real = records(REAL_DAT, 'pica')));

  it('reads the eight real records in order, each with its 003@ id and line', () => {
    assert.deepEqual(
      real.map((r) => [r.id, r.position, ISIL_OF(r)]),
      [
        ['101211659X', 'line 1', 'ZDB-1-AAS4'],
        ['009000046', 'line 2', 'DE-1a'],
        ['009007911', 'line 3', 'DE-294'],
        ['009008845', 'line 4', 'DE-38'],
        ['009008853', 'line 5', 'DE-38M'],
        ['009025499', 'line 6', 'DE-B2042'],
        ['00900341X', 'line 7', 'DE-Hil2'],
        ['1152412914', 'line 8', 'DE-MUS-872815'],
      ],
    );
  });
  it('leaves the header before the first field (the padded PPN) out of the fields', () =>
    assert.equal(real[0]!.fields[0]!.tag, '001A'));
  it('keeps every field, repeated ones in order, and subfields in order', () => {
    const de1a = real[1]!;
    assert.equal(de1a.fields.length, 35);
    assert.deepEqual(
      de1a.fields.filter((f) => f.tag === '035B').map((f) => f.subfields[0]),
      [
        { code: 'a', value: 'S' },
        { code: 'a', value: 'W' },
        { code: 'a', value: 'W' },
        { code: 'a', value: 'W' },
      ],
    );
    assert.deepEqual(
      de1a.fields.find((f) => f.tag === '001B'),
      {
        tag: '001B',
        occurrence: undefined,
        subfields: [
          { code: '0', value: '9006:18-11-22' },
          { code: 't', value: '14:37:34.000' },
        ],
      },
    );
  });
  it('gives the text as the source has it (NFD), leaving normalisation to the converter', () => {
    const name = subfield(real[1]!, '029A', 'a')!;
    assert.ok(name.includes('Preu\u00dfischer'));
    assert.ok(subfield(real[2]!, '029A', 'a')!.includes('Universita\u0308t'));
  });
  it('reads a field occurrence (`tag/01`)', () => {
    const dir = tempDir();
    const file = write(dir, 'occ.dat', line([...minimal('1', 'DE-1'), ['209A/01', [['a', 'x']]]]));
    const [record] = records(file, 'pica');
    assert.deepEqual(record!.fields[2], {
      tag: '209A',
      occurrence: '01',
      subfields: [{ code: 'a', value: 'x' }],
    });
  });
  it('reads records that straddle chunk boundaries, multi-byte characters included', () => {
    const dir = tempDir();
    const name = 'Mu\u0308nster Bu\u0308cherei Gro\u00dfe Sa\u0308le '.repeat(40);
    const lines = Array.from({ length: 300 }, (_, i) =>
      line([...minimal(String(i), `DE-${i + 1}`), ['029A', [['a', name]]]]),
    );
    const file = write(dir, 'many.dat', lines.join(''));
    assert.ok(fs.statSync(file).size > 4 * 65536);
    const read = records(file, 'pica');
    assert.equal(read.length, 300);
    assert.deepEqual(
      read.map((r) => r.id),
      lines.map((_, i) => String(i)),
    );
    assert.ok(read.every((r) => subfield(r, '029A', 'a') === name));
    assert.equal(read[299]!.position, 'line 300');
  });
  it('reads a record longer than several chunks', () => {
    const dir = tempDir();
    const note = 'Bu\u0308cher '.repeat(40_000);
    const file = write(
      dir,
      'long-record.dat',
      line(minimal('1', 'DE-1')) +
        line([...minimal('2', 'DE-2'), ['047A', [['a', note]]]]) +
        line(minimal('3', 'DE-3')),
    );
    const read = records(file, 'pica');
    assert.deepEqual(
      read.map((r) => r.position),
      ['line 1', 'line 2', 'line 3'],
    );
    assert.equal(subfield(read[1]!, '047A', 'a'), note);
  });
  it('ignores blank lines and a CR before the newline', () => {
    const dir = tempDir();
    const file = write(
      dir,
      'crlf.dat',
      `${line(minimal('1', 'DE-1')).replace('\n', '\r\n')}\n${line(minimal('2', 'DE-2'))}`,
    );
    assert.deepEqual(
      records(file, 'pica').map((r) => [r.id, r.position]),
      [
        ['1', 'line 1'],
        ['2', 'line 3'],
      ],
    );
  });

  describe('a malformed record in the middle', () => {
    let items: Item[];
    before(() => {
      const { items: read, error } = collect(broken('malformed-middle.dat'), 'pica');
      assert.equal(error, undefined);
      items = read;
    });
    it('is yielded as malformed, with its line, id and reason', () =>
      assert.deepEqual(items[1], {
        malformed: true,
        id: '009008845',
        position: 'line 2',
        reason: 'column 251: a field without a PICA+ tag and subfields',
      }));
    it('and the records around it still load', () =>
      assert.deepEqual(items.filter((i): i is PicaRecord => !('malformed' in i)).map(ISIL_OF), [
        'DE-294',
        'DE-Hil2',
      ]));
  });

  for (const [what, content, reason] of [
    ['a record without 003@', line([['008H', [['e', 'DE-1']]]]), 'no record id (003@ $0)'],
    [
      'a subfield without a code',
      line([...minimal('7', 'DE-1'), ['029A', [['', '']]]]),
      'column 22: field 029A has a subfield without a code',
    ],
    [
      'a record that ends inside a field',
      line(minimal('7', 'DE-1')).replace('\x1e\n', '\n'),
      'the record ends inside a field (no 0x1E after its last field)',
    ],
    ['a header without fields', 'just a header\x1e\n', 'a record without fields'],
  ] as const) {
    it(`yields ${what} as malformed and reads on`, () => {
      const dir = tempDir();
      const file = write(dir, 'one.dat', content + line(minimal('8', 'DE-2')));
      const { items, error } = collect(file, 'pica');
      assert.equal(error, undefined);
      assert.equal(items.length, 2);
      assert.equal((items[0] as MalformedPicaRecord).malformed, true);
      assert.equal((items[0] as MalformedPicaRecord).reason, reason);
      assert.equal((items[0] as MalformedPicaRecord).position, 'line 1');
      assert.equal((items[1] as PicaRecord).id, '8');
    });
  }

  describe('files that are not well-formed are refused whole', () => {
    it('cut off inside the last record: position of the cut, and the record id', () => {
      const file = broken('truncated.dat');
      // Streaming: the record before the cut has been yielded already, so a caller keeps what it
      // read apart until the file has ended well.
      assert.deepEqual(
        collect(file, 'pica').items.map((r) => r.id),
        ['009007911'],
      );
      const error = fileError(file, 'pica');
      assert.equal(error.position, 'line 2, column 269');
      assert.match(error.reason, /^cut off inside a record \(003@ 009008845\)/);
    });
    it('cut off right after a subfield code', () => {
      const dir = tempDir();
      const file = write(dir, 'cut.dat', line(minimal('1', 'DE-1')) + '003@ \x1f02');
      assert.equal(fileError(file, 'pica').position, 'line 2, column 9');
    });
    it('not UTF-8: the byte offset of the first invalid byte', () => {
      const file = broken('not-utf8.dat');
      const offset = fs.readFileSync(file).indexOf(0xe4);
      assert.ok(offset > 0);
      const error = fileError(file, 'pica');
      assert.equal(error.position, `line 2, byte ${offset}`);
      assert.equal(error.reason, 'not UTF-8 text');
    });
    for (const [what, bytes, offset] of [
      ['an encoded surrogate', [0xed, 0xa0, 0x80], 0],
      ['an overlong encoding', [0xc0, 0xaf], 0],
      ['a sequence cut off by the end of the file', [0xc3], 0],
    ] as const) {
      it(`not UTF-8: ${what}`, () => {
        const dir = tempDir();
        const head = Buffer.from(line(minimal('1', 'DE-1')));
        const file = write(dir, 'bad.dat', Buffer.concat([head, Buffer.from(bytes)]));
        assert.equal(fileError(file, 'pica').position, `line 2, byte ${head.length + offset}`);
      });
    }
    it('an empty file', () => assert.match(fileError(broken('empty.dat'), 'pica').reason, /empty/));
    it('a file of blank lines', () => {
      const dir = tempDir();
      assert.match(fileError(write(dir, 'blank.dat', '\n\n  \n'), 'pica').reason, /empty/);
    });
    it('a line longer than any record (not PICA+ at all) before memory runs out', () => {
      const dir = tempDir();
      const file = write(dir, 'long.dat', 'x'.repeat((1 << 22) + 70_000));
      assert.match(fileError(file, 'pica').reason, /longer than/);
    });
  });
});

describe('PICA+ reader, PicaPlus-XML', () => {
  before(needsThirdParty);
  let real: Item[];
  before(() => {
    const { items, error } = collect(REAL_XML, 'ppxml');
    assert.equal(error, undefined);
    real = items;
  });

  it('reads the nine real records in order, with their ids and positions', () =>
    assert.deepEqual(
      real.map((r) => [r.id, r.position]),
      [
        ['009008845', 'line 4, column 17'],
        ['980634024', 'line 122, column 71'],
        ['009018581', 'line 194, column 71'],
        ['009001913', 'line 269, column 71'],
        ['009004890', 'line 361, column 71'],
        ['009000151', 'line 435, column 71'],
        ['009000046', 'line 484, column 71'],
        ['009000216', 'line 631, column 71'],
        ['009007911', 'line 677, column 71'],
      ],
    ));
  it('none is malformed (the record without an ISIL is the converter’s to judge)', () =>
    assert.ok(real.every((r) => !('malformed' in r))));
  it('leaves the empty number tag before the fields out of the fields', () => {
    const tags = (real[1] as PicaRecord).fields.map((f) => f.tag);
    assert.equal(tags[0], '001A');
    assert.ok(!tags.includes('98063402'));
  });
  it('resolves character references to the NFD text and keeps the white space as written', () => {
    const de1a = real[6] as PicaRecord;
    assert.equal(ISIL_OF(de1a), 'DE-1a');
    assert.equal(
      subfield(de1a, '029A', 'a'),
      'Staatsbibliothek zu Berlin - Preu\u00dfischer Kulturbesitz,\n\t\t\t\t\tHaus Potsdamer Stra\u00dfe',
    );
    assert.equal(subfield(real[0] as PicaRecord, '029@', 'a'), 'Ko\u0308ln USB');
  });
  it('ignores comments between subfields', () =>
    assert.deepEqual(
      (real[1] as PicaRecord).fields
        .find((f) => f.tag === '035E')!
        .subfields.map((s) => s.code)
        .join(''),
      'abcfgh',
    ));
  it('reads records inside any envelope (SRU), the occurrence attribute and CDATA', () => {
    const dir = tempDir();
    const file = write(
      dir,
      'sru.xml',
      `<?xml version="1.0" encoding="UTF-8"?>
<searchRetrieveResponse xmlns="http://www.loc.gov/zing/srw/"><records><record><recordData>
<record xmlns="${'http://www.oclcpica.org/xmlns/ppxml-1.0'}"><global>
<tag id="003@" occ=""><subf id="0">42</subf></tag>
<tag id="209A" occ="01"><subf id="a">x &amp; <![CDATA[y]]></subf></tag>
</global></record></recordData></record></records></searchRetrieveResponse>`,
    );
    const [record] = records(file, 'ppxml');
    assert.equal(record!.id, '42');
    assert.deepEqual(record!.fields[1], {
      tag: '209A',
      occurrence: '01',
      subfields: [{ code: 'a', value: 'x & y' }],
    });
  });

  describe('a malformed record in the middle', () => {
    let items: Item[];
    before(() => {
      const { items: read, error } = collect(broken('malformed-middle.xml'), 'ppxml');
      assert.equal(error, undefined);
      items = read;
    });
    it('is yielded as malformed with its position', () =>
      assert.deepEqual(items[1], {
        malformed: true,
        id: undefined,
        position: 'line 122, column 71',
        reason: 'a record without fields',
      }));
    it('and the records around it still load', () =>
      assert.deepEqual(items.filter((i): i is PicaRecord => !('malformed' in i)).map(ISIL_OF), [
        'DE-38',
        'DE-Tir1',
      ]));
  });
  it('a field with subfields but no PICA+ tag makes its record malformed', () => {
    const dir = tempDir();
    const ns = 'http://www.oclcpica.org/xmlns/ppxml-1.0';
    const file = write(
      dir,
      'notag.xml',
      `<r xmlns:p="${ns}"><p:record><p:global><p:tag id="003@"><p:subf id="0">1</p:subf></p:tag>` +
        `<p:tag id="bad"><p:subf id="a">x</p:subf></p:tag></p:global></p:record>` +
        `<p:record><p:global><p:tag id="003@"><p:subf id="0">2</p:subf></p:tag></p:global></p:record></r>`,
    );
    const { items } = collect(file, 'ppxml');
    assert.deepEqual(
      items.map((i) => ('malformed' in i ? i.reason : i.id)),
      ['a field without a PICA+ tag ("bad")', '2'],
    );
    assert.equal(items[0]!.id, '1');
  });

  describe('files that are not well-formed are refused whole', () => {
    it('cut off in the middle of a record', () => {
      const file = broken('truncated.xml');
      assert.deepEqual(
        collect(file, 'ppxml').items.map((r) => r.id),
        ['009008845'],
      );
      const error = fileError(file, 'ppxml');
      assert.match(error.position, /^line 161, column \d+$/);
      assert.match(error.reason, /^not well-formed XML: unclosed tag/);
    });
    it('a mismatched end tag, with its line', () => {
      const error = fileError(broken('invalid.xml'), 'ppxml');
      assert.match(error.position, /^line 158, column \d+$/);
      assert.match(error.reason, /unexpected close tag/);
    });
    it('an empty file', () => {
      const dir = tempDir();
      assert.match(fileError(write(dir, 'empty.xml', ''), 'ppxml').reason, /not well-formed/);
    });
    it('XML without a single PicaPlus-XML record (RDF/XML given as PICA+)', () =>
      assert.match(fileError(DE_1A_RDF, 'ppxml').reason, /^no PicaPlus-XML record/));
    it('not UTF-8', () => {
      const dir = tempDir();
      const file = write(
        dir,
        'latin1.xml',
        Buffer.concat([Buffer.from('<a>K'), Buffer.from([0xf6]), Buffer.from('ln</a>')]),
      );
      assert.equal(fileError(file, 'ppxml').position, 'line 1, byte 4');
    });
  });
});

describe('sniffPica', () => {
  before(needsThirdParty);
  it('tells normalized PICA+', () => assert.equal(sniffPica(REAL_DAT), 'pica'));
  it('tells PicaPlus-XML', () => assert.equal(sniffPica(REAL_XML), 'ppxml'));
  it('says neither for RDF/XML', () => assert.equal(sniffPica(DE_1A_RDF), undefined));
  it('says neither for N-Triples', () => {
    const dir = tempDir();
    assert.equal(sniffPica(write(dir, 'x.nt', '<a:b> <a:c> "d" .\n')), undefined);
  });
  it('finds the namespace after a byte-order mark and an SRU envelope', () => {
    const dir = tempDir();
    const file = write(
      dir,
      'sru.xml',
      `\uFEFF\n<searchRetrieveResponse>${' '.repeat(5000)}<record xmlns="http://www.oclcpica.org/xmlns/ppxml-1.0"/>`,
    );
    assert.equal(sniffPica(file), 'ppxml');
  });
});
