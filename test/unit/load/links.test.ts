// The reader of a links source (Wikidata's ISIL lookup): what a row becomes, the rows it passes
// over or refuses and why, one record per ISIL whatever its case, and the date of the links.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  LINK_LIST_HEADER,
  linksDate,
  readLinkList,
  sniffLinks,
  type LinkRecord,
} from '../../../src/load/read/wikidata';
import { GND, WIKIDATA } from '../../../src/rdf/namespaces';
import { LoadError } from '../../../src/load/loadError';
import type { SkippedRecord } from '../../../src/mapping/sourceRecord';
import { tempDir, REAL_DATA, needsThirdParty } from '../../support';

const REAL = path.join(REAL_DATA, 'wikidata_isil-lookup_2023-09.tsv');

describe('links sources', () => {
  before(needsThirdParty);
  let dir: string;
  const write = (name: string, content: string | Buffer) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, content);
    return file;
  };
  before(() => (dir = tempDir()));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const read = (file: string) => {
    const links: LinkRecord[] = [];
    const skipped: SkippedRecord[] = [];
    for (const r of readLinkList(file))
      ('kind' in r && r.kind === 'links' ? links : skipped).push(r as never);
    return { links, skipped };
  };

  it('knows the lookup by its header, with or without a BOM, and nothing else', () => {
    assert.equal(sniffLinks(write('a.tsv', `${LINK_LIST_HEADER}\n`)), true);
    assert.equal(sniffLinks(write('b.tsv', `\uFEFF${LINK_LIST_HEADER}\r\n`)), true);
    assert.equal(sniffLinks(write('c.tsv', 'id\tisil\tsigel\tname\n')), false);
    assert.equal(sniffLinks(write('d.tsv', '?item\t?isil\n')), false);
    assert.equal(sniffLinks(REAL), true);
  });

  it('makes a row into a Wikidata item and a GND entity of its ISIL', () => {
    const file = write(
      'one_2023-09.tsv',
      `${LINK_LIST_HEADER}\nhttp://www.wikidata.org/entity/Q170109\tStaatsbibliothek\tDE-1a\t5036103-X\t\n`,
    );
    const { links, skipped } = read(file);
    assert.deepEqual(skipped, []);
    assert.equal(links.length, 1);
    assert.equal(links[0]!.isil, 'DE-1a');
    assert.deepEqual(links[0]!.targets, [`${WIKIDATA}Q170109`, `${GND}5036103-X`]);
    assert.equal(links[0]!.origin, `${file}:2`);
  });

  it('gives an ISIL every item that names it, once, whatever the case of the ISIL', () => {
    const file = write(
      'many.tsv',
      [
        LINK_LIST_HEADER,
        'http://www.wikidata.org/entity/Q1\ta\tDE-38\t\t',
        'http://www.wikidata.org/entity/Q2\tb\tde-38\t4482874-3',
        'http://www.wikidata.org/entity/Q1\tc\tDE-38',
        '',
      ].join('\n'),
    );
    const { links } = read(file);
    assert.equal(links.length, 1);
    assert.equal(links[0]!.isil, 'DE-38', 'spelled as first seen');
    assert.deepEqual(links[0]!.targets, [`${WIKIDATA}Q1`, `${WIKIDATA}Q2`, `${GND}4482874-3`]);
  });

  it('passes over rows without an ISIL, and skips rows with a malformed ISIL or item', () => {
    const file = write(
      'bad.tsv',
      [
        LINK_LIST_HEADER,
        'http://www.wikidata.org/entity/Q28661924\tStadtbücherei Burgdorf\t\tLD157',
        'http://www.wikidata.org/entity/Q3\tx\tDE-\t\t',
        'http://www.wikidata.org/entity/Q4\tx\tZZ-1\t\t',
        'http://example.org/Q5\tx\tDE-5\t\t',
        'http://www.wikidata.org/entity/Q6> <x\tx\tDE-6\t\t',
        'http://www.wikidata.org/entity/Q7\tx\tDE-7\tnot a GND id',
      ].join('\n'),
    );
    const { links, skipped } = read(file);
    assert.deepEqual(
      skipped.map((s) => [s.origin.split(':').at(-1), s.id, s.kind]),
      [
        ['3', 'DE-', 'malformed'],
        ['4', 'ZZ-1', 'malformed'],
        ['5', 'DE-5', 'malformed'],
        ['6', 'DE-6', 'malformed'],
      ],
    );
    assert.match(skipped[2]!.reason, /not a Wikidata item's IRI/);
    // A GND column that is no GND identifier is left out; the item stays.
    assert.deepEqual(
      links.map((l) => [l.isil, l.targets]),
      [['DE-7', [`${WIKIDATA}Q7`]]],
    );
  });

  it('refuses a file without the header, and one that is not UTF-8, where it breaks', () => {
    assert.throws(
      () => read(write('x.tsv', 'id\tisil\n')),
      (error: unknown) => error instanceof LoadError && /not a links source/.test(error.message),
    );
    const broken = Buffer.concat([
      Buffer.from(`${LINK_LIST_HEADER}\nhttp://www.wikidata.org/entity/Q1\t`),
      Buffer.from([0xff]),
      Buffer.from('\tDE-1\t\t\n'),
    ]);
    assert.throws(
      () => read(write('y.tsv', broken)),
      (error: unknown) =>
        error instanceof LoadError && error.line === 2 && /not UTF-8/.test(error.message),
    );
  });

  it('dates the links by the date in the file name, else by the file', () => {
    assert.equal(linksDate(write('w_2023-09.tsv', '')).toISOString(), '2023-09-01T00:00:00.000Z');
    assert.equal(
      linksDate(write('w-2024-03-17.tsv', '')).toISOString(),
      '2024-03-17T00:00:00.000Z',
    );
    const plain = write('w.tsv', '');
    fs.utimesSync(
      plain,
      new Date('2022-01-02T03:04:05.678Z'),
      new Date('2022-01-02T03:04:05.678Z'),
    );
    assert.equal(linksDate(plain).toISOString(), '2022-01-02T03:04:05.000Z');
    // Not a date: a month 13, or digits that run on.
    const odd = write('w_2023-13_12023-09x.tsv', '');
    fs.utimesSync(odd, new Date('2021-05-06T00:00:00Z'), new Date('2021-05-06T00:00:00Z'));
    assert.equal(linksDate(odd).toISOString(), '2021-05-06T00:00:00.000Z');
  });

  it('reads the real lookup: its German ISILs, and no row it cannot place', () => {
    const { links, skipped } = read(REAL);
    const german = links.filter((l) => l.isil.startsWith('DE-'));
    assert.ok(german.length > 10_000, `${german.length} German ISILs`);
    assert.ok(links.length > 38_000, `${links.length} ISILs`);
    assert.ok(skipped.length < 100, `${skipped.length} skipped`);
    for (const s of skipped) assert.equal(s.kind, 'malformed');
    assert.ok(links.every((l) => l.modified.toISOString() === '2023-09-01T00:00:00.000Z'));
    assert.ok(
      links.some((l) => l.isil === 'DE-1a' && l.targets.includes(`${WIKIDATA}Q170109`)),
      'DE-1a is Q170109',
    );
  });
});
