// The readers of the name list and the redirect list: telling them apart, broken rows, and text
// that is not UTF-8 located where the decoder fails.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  NAME_LIST_HEADER,
  readNameList,
  readRedirectList,
  sniffList,
} from '../../../src/load/read/listRecords';
import { LoadError } from '../../../src/load/loadError';
import type { SkippedRecord, SourceRecord } from '../../../src/mapping/sourceRecord';
import { firstInvalidUtf8 } from '../../../src/util/utf8';
import { BASE, parseTurtle, tempDir } from '../../support';

describe('lists', () => {
  let dir: string;
  const write = (name: string, content: string | Buffer) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, content);
    return file;
  };
  before(() => {
    dir = tempDir();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('sniffList', () => {
    const cases: [string, string, ReturnType<typeof sniffList>][] = [
      ['the name list header', `${NAME_LIST_HEADER}\nx\tDE-1a\t1a\tA\n`, 'names'],
      ['the header after a byte-order mark, with CRLF', `\uFEFF${NAME_LIST_HEADER}\r\n`, 'names'],
      ['two ISILs', 'DE-D227\tDE-D170\n', 'redirects'],
      ['two ISILs, the last line without newline', 'DE-D227\tDE-D170', 'redirects'],
      ['three columns', 'DE-D227\tDE-D170\tDE-1\n', undefined],
      ['a malformed ISIL', 'DE-D227\tDE2789\n', undefined],
      ['another header', 'isil\tname\n', undefined],
    ];
    for (const [name, content, expected] of cases) {
      it(`${name}: ${expected ?? 'neither'}`, () => {
        assert.equal(sniffList(write('sniff.tsv', content)), expected);
      });
    }
  });

  describe('readNameList', () => {
    const rows = (content: string) => [
      ...readNameList(write('names.tsv', `${NAME_LIST_HEADER}\n${content}`), { baseIri: BASE }),
    ];
    const skipped = (items: (SourceRecord | SkippedRecord)[]) =>
      items.filter((i): i is SkippedRecord => !('ntriples' in i));

    it('reports a row with the wrong number of columns and one without a name', () => {
      const items = rows('x\tDE-1a\t1a\n' + 'x\tDE-38\t38\t \n' + 'x\tDE-294\t294\tMünchen\n');
      assert.deepEqual(
        skipped(items).map((s) => [s.origin.replace(/^.*\//, ''), s.reason]),
        [
          ['names.tsv:2', 'expected 4 tab-separated columns, found 3'],
          ['names.tsv:3', 'no name'],
        ],
      );
      assert.equal(items.length, 3);
    });

    it('writes names in NFC with white space collapsed, quotes and backslashes escaped', () => {
      const [record] = rows('x\tDE-1a\t1a\t  Die  "Bu\u0308cherei"\\ \u00a0 Berlin \n');
      assert.ok(record && 'ntriples' in record);
      const name = parseTurtle(record.ntriples, 'application/n-triples').find((q) =>
        q.predicate.value.endsWith('/name'),
      );
      assert.equal(name?.object.value, 'Die "B\u00fccherei"\\ Berlin');
    });

    it('refuses a file without the header', () => {
      const file = write('no-header.tsv', 'x\tDE-1a\t1a\tA\n');
      assert.throws(
        () => [...readNameList(file, { baseIri: BASE })],
        (e: LoadError) => e instanceof LoadError && e.line === 1,
      );
    });
  });

  describe('readRedirectList', () => {
    it('reports a pair that replaces an ISIL by itself, in any case', () => {
      const file = write('redirects.tsv', 'DE-1a\tde-1A\nDE-D227\tDE-D170\n');
      const items = [...readRedirectList(file, { baseIri: BASE })];
      assert.equal(items.length, 2);
      assert.deepEqual(
        items.map((i) => ('ntriples' in i ? i.status : i.reason)),
        ['an ISIL cannot replace itself', 'withdrawn'],
      );
    });
  });

  describe('text that is not UTF-8', () => {
    const cases: [string, number[], number][] = [
      ['valid text', [0x41, 0xc3, 0xa4, 0xe2, 0x80, 0x91, 0xf0, 0x9f, 0x98, 0x80], 10],
      ['a Latin-1 byte', [0x4b, 0xf6, 0x6c, 0x6e], 1],
      ['an overlong form', [0x41, 0xc0, 0xaf], 1],
      ['an encoded surrogate', [0x41, 0xed, 0xa0, 0x80], 1],
      ['above U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
      ['a sequence cut off at the end', [0x41, 0x42, 0xe2, 0x80], 2],
      ['a lone continuation byte', [0x41, 0x80], 1],
    ];
    for (const [name, bytes, at] of cases) {
      it(`${name}: ${at}`, () => {
        assert.equal(firstInvalidUtf8(Uint8Array.from(bytes)), at);
      });
    }

    it('a list is refused with the line and column of the bad byte', () => {
      const file = write(
        'latin1.tsv',
        Buffer.from('DE-D227\tDE-D170\nDE-K\xf6\tDE-D1\n', 'latin1'),
      );
      assert.throws(
        () => [...readRedirectList(file, { baseIri: BASE })],
        (e: LoadError) => e instanceof LoadError && e.line === 2 && e.column === 5,
      );
    });
  });
});
