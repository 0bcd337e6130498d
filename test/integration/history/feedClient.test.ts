// The reference client agrees (docs/history.md, "Following the change feed"): `ldes-client`, the
// reference implementation of LDES, replays the change feed of a registry with a past, as a
// library over the app and once as the command line over a real server process.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { Parser, type Quad } from 'n3';
import request from 'supertest';
import type { Express } from 'express';
import type { History } from '../../../src/history/model';
import { PROJECT_ROOT } from '../../../src/util/paths';
import { asTriples, sameGraph } from '../../support';
import { startServerProcess, type ServerProcess } from '../../support/serverProcess';
import {
  HISTORY_BASE,
  historyApp,
  VERSION_TIMES,
  writeHistory,
  type HistoryFixture,
  HISTORY_APPS,
  registryVersions,
} from '../../support/history';
import { FEED_PAGE_SIZE } from '../../../src/documents/feedLayout';

const AS = 'https://www.w3.org/ns/activitystreams#';
const CLI = path.join(PROJECT_ROOT, 'node_modules', 'ldes-client', 'dist', 'bin', 'cli.js');

/** What the client emits of a member: its IRI, time, type, what it is a version of, its quads. */
interface Member {
  readonly id: string;
  readonly timestamp: number;
  readonly type: string | undefined;
  readonly isVersionOf: string | undefined;
  readonly quads: readonly Quad[];
}

/** The options of `intoConfig` these tests use. */
interface Options {
  readonly materialize?: boolean;
  readonly lastVersionOnly?: boolean;
  readonly after?: Date;
}

/** Every member the reference client emits, replaying the stream at `url` once. */
async function replay(url: string, options: Options = {}): Promise<Member[]> {
  // ldes-client is ES modules only (its CommonJS build does not load).
  const { replicateLDES, intoConfig } = await import('ldes-client');
  const client = replicateLDES(intoConfig({ url, ...options }), 'none');
  const reader = client.stream().getReader();
  const members: Member[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    members.push({
      id: value.id.value,
      timestamp: (value.timestamp as Date).getTime() / 1000,
      type: value.type?.value,
      isVersionOf: value.isVersionOf,
      quads: value.quads as Quad[],
    });
  }
  return members;
}

const institution = (isil: string) => `${HISTORY_BASE}/resource/organisations/${isil}`;

/** The app serving a fixture with its history: one function, so that each adapter is one call. */
type FeedApp = (fixture: HistoryFixture) => Promise<{ app: Express; history: History }>;
const FEED_APPS: readonly [string, FeedApp][] = HISTORY_APPS;

/**
 * Serves `app` on a free port for the suite, its feed's URL in `feed.url`; the client's logger,
 * which reads LOG_LEVEL when it is made, quiet meanwhile (its progress is not the tests').
 */
