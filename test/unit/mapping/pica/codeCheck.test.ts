// Codes of 035E the code lists do not know (src/mapping/pica/codeCheck.ts): the record is loaded with
// a warning naming the ISIL, the field and the code, counted in the load report, and its type is
// never taken for another (not a library for its catalogue, not a museum for its ISIL).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadSources, type LoadReport } from '../../../../src/load/loadSources';
import { convertRecord } from '../../../../src/mapping/pica/convert';
import type { PicaRecord } from '../../../../src/mapping/pica/read';
import type { SourceRecord } from '../../../../src/mapping/sourceRecord';
import { toDescription } from '../../../../src/rdf/description';
import { PREFIXES } from '../../../../src/rdf/namespaces';
import { flatRecord } from '../../../../src/record/flatRecord';
import { Graph } from '../../../../src/pages/graph';
import { schemaOrg } from '../../../../src/pages/schemaOrg';
import { tempDir } from '../../../support';

const BASE = 'https://ld.zdb-services.de';
const R = (isil: string) => `${BASE}/resource/organisations/${isil}`;

function record(isil: string, e035: [string, string][]): PicaRecord {
  const fields: [string, [string, string][]][] = [
    [
      '001B',
      [
        ['0', '9006:18-11-22'],
        ['t', '14:37:34.000'],
      ],
    ],
    ['003@', [['0', '4711']]],
    ['008H', [['e', isil]]],
    [
      '009Q',
      [
        ['u', 'https://opac.example.org/'],
        ['z', 'B'],
      ],
    ],
    ['029A', [['a', 'Haus der Erinnerung']]],
    ['035E', e035],
  ];
  return {
    id: '4711',
    position: 'line 1',
    fields: fields.map(([tag, subfields]) => ({
      tag,
      occurrence: undefined,
      subfields: subfields.map(([code, value]) => ({ code, value })),
    })),
  };
}

const convert = (r: PicaRecord) =>
  convertRecord(r, {
    baseIri: BASE,
    origin: 'test.dat, line 1',
    blankNodePrefix: 'c',
  }) as SourceRecord;

describe('codes no list knows', () => {
  const unknown = convert(
    record('DE-MUS-1', [
      ['a', 'H'],
      ['f', '77'],
      ['g', '42'],
      ['h', '04'],
    ]),
  );
  const description = toDescription(R('DE-MUS-1'), unknown.ntriples);

  it('the record is loaded', () => assert.equal(unknown.status, 'published'));
  it('warns of each, naming the ISIL, the field and the code', () =>
    assert.deepEqual(unknown.warnings, [
      {
        kind: 'unknown-code',
        subject: 'DE-MUS-1',
        message: '035E $f: the code "77" is in no list of /vocab/institution-types',
      },
      {
        kind: 'unknown-code',
        subject: 'DE-MUS-1',
        message: '035E $g: the code "42" is in no list of /vocab/funders',
      },
    ]));
  it('writes the type as its own code, as before', () =>
    assert.ok(
      unknown.ntriples.includes(
        `<${R('DE-MUS-1')}> <${PREFIXES.dcterms}type> <http://purl.org/lobid/libtype#n77> .`,
      ),
    ));
  it('is no library for its catalogue in the search', () =>
    assert.equal(flatRecord('DE-MUS-1', description).type, 'other'));
  it('is no museum for its ISIL to search engines', () => {
    const json = schemaOrg(new Graph(description.quads), R('DE-MUS-1'), {
      phone: undefined,
      email: undefined,
    });
    assert.equal(json['@type'], 'Organization');
  });

  it('a known code of either era warns of nothing', () => {
    for (const e035 of [
      [
        ['a', 'H'],
        ['b', 's'],
        ['f', '60'],
        ['g', '07'],
        ['h', '10'],
      ],
      [
        ['a', 'H'],
        ['b', 'm'],
        ['f', '83'],
        ['g', '02'],
        ['h', '04'],
        ['m', 'x'],
      ],
      [
        ['a', 'P'],
        ['f', '00'],
      ],
    ] as [string, string][][])
      assert.equal(convert(record('DE-Xy1', e035)).warnings, undefined);
  });
  it('a memorial (83) is no library, though it has a catalogue', () => {
    const memorial = convert(
      record('DE-Xy2', [
        ['a', 'H'],
        ['f', '83'],
      ]),
    );
    assert.equal(flatRecord('DE-Xy2', toDescription(R('DE-Xy2'), memorial.ntriples)).type, 'other');
  });

  describe('in the load report', () => {
    let report: LoadReport;
    before(async () => {
      const file = path.join(tempDir(), 'codes.dat');
      const line = (isil: string, f: string) =>
        `000000001 \x1e001B \x1f09006:18-11-22\x1ft14:37:34.000\x1e003@ \x1f04711\x1e008H \x1fe${isil}\x1e029A \x1faName\x1e035E \x1faH\x1ff${f}\x1e\n`;
      fs.writeFileSync(file, line('DE-Xy3', '99') + line('DE-Xy4', '60'));
      const loaded = await loadSources([file], { baseIri: BASE });
      report = loaded.report;
      loaded.dataset.free();
    });
    it('loads both records', () => assert.equal(report.institutions, 2));
    it('counts the warning, naming the ISIL, the field and the code', () =>
      assert.deepEqual(
        report.warnings.filter((w) => w.kind === 'unknown-code'),
        [
          {
            kind: 'unknown-code',
            subject: 'DE-Xy3',
            message: '035E $f: the code "99" is in no list of /vocab/institution-types',
          },
        ],
      ));
  });
});
