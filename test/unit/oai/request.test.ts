// OAI-PMH requests read from their arguments: each verb's arguments, the errors the protocol names
// for what is wrong, and the datestamps of `from` and `until` (inclusive, either granularity).
import assert from 'node:assert/strict';
import { parseDatestamp, parseOaiRequest, type OaiRequest } from '../../../src/oai/request';

const parse = (query: string): OaiRequest => parseOaiRequest(new URLSearchParams(query));
const codes = (query: string) => {
  const r = parse(query);
  return r.ok ? [] : r.errors.map((e) => e.code);
};

describe('parseOaiRequest', () => {
  const valid = [
    'verb=Identify',
    'verb=ListMetadataFormats',
    'verb=ListMetadataFormats&identifier=oai:x.org:DE-1',
    'verb=ListSets',
    'verb=ListSets&resumptionToken=t',
    'verb=ListIdentifiers&metadataPrefix=oai_dc&from=2025-01-01&until=2025-01-02',
    'verb=ListRecords&metadataPrefix=rdf&set=type:library&from=2025-01-01T00:00:00Z',
    'verb=ListRecords&resumptionToken=t',
    'verb=GetRecord&identifier=oai:x.org:DE-1&metadataPrefix=oai_dc',
  ];
  for (const query of valid) it(`accepts ${query}`, () => assert.equal(parse(query).ok, true));
  const refused: [string, string[]][] = [
    ['', ['badVerb']],
    ['verb=identify', ['badVerb']],
    ['verb=Identify&verb=ListSets', ['badVerb']],
    ['verb=Identify&x=1', ['badArgument']],
    ['verb=ListRecords&resumptionToken=t&from=2025-01-01', ['badArgument']],
    ['verb=ListRecords&from=2025-01-01', ['badArgument']],
    ['verb=ListRecords&metadataPrefix=a%20b', ['badArgument']],
    ['verb=ListRecords&metadataPrefix=oai_dc&set=type:', ['badArgument']],
    ['verb=ListRecords&metadataPrefix=oai_dc&from=2025-01-02&until=2025-01-01', ['badArgument']],
    [
      'verb=ListRecords&metadataPrefix=oai_dc&from=2025-01-01&until=2025-01-01T00:00:00Z',
      ['badArgument'],
    ],
    ['verb=GetRecord&metadataPrefix=oai_dc', ['badArgument']],
    ['verb=GetRecord', ['badArgument', 'badArgument']],
  ];
  for (const [query, expected] of refused)
    it(`refuses ${query || 'nothing'}: ${expected.join(', ')}`, () =>
      assert.deepEqual(codes(query), expected));
});

describe('parseDatestamp', () => {
  it('a day from its first second', () =>
    assert.deepEqual(parseDatestamp('2025-03-01', 'from'), {
      seconds: Date.UTC(2025, 2, 1) / 1000,
      day: true,
    }));
  it('a day until its last second', () =>
    assert.deepEqual(parseDatestamp('2025-03-01', 'until'), {
      seconds: Date.UTC(2025, 2, 2) / 1000 - 1,
      day: true,
    }));
  it('a second', () =>
    assert.deepEqual(parseDatestamp('2025-03-01T12:00:05Z', 'until'), {
      seconds: Date.UTC(2025, 2, 1, 12, 0, 5) / 1000,
      day: false,
    }));
  for (const text of [
    '2025-02-29',
    '2025-13-01',
    '2025-03-01T24:00:00Z',
    '0099-01-01',
    '2025-3-1',
    '2025-03-01T12:00Z',
  ])
    it(`refuses ${text}`, () => assert.equal('code' in parseDatestamp(text, 'from'), true));
});
