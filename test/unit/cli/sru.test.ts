// The SRU client's pure parts (cli/sru.ts, cli/sruResponse.ts): the query, the request URL,
// Retry-After, and reading a response page into records that stand on their own.
import assert from 'node:assert/strict';
import { SaxesParser } from 'saxes';
import { isilPrefixQuery, retryAfterMs, searchRetrieveUrl } from '../../../cli/sru';
import { parseSearchRetrieveResponse, PPXML_NS } from '../../../cli/sruResponse';

const SRW = 'http://www.loc.gov/zing/srw/';

/** A response of one record whose recordData holds `data`, with `declarations` on the root. */
function response(data: string, declarations = '', packing = 'xml'): string {
  return (
    `<searchRetrieveResponse xmlns="${SRW}"${declarations}><version>1.1</version>` +
    `<numberOfRecords>1</numberOfRecords><records><record><recordSchema>PicaPlus-xml</recordSchema>` +
    `<recordPacking>${packing}</recordPacking><recordData>${data}</recordData>` +
    `<recordPosition>1</recordPosition></record></records></searchRetrieveResponse>`
  );
}

/** The expanded name of every element of a standalone record, in document order. */
function expandedNames(xml: string): string[] {
  const names: string[] = [];
  const parser = new SaxesParser({ xmlns: true });
  parser.on('opentag', (tag) => {
    names.push(`{${tag.uri}}${tag.local}`);
    for (const a of Object.values(tag.attributes)) {
      if (a.prefix !== 'xmlns' && a.name !== 'xmlns') names.push(`@{${a.uri}}${a.local}`);
    }
  });
  parser.write(xml).close();
  return names;
}

