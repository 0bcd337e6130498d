// Virtuoso's bulk loader as the loader's way into a remote store (src/store/remote/virtuosoBulk.ts),
// against a real Virtuoso: each triple is sent once, in its description's graph, and the version's
// graph Virtuoso makes from those holds exactly the version's triples, blank nodes and all; a load
// cut short after some of its files were loaded is dropped whole by the next load of the same bytes;
// a Virtuoso killed during a bulk load fails it with a clear error and the live version served.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { generate } from '../../cli/generate';
import { checkSnapshot, loadRemote, transportOf } from '../../cli/remote';
import { loadSources, writeSnapshot } from '../../src/load/loadSources';
import { CHUNK_MARK } from '../../src/load/snapshot/snapshot';
import type { Description } from '../../src/rdf/description';
import { versionGraph } from '../../src/store/remote/layout';
import { splitQuad, writeVersion } from '../../src/store/remote/versionWriter';
import { SparqlStore } from '../../src/store/remote/sparqlStore';
import { BulkLoadError, VirtuosoBulkTransport } from '../../src/store/remote/virtuosoBulk';
import { bulkTarget, startVirtuoso, virtuosoInstalled, type Virtuoso } from '../servers/virtuoso';
import { BASE, needsThirdParty, parseTurtle, sameGraph, tempDir } from '../support';
import { skipWithout } from '../support/missing';

/**
 * The snapshot's pieces as the loader reads them: its lines between chunk marks, gathered to
 * 64 KiB or more; with `cutAfter`, the pieces end with an error after that many.
 */
async function* piecesOf(snapshot: string, cutAfter = Infinity): AsyncGenerator<string[]> {
  const mark = CHUNK_MARK.trimEnd();
  let piece: string[] = [];
  let bytes = 0;
  let given = 0;
  for (const line of fs.readFileSync(snapshot, 'utf8').split('\n')) {
    if (line === mark && bytes >= 64 * 1024) {
      if (given++ === cutAfter) throw new Error('the load was cut short');
      yield piece;
      piece = [];
      bytes = 0;
    } else if (line !== '' && !line.startsWith('#')) {
      piece.push(line);
      bytes += line.length + 1;
    }
  }
  if (piece.length > 0) yield piece;
}

