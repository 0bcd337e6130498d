// The change feed's documents as statements and their writers (src/documents/feedStatements.ts): each format
// the same dataset, the feed's own IRIs relative where the format allows, absolute under the
// origin asked where it does not, and every member's blank nodes its own.
import assert from 'node:assert/strict';
import { Parser } from 'n3';
import { MemoryHistory } from '../../../src/history/memory';
import type { HistoryEvent } from '../../../src/history/model';
import { pageStatements, rootStatements, writeFeed } from '../../../src/documents/feedStatements';
import { feedLayout } from '../../../src/documents/feedLayout';
import { asTriples, parseJsonLd, sameGraph } from '../../support';

const BASE = 'https://ld.example.org';
const T = Date.UTC(2025, 2, 1, 12) / 1000;
const description = (isil: string) =>
  `<${BASE}/resource/organisations/${isil}> <http://xmlns.com/foaf/0.1/name> "${isil}" .\n` +
  `<${BASE}/resource/organisations/${isil}> <http://www.w3.org/2006/vcard/ns#adr> _:b0 .\n` +
  `_:b0 <http://www.w3.org/2006/vcard/ns#locality> "Ort \\"${isil}\\"" .\n`;
const events: HistoryEvent[] = [
  { kind: 'created', isil: 'DE-1', version: 'a', time: T, hash: 'h1' },
  { kind: 'created', isil: 'DE-2', version: 'a', time: T, hash: 'h2' },
  { kind: 'withdrawn', isil: 'DE-3', version: 'b', time: T + 60, successors: ['DE-1'] },
  { kind: 'deleted', isil: 'DE-4', version: 'b', time: T + 60 },
];
const history = new MemoryHistory(
  [
    { version: 'a', time: T },
    { version: 'b', time: T + 60 },
  ],
  events,
  (event) => Promise.resolve(description(event.isil)),
);
const layout = feedLayout(history);
const settings = { baseIri: BASE, pollingInterval: 3600, keepVersions: 0 };

describe('the change feed’s writers', () => {
  let page: Awaited<ReturnType<typeof pageStatements>>;
  before(async () => {
    page = await pageStatements(history, layout, layout.pages[0]!, BASE);
  });

  it('write TriG naming the feed absolute on the origin asked', () => {
    const text = writeFeed(page, 'trig', 'http://a.example');
    assert.doesNotMatch(text, /<\/feed/);
    const quads = new Parser({ format: 'TriG', baseIRI: 'http://elsewhere.example/' }).parse(text);
    assert.ok(quads.some((q) => q.subject.value === 'http://a.example/feed#stream'));
  });

  it('write N-Quads naming the feed under the origin asked, as the same dataset as TriG', () => {
    const trig = new Parser({ format: 'TriG', baseIRI: 'http://a.example/feed' }).parse(
      writeFeed(page, 'trig', ''),
    );
    const nq = new Parser({ format: 'N-Quads' }).parse(writeFeed(page, 'nq', 'http://a.example'));
    assert.ok(sameGraph(nq, trig));
  });

  it('write JSON-LD as the same dataset as TriG', async () => {
    const trig = new Parser({ format: 'TriG', baseIRI: 'http://a.example/feed' }).parse(
      writeFeed(page, 'trig', ''),
    );
    const jsonld = await parseJsonLd(writeFeed(page, 'jsonld', ''), 'http://a.example/feed');
    assert.ok(sameGraph(jsonld, trig));
  });

  it('write Turtle and N-Triples as TriG’s triples', () => {
    const trig = new Parser({ format: 'TriG', baseIRI: 'http://a.example/feed' }).parse(
      writeFeed(page, 'trig', ''),
    );
    const ttl = new Parser({ format: 'Turtle', baseIRI: 'http://a.example/feed' }).parse(
      writeFeed(page, 'ttl', ''),
    );
    const nt = new Parser({ format: 'N-Triples' }).parse(writeFeed(page, 'nt', 'http://a.example'));
    assert.ok(sameGraph(ttl, asTriples(trig)));
    assert.ok(sameGraph(nt, asTriples(trig)));
  });

  it('give each member’s blank nodes labels of their own', () => {
    const blanks = new Map<string, Set<string>>();
    for (const [s, , o, g] of page)
      for (const term of [s, o])
        if (term.startsWith('_:') && g) blanks.set(term, (blanks.get(term) ?? new Set()).add(g));
    assert.equal(blanks.size, 2);
    for (const graphs of blanks.values()) assert.equal(graphs.size, 1);
  });

  it('give a withdrawal its record and a deletion no payload', async () => {
    const second = await pageStatements(history, layout, layout.pages[1]!, BASE);
    const graphs = new Set(second.flatMap(([, , , g]) => (g ? [g] : [])));
    assert.deepEqual([...graphs], ['</feed/20250301120100#DE-3>']);
    assert.ok(
      second.some(
        ([s, p, o]) =>
          s === `<${BASE}/resource/organisations/DE-3>` &&
          p === '<http://purl.org/dc/terms/isReplacedBy>' &&
          o === `<${BASE}/resource/organisations/DE-1>`,
      ),
    );
  });

  it('state a point-in-time policy when every version is kept, the latest versions when not', () => {
    const policy = (keepVersions: number) => {
      const statements = rootStatements(layout, { ...settings, keepVersions });
      const node = statements.find(([, p]) => p.endsWith('#retentionPolicy>'))?.[2];
      return statements.find(([s, p]) => s === node && p.endsWith('#type>'))?.[2];
    };
    assert.equal(policy(0), '<https://w3id.org/ldes#PointInTimePolicy>');
    assert.equal(policy(3), '<https://w3id.org/ldes#LatestVersionSubset>');
  });
});
