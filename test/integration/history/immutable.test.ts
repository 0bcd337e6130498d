// What is served immutable never changes (docs/history.md): every memento and feed page is asked
// for, the registry moves on (other data at the same time without a log; more versions and
// retention with one), and each is asked for again. An answer that was `immutable` is the same
// bytes again, or gone (a 404 or 410); the faults are the test's own: data changed under the same
// time, versions added, versions dropped.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { commitVersion } from '../../../src/load/commit/commitVersion';
import { generate } from '../../../src/generate/generated';
import { loadSources } from '../../../src/load/loadSources';
import { timestamp14 } from '../../../src/history/model';
import { feedLayout } from '../../../src/documents/feedLayout';
import { asText, tempDir } from '../../support';
import {
  HISTORY_BASE,
  historyApp,
  isilOf,
  registryVersions,
  writeHistory,
  type HistoryFixture,
} from '../../support/history';

const HOST = 'ld.example.test';

interface Answer {
  readonly status: number;
  readonly cache: string;
  readonly body: string;
}

/** Every memento (Turtle and page) and every feed page of the app over `fixture`, answered. */
async function answers(fixture: HistoryFixture, env: Record<string, string> = {}) {
  const { app, service, dataset } = await historyApp(fixture, env);
  try {
    const { history } = dataset;
    const urls = feedLayout(history).pages.map((p) => `/feed/${p.id}`);
    for (const institution of dataset.institutions())
      for (const memento of history.mementos(institution.isil))
        for (const document of [
          `/data/organisations/${institution.isil}.ttl`,
          `/isil/${institution.isil}`,
        ])
          urls.push(`/memento/${timestamp14(memento.time)}${document}`);
    const answered = new Map<string, Answer>();
    for (const url of urls) {
      const res = await request(app).get(url).set('Host', HOST).buffer(true).parse(asText);
      answered.set(url, {
        status: res.status,
        cache: String(res.headers['cache-control']),
        body: String(res.body),
      });
    }
    return answered;
  } finally {
    service.close();
  }
}

/** The URLs answered immutable before whose answer now is another 200. */
function changed(before: Map<string, Answer>, after: Map<string, Answer>): string[] {
  const out: string[] = [];
  for (const [url, then] of before) {
    if (then.status !== 200 || !then.cache.includes('immutable')) continue;
    const now = after.get(url);
    if (now === undefined || now.status === 404 || now.status === 410) continue;
    if (now.status !== 200 || now.body !== then.body) out.push(url);
  }
  return out;
}

/** The URLs answered 200 before and after, with other bytes. */
function differing(before: Map<string, Answer>, after: Map<string, Answer>): string[] {
  return [...before]
    .filter(([url, then]) => {
      const now = after.get(url);
      return then.status === 200 && now?.status === 200 && now.body !== then.body;
    })
    .map(([url]) => url);
}

describe('what is served immutable never changes', function () {
  this.timeout(240_000);
  const dirs: string[] = [];
  after(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

  it('without a log: other data of the same newest date changes no immutable answer', async () => {
    // Over 250 institutions: the derived feed has pages before its newest.
    const blocks = [...generate({ count: 600, seed: 11, base: HISTORY_BASE })];
    const fixture = async (text: string): Promise<HistoryFixture> => {
      const dir = tempDir();
      dirs.push(dir);
      const source = path.join(dir, 'registry.nt');
      fs.writeFileSync(source, text);
      const dataset = path.join(dir, 'dataset.nq');
      const target = { dataset, baseIri: HISTORY_BASE, historyDir: '', historyKeepVersions: 0 };
      const loaded = await loadSources([source], { baseIri: HISTORY_BASE });
      await commitVersion(loaded, target).finally(() => loaded.dataset.free());
      return { dir, dataset, historyDir: '', committed: [], sources: [source] };
    };
    const text = blocks.join('');
    const renamedIsil = isilOf(blocks[1]!);
    const renamed = blocks
      .map((b, i) => (i === 1 ? b.replace('(synthetisch)"', '(synthetisch) (umbenannt)"') : b))
      .join('');
    assert.notEqual(renamed, text);
    const before = await answers(await fixture(text));
    const after = await answers(await fixture(renamed));
    // The fault is made: the same URLs (one time) serve other bytes.
    assert.ok(differing(before, after).some((url) => url.includes(renamedIsil)));
    assert.deepEqual(changed(before, after), []);
  });

  for (const keep of [2, 4])
    it(`with a log kept to ${keep} versions: versions added and dropped change no immutable answer`, async () => {
      const versions = registryVersions();
      const env = { HISTORY_KEEP_VERSIONS: String(keep) };
      const first = await writeHistory(versions.slice(0, 3), keep);
      const later = await writeHistory(versions, keep);
      dirs.push(first.dir, later.dir);
      const before = await answers(first, env);
      const after = await answers(later, env);
      // A page memento lists the versions, so it is other bytes once a version is added.
      if (keep === 4) assert.ok(differing(before, after).some((url) => url.includes('/isil/')));
      assert.deepEqual(changed(before, after), []);
      // The Turtle mementos and the full feed pages are still promised.
      for (const kind of ['.ttl', '/feed/'])
        assert.ok(
          [...before].some(([url, a]) => url.includes(kind) && a.cache.includes('immutable')),
          kind,
        );
    });
});
