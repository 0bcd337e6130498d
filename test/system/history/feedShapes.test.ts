// The change feed against the LDES and TREE shapes (docs/history.md, "Following the change feed"):
// the root and every page, crawled from a real server process over a history of five versions
// (with and without retention), and the bundled registry's root and pages, hold no sh:Violation;
// the root no sh:Warning either.
import assert from 'node:assert/strict';
import { Parser } from 'n3';
import request from 'supertest';
import type { Express } from 'express';
import { BUNDLED_DATASET } from '../../../src/util/bundled';
import { buildApp, needsThirdParty } from '../../support';
import { writeHistory, registryVersions } from '../../support/history';
import {
  SHAPES_DIR,
  shapesThere,
  validatePage,
  type PageKind,
  type ShapeResult,
} from '../../support/feedShapes';
import { startServerProcess, type ServerProcess } from '../../support/serverProcess';
import { skipWithout } from '../../support/missing';

const TREE = 'https://w3id.org/tree#';

function needsShapes(this: Mocha.Context): void {
  if (shapesThere()) return;
  skipWithout(this, 'the LDES and TREE shapes', `not in ${SHAPES_DIR}: npm run fetch-data`);
}

/** A page as served: its URL and TriG. */
interface Page {
  readonly url: string;
  readonly trig: string;
}

/** The pages a page links through its relations, as absolute URLs. */
function linked(page: Page): string[] {
  const quads = new Parser({ format: 'application/trig', baseIRI: page.url }).parse(page.trig);
  const relations = new Set(
    quads.filter((q) => q.predicate.value === `${TREE}relation`).map((q) => q.object.value),
  );
  const nodes = quads
    .filter((q) => relations.has(q.subject.value) && q.predicate.value === `${TREE}node`)
    .map((q) => q.object.value);
  return [...new Set(nodes)];
}

/** The root and every page reachable from it, each once, `fetchPage` reading one. */
async function crawl(root: string, fetchPage: (url: string) => Promise<Page>): Promise<Page[]> {
  const pages: Page[] = [];
  const seen = new Set([root]);
  const queue = [root];
  for (let at = 0; at < queue.length; at++) {
    const page = await fetchPage(queue[at]!);
    pages.push(page);
    for (const next of linked(page)) {
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return pages;
}

const of = (results: readonly ShapeResult[], severity: string) =>
  results.filter((r) => r.severity === severity).map((r) => `${r.message} (${r.focus})`);

/** The suite's checks of crawled pages: the root first. */
function conforms(pages: () => readonly Page[]) {
  const results = new Map<string, ShapeResult[]>();
  before(async function () {
    this.timeout(300_000);
    for (const [i, page] of pages().entries()) {
      const kind: PageKind = i === 0 ? 'root' : 'subsequent';
      results.set(page.url, await validatePage(page.trig, page.url, kind));
    }
  });

  it('crawls the root and its pages', () => {
    assert.ok(pages().length > 1, `${pages().length} pages`);
  });

  it('has no sh:Violation on the root', () => {
    assert.deepEqual(of(results.get(pages()[0]!.url)!, 'Violation'), []);
  });

  it('has no sh:Warning on the root (one type, a tree:shape, a retention policy)', () => {
    assert.deepEqual(of(results.get(pages()[0]!.url)!, 'Warning'), []);
  });

  it('has no sh:Violation on any other page', () => {
    for (const page of pages().slice(1))
      assert.deepEqual(of(results.get(page.url)!, 'Violation'), [], page.url);
  });
}

for (const [label, keep, served] of [
  ['every version kept', 0, 0],
  ['HISTORY_KEEP_VERSIONS=2', 2, 2],
  ['a log cut to 2 versions, served with HISTORY_KEEP_VERSIONS=0', 2, 0],
] as const)
  describe(`the feed of a server process conforms to the LDES and TREE shapes (${label})`, function () {
    this.timeout(180_000);
    let server: ServerProcess;
    let pages: Page[] = [];
    before(needsShapes);
    before(async () => {
      const fixture = await writeHistory(registryVersions(), keep);
      server = await startServerProcess({
        env: {
          DATASET: fixture.dataset,
          HISTORY_DIR: fixture.historyDir,
          HISTORY_KEEP_VERSIONS: String(served),
        },
      });
      pages = await crawl(`http://127.0.0.1:${server.port}/feed`, async (url) => {
        const res = await fetch(url, { headers: { accept: 'application/trig' } });
        assert.equal(res.status, 200, url);
        return { url, trig: await res.text() };
      });
    });
    after(async () => {
      server?.child.kill('SIGKILL');
      await server?.exit;
    });

    conforms(() => pages);

    if (keep > 0)
      it('crawls the pages of the events carried over from dropped versions', () => {
        assert.ok(pages.some((p) => p.url.includes('/before/')));
      });
  });

describe("the bundled registry's feed conforms to the LDES and TREE shapes", function () {
  this.timeout(300_000);
  let app: Express;
  let pages: Page[] = [];
  before(needsShapes);
  before(needsThirdParty);
  before(async () => {
    ({ app } = await buildApp(BUNDLED_DATASET));
    const origin = 'http://ld.zdb-services.de';
    const get = async (url: string): Promise<Page> => {
      const res = await request(app)
        .get(new URL(url).pathname)
        .set('Host', 'ld.zdb-services.de')
        .set('Accept', 'application/trig');
      assert.equal(res.status, 200, url);
      return { url, trig: res.text };
    };
    // The root, and the first, second and last page of its one version's chain.
    const root = await get(`${origin}/feed`);
    let page = await get(linked(root)[0]!);
    pages = [root, page];
    page = await get(linked(page)[0]!);
    pages.push(page);
    for (let next = linked(page)[0]; next; next = linked(page)[0]) page = await get(next);
    pages.push(page);
  });

  conforms(() => pages);
});