function listening(app: () => Promise<Express>): { url: string; paths: string[] } {
  const feed = { url: '', paths: [] as string[] };
  let server: http.Server;
  const logLevel = process.env.LOG_LEVEL;
  before(async () => {
    process.env.LOG_LEVEL = 'error';
    const served = await app();
    // The paths the client asked for, in order.
    server = http.createServer((req, res) => {
      feed.paths.push(req.url ?? '');
      void served(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    feed.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/feed`;
  });
  after(() => {
    server?.close();
    if (logLevel === undefined) delete process.env.LOG_LEVEL;
    else process.env.LOG_LEVEL = logLevel;
  });
  return feed;
}

for (const [adapter, feedApp] of FEED_APPS)
  describe(`The reference client replays the change feed (${adapter})`, function () {
    this.timeout(120_000);
    let app: Express;
    let history: History;
    const feed = listening(async () => {
      ({ app, history } = await feedApp(await writeHistory()));
      return app;
    });

    const eventKeys = (events: Iterable<{ isil: string; time: number; kind: string }>) =>
      [...events]
        .map((e) => {
          const type = { created: 'Create', updated: 'Update' }[e.kind] ?? 'Delete';
          return `${institution(e.isil)} ${e.time} ${AS}${type}`;
        })
        .sort();
    const memberKeys = (members: readonly Member[]) =>
      members.map((m) => `${m.isVersionOf} ${m.timestamp} ${m.type}`).sort();

    it('gets every event of the history once, of its kind, at its time', async () => {
      const members = await replay(feed.url);
      assert.deepEqual(memberKeys(members), eventKeys(history.all()));
    });

    describe('materialized, the last version only', () => {
      let members: Member[];
      before(async () => {
        members = await replay(feed.url, { materialize: true, lastVersionOnly: true });
      });

      it('gets, but for deletions, exactly the live institutions of the current version', async () => {
        const live = [...history.all()]
          .reduce((latest, e) => latest.set(e.isil, e.kind), new Map<string, string>())
          .entries();
        const expected = [...live]
          .filter(([, kind]) => kind === 'created' || kind === 'updated')
          .map(([isil]) => institution(isil))
          .sort();
        const got = members
          .filter((m) => m.type !== `${AS}Delete`)
          .map((m) => m.id)
          .sort();
        assert.deepEqual(got, expected);
      });

      it('gets each one’s payload as its current document', async () => {
        for (const member of members.filter((m) => m.type !== `${AS}Delete`)) {
          const isil = member.id.slice(member.id.lastIndexOf('/') + 1);
          const doc = await request(app)
            .get(`/data/organisations/${isil}.nt`)
            .set('Host', new URL(HISTORY_BASE).host);
          assert.equal(doc.status, 200, isil);
          const payload = member.quads.filter((q) => q.graph.termType === 'NamedNode');
          const current = new Parser({ format: 'N-Triples' }).parse(doc.text);
          assert.ok(sameGraph(asTriples(payload), current), `payload of ${isil}`);
        }
      });

      it('gets the deletions of the withdrawn and deleted ISILs', () => {
        const deleted = [...history.all()]
          .reduce((latest, e) => latest.set(e.isil, e.kind), new Map<string, string>())
          .entries();
        const expected = [...deleted]
          .filter(([, kind]) => kind === 'withdrawn' || kind === 'deleted')
          .map(([isil]) => institution(isil))
          .sort();
        const got = members
          .filter((m) => m.type === `${AS}Delete`)
          .map((m) => m.id)
          .sort();
        assert.deepEqual(got, expected);
      });
    });

    for (const day of [0, 2, 3])
      it(`gets exactly the events after a version's time (--after, exclusive; version ${day + 1})`, async () => {
        const after = VERSION_TIMES[day]!;
        const members = await replay(feed.url, { after: new Date(after * 1000) });
        assert.deepEqual(
          memberKeys(members),
          eventKeys([...history.all()].filter((e) => e.time > after)),
        );
      });
  });

describe('The reference client replays a version over several pages', function () {
  this.timeout(120_000);
  let history: History;
  const feed = listening(async () => {
    // The first version fills 3 pages and part of a fourth: the client follows the chain.
    const fixture = await writeHistory(registryVersions(3 * FEED_PAGE_SIZE + 10));
    const served = await HISTORY_APPS[0]![1](fixture);
    history = served.history;
    return served.app;
  });

  it('gets every event once', async () => {
    const members = await replay(feed.url);
    assert.equal(members.length, history.size);
    assert.equal(new Set(members.map((m) => m.id)).size, history.size);
  });
  it('gets exactly the events after the first version (--after)', async () => {
    const after = VERSION_TIMES[0]!;
    feed.paths.length = 0;
    const members = await replay(feed.url, { after: new Date(after * 1000) });
    assert.deepEqual(
      members.map((m) => `${m.isVersionOf} ${m.timestamp}`).sort(),
      [...history.all()]
        .filter((e) => e.time > after)
        .map((e) => `${institution(e.isil)} ${e.time}`)
        .sort(),
    );
  });
  it("reads none of the first version's pages then: its relations' bounds say it has nothing after", () => {
    const first = `/feed/${new Date(VERSION_TIMES[0]! * 1000).toISOString().replace(/[-:TZ]|\.000/g, '')}/`;
    assert.ok(feed.paths.includes('/feed'), feed.paths.join(' '));
    assert.deepEqual(
      feed.paths.filter((p) => p.startsWith(first)),
      [],
    );
  });
});

describe('The reference client’s command line against a server process', function () {
  this.timeout(180_000);
  let server: ServerProcess;
  let history: History;
  before(async () => {
    const fixture = await writeHistory();
    history = (await historyApp(fixture)).dataset.history;
    server = await startServerProcess({
      env: {
        DATASET: fixture.dataset,
        HISTORY_DIR: fixture.historyDir,
        BASE_IRI: HISTORY_BASE,
      },
    });
  });
  after(() => server?.child.kill());

  it('replays the whole stream materialized, the live institutions not deleted', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [CLI, '--materialize', '--last-version-only', `http://127.0.0.1:${server.port}/feed`],
      { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, LOG_LEVEL: 'error' } },
    );
    const quads = new Parser({ format: 'N-Quads' }).parse(stdout);
    const types = new Map<string, string[]>();
    for (const q of quads)
      if (q.graph.termType === 'DefaultGraph' && q.predicate.value.endsWith('#type'))
        types.set(q.subject.value, [...(types.get(q.subject.value) ?? []), q.object.value]);
    const live = [...types].filter(([, t]) => !t.includes(`${AS}Delete`)).map(([iri]) => iri);
    const latest = [...history.all()].reduce(
      (m, e) => m.set(e.isil, e.kind),
      new Map<string, string>(),
    );
    const expected = [...latest]
      .filter(([, kind]) => kind === 'created' || kind === 'updated')
      .map(([isil]) => institution(isil));
    assert.deepEqual(live.sort(), expected.sort());
  });
});
