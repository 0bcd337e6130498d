// The feed's root and index pages (src/documents/feedPages.ts, feedLayout.ts): with more runs than a
// node links, the root links the newest and an index page the rest, a chain of index pages that
// reaches every member once, each relation's bounds holding for all it reaches.
import assert from 'node:assert/strict';
import { Parser, type Quad } from 'n3';
import { MemoryHistory } from '../../../src/history/memory';
import type { HistoryEvent, VersionInfo } from '../../../src/history/model';
import { AS, FEED_FORMATS, TREE } from '../../../src/documents/feedStatements';
import { FeedPages } from '../../../src/documents/feedPages';
import { RenderQueue } from '../../../src/documents/renderQueue';

const BASE = 'https://ld.example.org';
const ORIGIN = 'http://feed.test';
const DAY = 86_400;
const T0 = Date.UTC(2025, 2, 1, 12) / 1000;
const VERSIONS = 10;
const GROUP = 3;
const TRIG = FEED_FORMATS.find((f) => f.name === 'trig')!;

const versions: VersionInfo[] = Array.from({ length: VERSIONS }, (_, i) => ({
  version: `v${i}`,
  time: T0 + i * DAY,
}));
const events: HistoryEvent[] = versions.flatMap((v, i) =>
  ['DE-1', 'DE-2'].map((isil) => ({
    kind: i === 0 ? ('created' as const) : ('updated' as const),
    isil,
    version: v.version,
    time: v.time,
    hash: `${i}${isil}`,
  })),
);
const history = new MemoryHistory(versions, events, (e) =>
  Promise.resolve(
    `<${BASE}/resource/organisations/${e.isil}> <http://xmlns.com/foaf/0.1/name> "${e.hash}" .\n`,
  ),
);

interface Node {
  readonly quads: Quad[];
  /** The nodes it links, with the bounds its relations state (seconds). */
  readonly links: { node: string; ge: number; le: number }[];
  /** The times of its members. */
  readonly members: number[];
}

const seconds = (q: Quad | undefined) => Date.parse(q!.object.value) / 1000;

describe('the feed’s root and index pages', () => {
  const crawled = new Map<string, Node>();
  let fetches = 0;
  before(async () => {
    const pages = new FeedPages(
      { baseIri: BASE, pollingInterval: 60, keepVersions: 0 },
      () => ({ status: 200, headers: () => ({}) }),
      new RenderQueue(),
      64 * 1024 * 1024,
      GROUP,
    );
    const queue = [`${ORIGIN}/feed`];
    while (queue.length) {
      const url = queue.shift()!;
      if (crawled.has(url)) throw new Error(`${url} is linked twice`);
      const id = url.slice(`${ORIGIN}/feed/`.length);
      const found = pages.find(history, id);
      assert.ok(found.kind === 'root' || found.kind === 'page' || found.kind === 'index', url);
      fetches++;
      const answer = await pages.get(history, id, TRIG, ORIGIN);
      const quads = new Parser({ format: 'TriG' }).parse(answer.representation.body.toString());
      const about = (s: string, p: string) =>
        quads.filter((q) => q.subject.value === s && q.predicate.value === p);
      const links = about(url, `${TREE}relation`).map((r) => {
        const [node] = about(r.object.value, `${TREE}node`);
        const [value] = about(r.object.value, `${TREE}value`);
        const [type] = about(r.object.value, 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type');
        return {
          node: node!.object.value,
          value: seconds(value),
          ge: type!.object.value.includes('Greater'),
        };
      });
      const byNode = new Map<string, { node: string; ge: number; le: number }>();
      for (const l of links) {
        const bounds = byNode.get(l.node) ?? { node: l.node, ge: -Infinity, le: Infinity };
        if (l.ge) bounds.ge = l.value;
        else bounds.le = l.value;
        byNode.set(l.node, bounds);
      }
      const members = quads
        .filter((q) => q.predicate.value === `${AS}published` && q.subject.value.includes('#DE-'))
        .map((q) => Date.parse(q.object.value) / 1000);
      crawled.set(url, { quads, links: [...byNode.values()], members });
      queue.push(...byNode.keys());
    }
  });

  /** The member times reachable from `url`. */
  const reachable = (url: string): number[] => {
    const node = crawled.get(url)!;
    return [...node.members, ...node.links.flatMap((l) => reachable(l.node))];
  };

  it('reaches every member once, each page fetched once', () => {
    assert.deepEqual(
      reachable(`${ORIGIN}/feed`).sort((a, b) => a - b),
      events.map((e) => e.time),
    );
    assert.equal(fetches, crawled.size);
  });
  it(`links from the root the newest runs and one index page, no more than ${GROUP + 1} nodes`, () => {
    const root = crawled.get(`${ORIGIN}/feed`)!;
    assert.deepEqual(root.links.map((l) => l.node).sort(), [
      `${ORIGIN}/feed/20250310120000/1`,
      `${ORIGIN}/feed/index/3`,
    ]);
  });
  it('chains the index pages, each linking its runs and the one before', () => {
    assert.deepEqual(
      crawled.get(`${ORIGIN}/feed/index/1`)!.links.map((l) => l.node),
      ['20250301120000/1', '20250302120000/1', '20250303120000/1'].map(
        (p) => `${ORIGIN}/feed/${p}`,
      ),
    );
    assert.ok(
      crawled.get(`${ORIGIN}/feed/index/2`)!.links.some((l) => l.node.endsWith('/index/1')),
    );
    assert.equal(crawled.get(`${ORIGIN}/feed/index/1`)!.members.length, 0);
  });
  it('bounds every relation by the members reachable through it', () => {
    for (const node of crawled.values())
      for (const link of node.links)
        for (const time of reachable(link.node))
          assert.ok(time >= link.ge && time <= link.le, `${link.node}: ${time}`);
  });
  it('finds no index page past the last', () => {
    const pages = new FeedPages(
      { baseIri: BASE, pollingInterval: 60, keepVersions: 0 },
      () => ({ status: 200, headers: () => ({}) }),
      new RenderQueue(),
      64 * 1024 * 1024,
      GROUP,
    );
    assert.equal(pages.find(history, 'index/4').kind, 'none');
    assert.equal(pages.find(history, 'index/0').kind, 'none');
  });
});
