import assert from 'node:assert/strict';
import { MemoryHistory } from '../../../src/history/memory';
import type { HistoryEvent, VersionInfo } from '../../../src/history/model';
import { feedLayout, findPage, isImmutable, nextInRun } from '../../../src/documents/feedLayout';

const DAY = 86_400;
const T0 = Date.UTC(2025, 2, 1, 12) / 1000;

/** A history of versions a day apart, `sizes[i]` events in version i (ISILs DE-<i>-<n>). */
function historyOf(sizes: readonly number[], keepFrom = 0): MemoryHistory {
  const versions: VersionInfo[] = sizes.map((_, i) => ({ version: `v${i}`, time: T0 + i * DAY }));
  const events: HistoryEvent[] = sizes.flatMap((n, i) =>
    Array.from({ length: n }, (_, k) => ({
      kind: i === 0 ? ('created' as const) : ('updated' as const),
      isil: `DE-${String(k).padStart(4, '0')}`,
      version: `v${i}`,
      time: T0 + i * DAY,
      hash: `${i}-${k}`,
    })),
  );
  if (keepFrom === 0) return new MemoryHistory(versions, events, () => Promise.resolve(''));
  // Retention: versions before `keepFrom` dropped, each ISIL's latest event of them carried.
  const kept = events.filter((e) => e.time >= versions[keepFrom]!.time);
  const latest = new Map<string, HistoryEvent>();
  for (const e of events) if (e.time < versions[keepFrom]!.time) latest.set(e.isil, e);
  const carried = [...latest.values()].filter((e) => !kept.some((k) => k.isil === e.isil));
  const all = [...carried, ...kept].sort((a, b) =>
    a.time !== b.time ? a.time - b.time : a.isil < b.isil ? -1 : 1,
  );
  const dropped = { first: T0, last: versions[keepFrom - 1]!.time, versions: keepFrom };
  return new MemoryHistory(
    versions.slice(keepFrom),
    all,
    () => Promise.resolve(''),
    undefined,
    false,
    dropped,
  );
}

describe('feedLayout', () => {
  const layout = feedLayout(historyOf([7, 2, 3]), 3);

  it('cuts each version into pages of at most the page size, named after its time', () => {
    assert.deepEqual(
      layout.pages.map((p) => [p.id, p.events.length]),
      [
        ['20250301120000/1', 3],
        ['20250301120000/2', 3],
        ['20250301120000/3', 1],
        ['20250302120000/1', 2],
        ['20250303120000/1', 3],
      ],
    );
  });

  it('gives the pages of one version the same bounds: its time, and a second later', () => {
    for (const page of layout.pages.slice(0, 3))
      assert.deepEqual([page.lower, page.upper], [T0, T0 + 1]);
  });

  it('holds every event once, in order of time then ISIL', () => {
    const events = layout.pages.flatMap((p) => p.events);
    assert.deepEqual(events, [...historyOf([7, 2, 3]).all()]);
  });

  it('chains the pages of each version, each linked from one node: the root, or the page before', () => {
    assert.deepEqual(
      layout.pages.map((p) => [p.id, p.first, nextInRun(layout, p)?.id]),
      [
        ['20250301120000/1', true, '20250301120000/2'],
        ['20250301120000/2', false, '20250301120000/3'],
        ['20250301120000/3', false, undefined],
        ['20250302120000/1', true, undefined],
        ['20250303120000/1', true, undefined],
      ],
    );
  });

  it('chains the carried events apart, bounded by the last of them', () => {
    const retained = feedLayout(historyOf([7, 2, 3, 1], 2), 3);
    const before = retained.pages.filter((p) => p.id.includes('before'));
    const last = before.at(-1)!.events.at(-1)!.time;
    assert.deepEqual(
      before.map((p) => [p.first, p.reach, p.made, nextInRun(retained, p)?.id]),
      [
        [true, last + 1, T0 + 2 * DAY, '20250303120000/before/2'],
        [false, last + 1, T0 + 2 * DAY, undefined],
      ],
    );
  });

  it('makes every page but the newest immutable', () => {
    assert.deepEqual(
      layout.pages.map((p) => isImmutable(layout, p)),
      [true, true, true, true, false],
    );
  });

  it("makes none of a derived history's pages immutable: nothing keeps their bytes", () => {
    const history = historyOf([7]);
    const derived = new MemoryHistory(
      history.versions,
      [...history.all()],
      () => Promise.resolve(''),
      undefined,
      true,
    );
    const pages = feedLayout(derived, 3);
    assert.equal(pages.pages.length, 3);
    assert.deepEqual(
      pages.pages.map((p) => isImmutable(pages, p)),
      [false, false, false],
    );
  });

  it('cuts the same pages of the versions retention keeps, and carries the rest before them', () => {
    const full = feedLayout(historyOf([7, 2, 3, 1]), 3);
    const retained = feedLayout(historyOf([7, 2, 3, 1], 2), 3);
    const own = (l: typeof full) =>
      l.pages
        .filter((p) => !p.id.includes('before'))
        .map((p) => [p.id, p.events, p.lower, p.upper]);
    assert.deepEqual(own(retained), own(full).slice(-2));
    assert.deepEqual(
      retained.pages.filter((p) => p.id.includes('before')).map((p) => p.id),
      ['20250303120000/before/1', '20250303120000/before/2'],
    );
  });

  it('bounds the carried events by their own times, before the first version kept', () => {
    const retained = feedLayout(historyOf([7, 2, 3, 1], 2), 3);
    const before = retained.pages.filter((p) => p.id.includes('before'));
    assert.equal(
      before.every((p) => p.upper <= T0 + 2 * DAY),
      true,
    );
    assert.equal(before[0]!.lower, T0);
  });

  it('has no pages for a history without versions', () => {
    assert.deepEqual(feedLayout(new MemoryHistory([], [], () => Promise.resolve(''))).pages, []);
  });
});

describe('findPage', () => {
  const retained = feedLayout(historyOf([7, 2, 3, 1], 2), 3);
  const kinds: [string, string][] = [
    ['20250303120000/1', 'page'],
    ['20250303120000/before/2', 'page'],
    ['20250301120000/1', 'gone'],
    ['20250302120000/1', 'gone'],
    ['20250302120000/before/1', 'gone'],
    ['20250228120000/1', 'none'],
    ['20250303120000/9', 'none'],
    ['20250303120000/0', 'none'],
    ['20250303120000/01', 'none'],
    ['20300101000000/1', 'none'],
    ['20250231120000/1', 'none'],
    ['20250303120000', 'none'],
    ['20250303120000/1/', 'none'],
    ['../20250303120000/1', 'none'],
    [`20250303120000/${'9'.repeat(400)}`, 'none'],
    ['', 'none'],
  ];
  for (const [id, kind] of kinds)
    it(`finds ${JSON.stringify(id.slice(0, 40))}: ${kind}`, () => {
      assert.equal(findPage(retained, id).kind, kind);
    });
});
