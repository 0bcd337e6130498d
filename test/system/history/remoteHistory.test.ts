// The history in a remote store (src/store/remote/remoteHistory.ts, docs/history.md), against a real
// Virtuoso that gives at most 45 rows an answer without saying so: two loads (one through each way
// in) leave the events the embedded change log has for the same sources, only the descriptions the
// store lacks are written, the same sources again add nothing, a rollback appends, prune keeps
// what the history references, and every replica reads the same history, its mementos isomorphic
// to what was served then.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DataFactory, Parser, type Quad, type Term } from 'n3';
import { isomorphic } from 'rdf-isomorphic';
import { loadRemote, transportOf, type RemoteTarget } from '../../../cli/remote';
import { prune, useVersion } from '../../../cli/versions';
import { committed, LOG_FILE, readLog } from '../../../src/history/log';
import type { History, HistoryEvent } from '../../../src/history/model';
import { writeTriples } from '../../../src/history/text';
import { commitVersion } from '../../../src/load/commit/commitVersion';
import { generate } from '../../../src/generate/generated';
import { loadSources, writeSnapshot } from '../../../src/load/loadSources';
import { createLogger } from '../../../src/util/logger';
import { adaptersFor } from '../../../src/process/adapters';
import { DESCRIPTION_PREFIX, hashGraph, HISTORY_PREFIX } from '../../../src/store/remote/layout';
import {
  graphsStartingWith,
  listTimeline,
  listVersions,
  storedVersions,
} from '../../../src/store/remote/registry';
import {
  readHashDescription,
  readStoredHistory,
  remoteHistory,
} from '../../../src/store/remote/remoteHistory';
import { SparqlClient } from '../../../src/store/remote/sparqlClient';
import { bulkTarget, startVirtuoso, type Virtuoso } from '../../servers/virtuoso';
import { BASE, tempDir, testConfig, needsStore } from '../../support';

/** The most rows the test's Virtuoso gives an answer: fewer than the events of one version. */
const MAX_ROWS = 45;
const COUNT = 120;

const isilOf = (block: string) => /organisations\/([^>]+)>/.exec(block)![1]!;
/** Events as the change log and the store both say them. */
const said = (events: Iterable<HistoryEvent>) =>
  [...events].map((e) => `${e.version} ${e.kind} ${e.isil} ${e.hash ?? ''}`);

/** A term with its language tag in lower case (Virtuoso keeps them so; RDF 1.1 §3.3). */
function lower<T extends Term>(t: T): T {
  return t.termType === 'Literal' && t.language
    ? (DataFactory.literal(t.value, t.language.toLowerCase()) as unknown as T)
    : t;
}

/** A graph's triples, language tags in lower case. */
function graphOf(ntriples: string): Quad[] {
  return new Parser({ format: 'N-Triples' })
    .parse(ntriples)
    .map((q) => DataFactory.quad(q.subject, q.predicate, lower(q.object)));
}