describe('sru', () => {
  describe('isilPrefixQuery', () => {
    it('asks the isl index for each prefix, truncated, quoted, ORed', () => {
      assert.equal(isilPrefixQuery(['DE-']), 'isl="DE-*"');
      assert.equal(isilPrefixQuery(['DE-', 'GB-LO/']), 'isl="DE-*" or isl="GB-LO/*"');
    });

    for (const bad of ['', 'DE*', 'DE "x', 'DE-\\', 'DE-?', 'ABCDEFGHIJKLMNOPQ', 'DE–']) {
      it(`refuses the prefix ${JSON.stringify(bad)}`, () => {
        assert.throws(() => isilPrefixQuery([bad]), /expected 1 to 16 of A-Z a-z 0-9 - : \//);
      });
    }

    it('refuses no prefix at all', () => {
      assert.throws(() => isilPrefixQuery([]), /no ISIL prefix/);
    });
  });

  describe('searchRetrieveUrl', () => {
    const url = new URL(
      searchRetrieveUrl(
        {
          url: 'https://services.dnb.de/sru/bib?accessToken=t',
          query: 'isl="GB-LO/*"',
          recordSchema: 'PicaPlus-xml',
          pageSize: 100,
        },
        201,
      ),
    );

    it('keeps the base URL and its own parameters', () => {
      assert.equal(url.origin + url.pathname, 'https://services.dnb.de/sru/bib');
      assert.equal(url.searchParams.get('accessToken'), 't');
    });

    it('sends the SRU 1.1 searchRetrieve parameters', () => {
      assert.deepEqual(
        [...url.searchParams].filter(([name]) => name !== 'accessToken'),
        [
          ['version', '1.1'],
          ['operation', 'searchRetrieve'],
          ['query', 'isl="GB-LO/*"'],
          ['recordSchema', 'PicaPlus-xml'],
          ['recordPacking', 'xml'],
          ['startRecord', '201'],
          ['maximumRecords', '100'],
        ],
      );
    });

    it('percent-encodes the query, "/" and quotes included', () => {
      assert.match(url.search, /query=isl%3D%22GB-LO%2F\*%22/);
    });
  });

  describe('retryAfterMs', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    it('reads delay-seconds', () => assert.equal(retryAfterMs('120', now), 120_000));
    it('reads an HTTP-date', () =>
      assert.equal(retryAfterMs('Mon, 23 Nov 2026 12:00:30 GMT', now), 30_000));
    it('reads a date in the past as now', () =>
      assert.equal(retryAfterMs('Mon, 23 Nov 2026 11:00:00 GMT', now), 0));
    it('ignores a missing header', () => assert.equal(retryAfterMs(null, now), undefined));
    it('ignores what it cannot read', () => assert.equal(retryAfterMs('soon', now), undefined));
  });

  describe('parseSearchRetrieveResponse', () => {
    it('adds the declaration a record took from the envelope, and nothing else', () => {
      const record = `<p:record><p:global><p:tag id="003@"><p:subf id="0">123</p:subf></p:tag></p:global></p:record>`;
      const page = parseSearchRetrieveResponse(response(record, ` xmlns:p="${PPXML_NS}"`));
      assert.equal(
        page.records[0]?.xml,
        record.replace('<p:record', `<p:record xmlns:p="${PPXML_NS}"`),
      );
      assert.equal(page.records[0]?.id, '123');
      assert.equal(page.records[0]?.position, 1);
    });

    it('takes a default namespace declared on recordData along', () => {
      const text =
        `<srw:searchRetrieveResponse xmlns:srw="${SRW}"><srw:numberOfRecords>1</srw:numberOfRecords>` +
        `<srw:records><srw:record><srw:recordData xmlns="${PPXML_NS}">` +
        `<record><global><tag id="008H"><subf id="e">DE-1a</subf></tag></global></record>` +
        `</srw:recordData></srw:record></srw:records></srw:searchRetrieveResponse>`;
      const xml = parseSearchRetrieveResponse(text).records[0]?.xml ?? '';
      assert.equal(xml.slice(0, xml.indexOf('>') + 1), `<record xmlns="${PPXML_NS}">`);
      assert.equal(expandedNames(xml)[4], `{${PPXML_NS}}subf`);
    });

    it('declares a prefix that only an attribute inside the record uses', () => {
      const xsi = 'http://www.w3.org/2001/XMLSchema-instance';
      const record = `<ppxml:record xmlns:ppxml="${PPXML_NS}"><ppxml:global xsi:nil="false"/></ppxml:record>`;
      const xml =
        parseSearchRetrieveResponse(response(record, ` xmlns:xsi="${xsi}"`)).records[0]?.xml ?? '';
      assert.deepEqual(expandedNames(xml), [
        `{${PPXML_NS}}record`,
        `{${PPXML_NS}}global`,
        `@{${xsi}}nil`,
      ]);
    });

    it('keeps the records of a page, their 003@ and their positions', () => {
      const one = (id: string, position: number): string =>
        `<record><recordPacking>xml</recordPacking><recordData><ppxml:record xmlns:ppxml="${PPXML_NS}">` +
        `<ppxml:global><ppxml:tag id="003@" occ=""><ppxml:subf id="0">${id}</ppxml:subf></ppxml:tag>` +
        `</ppxml:global></ppxml:record></recordData><recordPosition>${position}</recordPosition></record>`;
      const page = parseSearchRetrieveResponse(
        `<searchRetrieveResponse xmlns="${SRW}"><version>1.1</version><numberOfRecords>17000</numberOfRecords>` +
          `<records>${one('9', 101)}${one('10', 102)}</records><nextRecordPosition>103</nextRecordPosition>` +
          `</searchRetrieveResponse>`,
      );
      assert.equal(page.numberOfRecords, 17000);
      assert.equal(page.nextRecordPosition, 103);
      assert.deepEqual(
        page.records.map((r) => [r.id, r.position]),
        [
          ['9', 101],
          ['10', 102],
        ],
      );
    });

    const refused: [string, string, RegExp][] = [
      ['a record packed as a string', response('&lt;x/&gt;', '', 'string'), /packed as "string"/],
      [
        'a record of another schema',
        response('<mods xmlns="http://www.loc.gov/mods/v3"/>'),
        /record 1 of the page holds <mods> in "http:\/\/www\.loc\.gov\/mods\/v3"/,
      ],
      [
        'two records in one recordData',
        response(`<p:record xmlns:p="${PPXML_NS}"/><p:record xmlns:p="${PPXML_NS}"/>`, ''),
        /holds <p:record>/,
      ],
      ['an empty recordData', response(''), /record 1 of the page holds no PicaPlus-XML record/],
      [
        'a numberOfRecords that is not a number',
        `<searchRetrieveResponse xmlns="${SRW}"><numberOfRecords>many</numberOfRecords></searchRetrieveResponse>`,
        /numberOfRecords is not a number: "many"/,
      ],
      [
        'a response without numberOfRecords',
        `<searchRetrieveResponse xmlns="${SRW}"><version>1.1</version></searchRetrieveResponse>`,
        /has no numberOfRecords/,
      ],
      [
        'an SRU 2.0 response',
        `<searchRetrieveResponse xmlns="http://docs.oasis-open.org/ns/search-ws/sruResponse"/>`,
        /not an SRU 1\.1 searchRetrieveResponse/,
      ],
      [
        'another encoding',
        `<?xml version="1.0" encoding="ISO-8859-1"?><searchRetrieveResponse xmlns="${SRW}"/>`,
        /declares encoding ISO-8859-1; only UTF-8 is read/,
      ],
      ['text that is not XML', 'Service Unavailable', /not well-formed XML/],
    ];
    for (const [what, text, message] of refused) {
      it(`refuses ${what}`, () => {
        assert.throws(
          () => parseSearchRetrieveResponse(text),
          (error: Error) => error.name === 'SruError' && message.test(error.message),
        );
      });
    }
  });
});