describe('the bulk loader as the way into Virtuoso', function () {
  before(needsThirdParty);
  this.timeout(180_000);
  let virtuoso: Virtuoso;
  let dir: string;
  let snapshot: string;
  let version: string;
  /** Another version, live before the cut load. */
  let live: { snapshot: string; version: string };
  /** A third, loaded through the folder named with a trailing slash. */
  let other: { snapshot: string; version: string };
  /** Each line of the snapshot as a triple of the version: its graph dropped. */
  let triples: ReturnType<typeof parseTurtle>;

  before(async function () {
    if (!virtuosoInstalled())
      skipWithout(this, 'virtuoso-opensource-7-bin', 'sudo bash .ci/packages installs it');
    virtuoso = await startVirtuoso(60_000, 10);
    dir = tempDir();
    const snapshotOf = async (count: number, seed: number) => {
      const nt = path.join(dir, `generated-${seed}.nt`);
      fs.writeFileSync(nt, [...generate({ count, seed, base: BASE })].join(''));
      const loaded = await loadSources([nt], { baseIri: BASE });
      const file = path.join(dir, `generated-${seed}.nq`);
      await writeSnapshot(loaded, file);
      loaded.dataset.free();
      return { snapshot: file, version: checkSnapshot(file, BASE) };
    };
    ({ snapshot, version } = await snapshotOf(300, 5));
    live = await snapshotOf(30, 9);
    other = await snapshotOf(20, 11);
    const lines: string[] = [];
    for await (const piece of piecesOf(snapshot))
      for (const line of piece) lines.push(splitQuad(line).triple);
    triples = parseTurtle(lines.join('\n'), 'application/n-triples');
  });

  after(async () => {
    await virtuoso?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const select = async (
    query: string,
  ): Promise<Record<string, { value: string } | undefined>[]> => {
    const res = await fetch(`${virtuoso.endpoint}?query=${encodeURIComponent(query)}`, {
      headers: { Accept: 'application/sparql-results+json' },
    });
    assert.equal(res.status, 200, query);
    return (
      (await res.json()) as {
        results: { bindings: Record<string, { value: string } | undefined>[] };
      }
    ).results.bindings;
  };
  const count = async (where: string): Promise<number> =>
    Number((await select(`SELECT (COUNT(*) AS ?n) WHERE { ${where} }`))[0]?.n?.value);
  const versionTriples = async () => {
    const query = `CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <${versionGraph(version)}> { ?s ?p ?o } }`;
    const res = await fetch(`${virtuoso.endpoint}?query=${encodeURIComponent(query)}`, {
      headers: { Accept: 'application/n-triples' },
    });
    return parseTurtle(await res.text(), 'application/n-triples');
  };
  /** Load `pieces` as the version, through a transport writing a file every `fileBytes`. */
  const write = async (
    pieces: AsyncIterable<string[]>,
    fileBytes?: number,
    as = version,
    dirAs = (dir: string) => dir,
  ) => {
    const { client } = transportOf(bulkTarget(virtuoso));
    const via = bulkTarget(virtuoso).via as ConstructorParameters<typeof VirtuosoBulkTransport>[0];
    const transport = new VirtuosoBulkTransport(
      { ...via, dir: dirAs(via.dir), ...(fileBytes ? { fileBytes } : {}) },
      client,
    );
    try {
      return await writeVersion(transport, pieces, {
        version: as,
        baseIri: BASE,
        sources: 'test',
      });
    } finally {
      await transport.close();
      client.close();
    }
  };

  it('a load cut short after some of its files were loaded leaves the live version current, its graphs unlisted and no file behind', async () => {
    await write(piecesOf(live.snapshot), undefined, live.version);
    // A file a piece: the pieces before the cut are loaded (or loading) when the load fails.
    await assert.rejects(write(piecesOf(snapshot, 5), 1), /cut short/);
    const [current] = await select(
      `SELECT ?v WHERE { GRAPH <urn:isil-ld:versions> { <urn:isil-ld:versions> <urn:isil-ld:current> ?v } }`,
    );
    assert.equal(
      current?.v?.value,
      versionGraph(live.version),
      'the live version is still current',
    );
    const [listed] = await select(
      `SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:isil-ld:versions> { ?v <http://purl.org/dc/terms/identifier> "${version}" } }`,
    );
    assert.equal(Number(listed?.n?.value), 0, 'the version is not listed');
    const left = await count(
      `GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "${versionGraph(version)}:"))`,
    );
    assert.ok(left > 0, 'the cut load left description graphs behind');
    assert.equal(
      await count(`GRAPH <${versionGraph(version)}> { ?s <urn:isil-ld:loading> ?o }`),
      1,
      'with the mark of a load under way, which the next load finds',
    );
    assert.equal(fs.readdirSync(virtuoso.dir).filter((f) => f.startsWith('isil-ld-')).length, 0);
  });

  it('the next load of those bytes drops them whole, and Virtuoso makes the version’s graph from the description graphs: exactly the version’s triples, the same blank nodes', async () => {
    // A file a piece, the last one too: no empty file is left to load at the end.
    const written = await write(piecesOf(snapshot), 1);
    assert.equal(written.quads, triples.length);
    // Every description graph holds its triples once (nothing of the cut load is left), and the
    // version's graph is their union: the same blank nodes in both.
    const inDescriptions = await count(
      `GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "${versionGraph(version)}:"))`,
    );
    assert.equal(inDescriptions, triples.length);
    const shared = await count(
      `GRAPH <${versionGraph(version)}> { ?s ?p ?o } GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "${versionGraph(version)}:"))`,
    );
    assert.equal(shared, triples.length, 'each triple of the version graph is its description’s');
    assert.equal(
      await count(`GRAPH <${versionGraph(version)}> { ?s <urn:isil-ld:loading> ?o }`),
      0,
      'the mark of a load under way is gone',
    );
    // Compared last: on a busy machine the comparison blocks this process for longer than
    // Virtuoso keeps an idle connection open, and a query sent right after it would go out on the
    // connection Virtuoso closed meanwhile ("other side closed").
    const made = await versionTriples();
    assert.equal(made.length, triples.length);
    assert.ok(sameGraph(made, triples), 'the version graph is isomorphic to the version’s triples');
  });

  it('checks each file in the load list as Virtuoso names it, whatever the folder’s spelling', async () => {
    const written = await write(piecesOf(other.snapshot), 1, other.version, (dir) => `${dir}/`);
    assert.ok(written.quads > 0);
    assert.equal(
      await count(`GRAPH <${versionGraph(other.version)}> { ?s ?p ?o }`),
      written.quads,
      'published whole',
    );
    const [left] = await select(
      `SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:isil-ld:versions> { ?v <http://purl.org/dc/terms/identifier> "${other.version}" } }`,
    );
    assert.equal(Number(left?.n?.value), 1, 'and listed');
  });

  it('fails a load whose file the bulk loader refused, whatever the folder’s spelling', async () => {
    const broken = 'abcdefabcdef';
    async function* pieces(): AsyncGenerator<string[]> {
      yield [
        `<${BASE}/resource/organisations/DE-Broken> <http://example.org/p> "fine" <${BASE}/data/organisations/DE-Broken> .`,
      ];
      yield [`<${BASE}/resource/organisations/DE-Broken> <http://example.org/p> "no end <x> .`];
    }
    await assert.rejects(
      write(pieces(), 1, broken, (dir) => `${dir}/`),
      /bulk loader did not load/,
    );
    const [listed] = await select(
      `SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:isil-ld:versions> { ?v <http://purl.org/dc/terms/identifier> "${broken}" } }`,
    );
    assert.equal(Number(listed?.n?.value), 0, 'not listed');
  });

  it('drops a version by its graphs’ names, as Virtuoso stores them: each description graph, names beyond ASCII too, and nothing of another graph', async () => {
    const doomed = versionGraph('0123456789ab');
    // A graph whose name starts with the version's graph, but is not one of its descriptions'.
    const neighbour = `${doomed}0`;
    const file = path.join(dir, 'doomed.nq');
    fs.writeFileSync(
      file,
      [
        `<${doomed}> <urn:isil-ld:loading> "" <${doomed}> .`,
        `<${BASE}/x> <http://example.org/p> "1" <${doomed}:${BASE}/data/organisations/DE-1> .`,
        `<${BASE}/x> <http://example.org/p> "2" <${doomed}:${BASE}/data/organisations/DE-Bär-1> .`,
        `<${BASE}/x> <http://example.org/p> "3" <${doomed}:urn:other> .`,
        `<${BASE}/x> <http://example.org/p> "4" <${neighbour}> .`,
        '',
      ].join('\n'),
    );
    virtuoso.load(file, 'urn:isil-ld:unused');
    const others = await count(`GRAPH ?g { ?s ?p ?o } FILTER(!STRSTARTS(STR(?g), "${doomed}"))`);
    assert.equal(await count(`GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "${doomed}:"))`), 3);
    const { client } = transportOf(bulkTarget(virtuoso));
    const via = bulkTarget(virtuoso).via as ConstructorParameters<typeof VirtuosoBulkTransport>[0];
    const transport = new VirtuosoBulkTransport(via, client);
    try {
      await transport.drop('0123456789ab');
    } finally {
      await transport.close();
      client.close();
    }
    assert.equal(
      await count(`GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "${doomed}:"))`),
      0,
      'every description graph dropped',
    );
    assert.equal(await count(`GRAPH <${doomed}> { ?s ?p ?o }`), 0, 'and the version’s own');
    assert.equal(await count(`GRAPH <${neighbour}> { ?s ?p ?o }`), 1, 'the neighbour kept');
    assert.equal(
      await count(`GRAPH ?g { ?s ?p ?o } FILTER(!STRSTARTS(STR(?g), "${doomed}"))`),
      others,
      'every other graph kept',
    );
  });

  it('keeps the loader’s event loop running while Virtuoso works on a statement', async () => {
    const { client } = transportOf(bulkTarget(virtuoso));
    const via = bulkTarget(virtuoso).via as ConstructorParameters<typeof VirtuosoBulkTransport>[0];
    const transport = new VirtuosoBulkTransport(via, client);
    const waiting = 'fedcba987654';
    // A store that takes the connection and answers nothing yet. Should this process be blocked
    // on it, a process of its own resumes the store, so that the test fails instead of hanging.
    virtuoso.pause();
    const rescue = spawn('sh', ['-c', `sleep 30; kill -CONT ${virtuoso.pid}`], { stdio: 'ignore' });
    let settled = false;
    try {
      const begun = transport.begin(waiting).finally(() => (settled = true));
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(settled, false, 'the loader went on while isql waited for the store');
      virtuoso.resume();
      await begun;
      await transport.drop(waiting);
    } finally {
      rescue.kill();
      virtuoso.resume();
      await transport.close();
      client.close();
    }
  });
});

describe('a Virtuoso killed in the middle of a bulk load', function () {
  before(needsThirdParty);
  this.timeout(300_000);
  let virtuoso: Virtuoso;
  let dir: string;
  let store: SparqlStore;
  /** The live version's first institutions, as the service serves them before the kill. */
  let served: { version: string; descriptions: Map<string, Description> };
  let big: string;
  let failure: unknown;
  let killed = false;

  /** The first `n` institutions of the store's current version, described. */
  const describeFirst = async (n: number) => {
    const { dataset } = await store.open();
    const descriptions = new Map<string, Description>();
    for (const institution of [...dataset.institutions()].slice(0, n))
      descriptions.set(institution.isil, await dataset.describe(institution));
    return { version: dataset.version, descriptions };
  };

  before(async function () {
    if (!virtuosoInstalled())
      skipWithout(this, 'virtuoso-opensource-7-bin', 'sudo bash .ci/packages installs it');
    virtuoso = await startVirtuoso(60_000, 10);
    dir = tempDir();
    store = new SparqlStore(
      { endpoint: virtuoso.endpoint, connections: 4, deadlineMs: 30_000 },
      BASE,
    );
    const snapshotOf = async (count: number, seed: number) => {
      const nt = path.join(dir, `generated-${seed}.nt`);
      fs.writeFileSync(nt, [...generate({ count, seed, base: BASE })].join(''));
      const loaded = await loadSources([nt], { baseIri: BASE });
      const file = path.join(dir, `generated-${seed}.nq`);
      await writeSnapshot(loaded, file);
      loaded.dataset.free();
      return file;
    };
    await loadRemote(
      [await snapshotOf(30, 9)],
      { baseIri: BASE },
      { baseIri: BASE },
      bulkTarget(virtuoso),
    );
    served = await describeFirst(10);
    big = await snapshotOf(3000, 7);
    try {
      await loadRemote(
        [big],
        {
          baseIri: BASE,
          // Killed (SIGKILL, as a crash or an OOM kill) once the version's quads are being written:
          // the history's file is loading, the version's are to follow.
          onProgress: (phase) => {
            if (phase === 'transfer' && !killed) {
              killed = true;
              void virtuoso.kill();
            }
          },
        },
        { baseIri: BASE },
        bulkTarget(virtuoso),
      );
    } catch (error) {
      failure = error;
    } finally {
      await virtuoso.restart();
    }
  });

  after(async () => {
    await store?.close();
    await virtuoso?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('fails the load with a BulkLoadError naming the step the store stopped answering in', () => {
    assert.ok(killed, 'the store was killed while the load wrote');
    assert.ok(failure instanceof BulkLoadError, `a BulkLoadError, not ${String(failure)}`);
    assert.match(
      failure.message,
      /the remote store at \d+ stopped answering during the bulk load of isil-ld-/,
    );
  });

  it('leaves no file of the load in the bulk folder', () => {
    assert.deepEqual(
      fs.readdirSync(virtuoso.dir).filter((f) => f.startsWith('isil-ld-')),
      [],
    );
  });

  it('leaves the live version current, and serves it as before once Virtuoso is up again', async () => {
    const now = await describeFirst(10);
    assert.equal(now.version, served.version, 'the registry still marks the live version');
    assert.equal(now.descriptions.size, served.descriptions.size);
    for (const [isil, before] of served.descriptions)
      assert.ok(sameGraph([...now.descriptions.get(isil)!.quads], [...before.quads]), isil);
  });

  it('the same load afterwards drops what the killed one left and publishes its version whole', async () => {
    const written = await loadRemote(
      [big],
      { baseIri: BASE },
      { baseIri: BASE },
      bulkTarget(virtuoso),
    );
    const { dataset } = await store.open();
    assert.equal(dataset.version, written.version);
    assert.equal(dataset.institutionCount, 3000);
  });
});