describe('the history in a remote store', function () {
  before(needsStore('remote'));
  this.timeout(300_000);
  let virtuoso: Virtuoso;
  let dir: string;
  let client: SparqlClient;
  let bulk: RemoteTarget;
  let graphStore: RemoteTarget;
  const v1 = [...generate({ count: COUNT, seed: 11, base: BASE })];
  // v2: the third institution renamed, the fifth gone, a new one.
  const v2 = v1
    .map((b, i) => (i === 2 ? b.replace('(synthetisch)"', '(synthetisch) (renamed)"') : b))
    .filter((_, i) => i !== 4)
    .concat([...generate({ count: COUNT + 1, seed: 11, base: BASE })].slice(COUNT));
  const files: Record<'v1' | 'v2' | 'snapshot', string> = { v1: '', v2: '', snapshot: '' };
  const descriptions = () => graphsStartingWith(client, DESCRIPTION_PREFIX);
  const config = { baseIri: BASE };
  const load = (file: string, target: RemoteTarget) =>
    loadRemote([file], { baseIri: BASE }, config, target);
  let first: Awaited<ReturnType<typeof load>>;
  let second: Awaited<ReturnType<typeof load>>;
  let stored1: string[];
  let stored2: string[];

  before(async () => {
    virtuoso = await startVirtuoso(60_000, 30, 10_000, MAX_ROWS);
    dir = tempDir();
    files.v1 = path.join(dir, 'v1.nt');
    files.v2 = path.join(dir, 'v2.nt');
    fs.writeFileSync(files.v1, v1.join(''));
    fs.writeFileSync(files.v2, v2.join(''));
    // v2 as a snapshot: loaded again, the same version.
    files.snapshot = path.join(dir, 'v2.nq');
    const loaded = await loadSources([files.v2], { baseIri: BASE });
    try {
      await writeSnapshot(loaded, files.snapshot);
    } finally {
      loaded.dataset.free();
    }
    client = new SparqlClient({
      endpoint: virtuoso.endpoint,
      connections: 2,
      deadlineMs: 30_000,
    });
    bulk = bulkTarget(virtuoso);
    graphStore = {
      endpoint: virtuoso.endpoint,
      via: { kind: 'graph-store', url: virtuoso.openGraphStore() },
    };
    first = await load(files.v1, bulk);
    stored1 = await descriptions();
    second = await load(files.snapshot, graphStore);
    stored2 = await descriptions();
  });
  after(async () => {
    client?.close();
    await virtuoso?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists each load as a version of the history, later ones at later times', async () => {
    const timeline = await listTimeline(client);
    assert.deepEqual(
      timeline.map((s) => s.version),
      [first.version, second.version],
    );
    assert.ok(timeline[1]!.time > timeline[0]!.time);
    assert.deepEqual(
      timeline.map((s) => s.events),
      [COUNT, 3],
    );
  });

  it('holds the events the embedded change log has for the same sources, read in pages', async () => {
    const target = {
      dataset: path.join(dir, 'dataset.nq'),
      baseIri: BASE,
      historyDir: path.join(dir, 'history'),
      historyKeepVersions: 0,
    };
    for (const file of [files.v1, files.v2]) {
      const loaded = await loadSources([file], { baseIri: BASE });
      try {
        await commitVersion(loaded, target);
      } finally {
        loaded.dataset.free();
      }
    }
    const log = committed(readLog(path.join(target.historyDir, LOG_FILE))!, undefined);
    const embedded = log.versions.flatMap((v) => v.events);
    const { events } = await readStoredHistory(client);
    assert.ok(events.length > MAX_ROWS, `${events.length} events, more than an answer's rows`);
    // The embedded versions are named by their snapshots' bytes: compared by position.
    const named = new Map(log.versions.map((v, i) => [v.version, [first, second][i]!.version]));
    assert.deepEqual(
      said(events),
      said(embedded.map((e) => ({ ...e, version: named.get(e.version)! }))),
    );
    assert.deepEqual(
      events.filter((e) => e.version === second.version).map((e) => [e.kind, e.isil]),
      [
        [isilOf(v1[2]!), 'updated'],
        [isilOf(v1[4]!), 'deleted'],
        [isilOf(v2.at(-1)!), 'created'],
      ]
        .map(([isil, kind]) => [kind!, isil!])
        .sort((a, b) => (a[1]! < b[1]! ? -1 : 1)),
    );
  });

  it('writes each description once, and only those the store lacks', () => {
    assert.equal(stored1.length, COUNT);
    assert.equal(first.history?.descriptionsWritten, COUNT);
    assert.equal(stored2.length, COUNT + 2, 'the renamed and the new institution');
    assert.equal(second.history?.descriptionsWritten, 2);
  });

  it('adds nothing for the same sources again', async () => {
    const again = await load(files.snapshot, bulk);
    assert.equal(again.unchanged, true);
    assert.equal(again.history?.step, undefined);
    assert.equal((await listTimeline(client)).length, 2);
    assert.equal((await descriptions()).length, COUNT + 2);
  });

  describe('a replica', () => {
    let history: History;
    let other: History | undefined;
    before(async () => {
      const adapters = adaptersFor(
        testConfig({ STORE: 'remote', SPARQL_ENDPOINT: virtuoso.endpoint }),
        createLogger('silent'),
      );
      try {
        const { dataset } = await adapters.store.open({ sources: [], options: config });
        history = await adapters.history(
          { sources: [], options: config, snapshot: false },
          dataset,
        );
        other = await remoteHistory(client, dataset.version, BASE);
        dataset.free();
      } finally {
        await adapters.store.close();
      }
    });

    it('serves the history up to the version it opened', () => {
      assert.deepEqual(
        history.versions.map((v) => v.version),
        [first.version, second.version],
      );
      assert.equal(history.size, COUNT + 3);
    });

    it('lists the mementos of a changed institution', () => {
      const renamed = isilOf(v1[2]!);
      assert.deepEqual(
        history.mementos(renamed).map((e) => e.kind),
        ['created', 'updated'],
      );
      assert.deepEqual(
        history.events(isilOf(v1[4]!)).map((e) => e.kind),
        ['created', 'deleted'],
      );
    });

    it('reads a memento isomorphic to the description served then', async () => {
      const renamed = isilOf(v1[2]!);
      const loaded = await loadSources([files.v1], { baseIri: BASE });
      try {
        const found = loaded.dataset.exact(renamed);
        assert.equal(found?.kind, 'found');
        const then = writeTriples((await loaded.dataset.describe(found.institution)).triples);
        const memento = await history.description(history.mementos(renamed)[0]!);
        assert.ok(!memento.includes('(renamed)'));
        assert.ok(graphOf(memento).length > 10);
        assert.ok(isomorphic(graphOf(memento), graphOf(then)), memento);
      } finally {
        loaded.dataset.free();
      }
    });

    it('is the history every replica serves', () => {
      assert.deepEqual(said(other!.all()), said(history.all()));
    });
  });

  describe('a rollback, then prune', () => {
    /** The events graph a write killed before the registry's leaves, at a later time. */
    const killed = `${HISTORY_PREFIX}4000000000`;

    it('ignores the events of a version the registry never listed', async () => {
      const e = '<urn:isil-ld:event:4000000000:X>';
      const h = 'urn:isil-ld:history#';
      virtuoso.isql(
        `SPARQL INSERT DATA { GRAPH <${killed}> { ${e} <${h}time> 4000000000 . ${e} <${h}isil> "${isilOf(v1[0]!)}" . ${e} <${h}kind> "deleted" . ${e} <${h}version> "${second.version}" } };`,
      );
      const replica = await remoteHistory(client, second.version, BASE);
      assert.equal(replica!.size, COUNT + 3);
      assert.deepEqual(
        replica!.events(isilOf(v1[0]!)).map((e) => e.kind),
        ['created'],
      );
    });

    it('appends a rollback as a new version at its own time', async () => {
      const { transport, client: own } = transportOf(graphStore);
      try {
        const { entries } = await listVersions(own);
        const back = entries.find((e) => e.version === first.version)!;
        const { events } = await useVersion(transport, own, back);
        assert.equal(events, 3);
      } finally {
        await transport.close();
        own.close();
      }
      const timeline = await listTimeline(client);
      assert.deepEqual(
        timeline.map((s) => s.version),
        [first.version, second.version, first.version],
      );
      assert.ok(timeline[2]!.time > timeline[1]!.time);
      assert.equal((await listVersions(client)).current?.version, first.version);
      const replica = await remoteHistory(client, first.version, BASE);
      assert.deepEqual(
        replica!.events(isilOf(v1[4]!)).map((e) => e.kind),
        ['created', 'deleted', 'created'],
      );
      assert.equal(
        replica!.mementos(isilOf(v1[2]!)).at(-1)!.hash,
        replica!.mementos(isilOf(v1[2]!))[0]!.hash,
      );
      assert.equal((await descriptions()).length, COUNT + 2, 'no description written again');
      assert.ok(
        !(await graphsStartingWith(client, HISTORY_PREFIX)).includes(killed),
        'the events a killed write left are dropped',
      );
    });

    it('keeps a description as one string, and reads one kept as triples (an older store) alike', async () => {
      const renamed = isilOf(v1[2]!);
      const replica = (await remoteHistory(client, second.version, BASE))!;
      const event = replica.mementos(renamed)[0]!;
      const graph = hashGraph(event.hash!);
      const count = async () =>
        Number(
          JSON.parse(
            (
              await client.query(
                `SELECT (COUNT(*) AS ?n) WHERE { GRAPH <${graph}> { ?s ?p ?o } }`,
                'application/sparql-results+json',
              )
            ).body,
          ).results.bindings[0].n.value,
        );
      assert.equal(await count(), 1, 'one quad a description');
      const kept = await readHashDescription(client, BASE, event);
      // The layout before: the description's triples in its graph, written as loads wrote them.
      const { transport, client: own } = transportOf(bulk);
      try {
        await transport.dropGraphs([graph]);
        await transport.writeGraphs(new Map([[graph, kept.split('\n').filter(Boolean)]]));
      } finally {
        await transport.close();
        own.close();
      }
      assert.ok((await count()) > 10);
      const read = await readHashDescription(client, BASE, event);
      assert.ok(isomorphic(graphOf(read), graphOf(kept)), read);
    });

    it('prunes only the graphs nothing references', async () => {
      // A description and an events graph nothing names, as a killed load leaves them.
      virtuoso.isql(
        `SPARQL INSERT DATA { GRAPH <${DESCRIPTION_PREFIX}${'0'.repeat(32)}> { <urn:x> <urn:y> "z" } GRAPH <${HISTORY_PREFIX}1> { <urn:x> <urn:isil-ld:history#time> 1 } };`,
      );
      const current = (await listVersions(client)).current!;
      const replica = http.createServer((_req, res) => {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ status: 'ready', version: current.version }));
      });
      await new Promise<void>((resolve) => replica.listen(0, '127.0.0.1', resolve));
      const { port } = replica.address() as { port: number };
      const { transport, client: own } = transportOf(bulk);
      const events = await graphsStartingWith(client, HISTORY_PREFIX);
      try {
        assert.equal(await prune(transport, own, current, `http://127.0.0.1:${port}`), 0);
      } finally {
        await transport.close();
        own.close();
        replica.close();
      }
      assert.deepEqual(await descriptions(), stored2, 'every description an event names is kept');
      assert.deepEqual(
        await graphsStartingWith(client, HISTORY_PREFIX),
        events.filter((g) => g !== `${HISTORY_PREFIX}1`),
      );
      assert.equal((await listTimeline(client)).length, 3, 'the history keeps its versions');
      assert.deepEqual(await storedVersions(client), [current.version], 'the other version went');
      const replicaHistory = await remoteHistory(client, current.version, BASE);
      const renamed = isilOf(v1[2]!);
      const text = await replicaHistory!.description(replicaHistory!.mementos(renamed)[1]!);
      assert.ok(text.includes('(renamed)'), 'a pruned version’s memento is still read');
    });
  });
});
