// Virtuoso's bulk loader as the loader's way into a remote store (src/store/remote/virtuosoBulk.ts),
// against a real Virtuoso: each triple is sent once, in its description's graph, and the version's
// graph Virtuoso makes from those holds exactly the version's triples, blank nodes and all; a load
// cut short after some of its files were loaded is dropped whole by the next load of the same bytes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { generate } from '../../loader/generate';
import { checkSnapshot, transportOf } from '../../loader/remote';
import { loadSources, writeSnapshot } from '../../src/load/loadSources';
import { CHUNK_MARK } from '../../src/load/snapshotPieces';
import { versionGraph } from '../../src/store/remote/layout';
import { splitQuad, writeVersion } from '../../src/store/remote/versionWriter';
import { VirtuosoBulkTransport } from '../../src/store/remote/virtuosoBulk';
import { bulkTarget, startVirtuoso, virtuosoInstalled, type Virtuoso } from '../servers/virtuoso';
import { BASE, needsThirdParty, parseTurtle, sameGraph, tempDir } from '../support';

/** The snapshot's pieces as the loader reads them: its lines between chunk marks. */
async function* piecesOf(snapshot: string, cutAfter = Infinity): AsyncGenerator<string[]> {
  const mark = CHUNK_MARK.trimEnd();
  let piece: string[] = [];
  let given = 0;
  for (const line of fs.readFileSync(snapshot, 'utf8').split('\n')) {
    if (line === mark && piece.length > 0) {
      if (given++ === cutAfter) throw new Error('the load was cut short');
      yield piece;
      piece = [];
    } else if (line !== '' && !line.startsWith('#')) piece.push(line);
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
  /** Each line of the snapshot as a triple of the version: its graph dropped. */
  let triples: ReturnType<typeof parseTurtle>;

  before(async function () {
    if (!virtuosoInstalled()) {
      if (process.env.CI) throw new Error('Virtuoso is missing: .ci/packages installs it');
      this.skip();
    }
    virtuoso = await startVirtuoso(60_000, 10);
    dir = tempDir();
    const nt = path.join(dir, 'generated.nt');
    fs.writeFileSync(nt, [...generate({ count: 300, seed: 5, base: BASE })].join(''));
    const loaded = await loadSources([nt], { baseIri: BASE });
    snapshot = path.join(dir, 'generated.nq');
    writeSnapshot(loaded, snapshot);
    loaded.dataset.free();
    version = checkSnapshot(snapshot, BASE);
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
  const write = async (pieces: AsyncIterable<string[]>, fileBytes?: number) => {
    const { client } = transportOf(bulkTarget(virtuoso));
    const via = bulkTarget(virtuoso).via as ConstructorParameters<typeof VirtuosoBulkTransport>[0];
    const transport = new VirtuosoBulkTransport(
      { ...via, ...(fileBytes ? { fileBytes } : {}) },
      client,
    );
    try {
      return await writeVersion(transport, pieces, { version, baseIri: BASE, sources: 'test' });
    } finally {
      await transport.close();
      client.close();
    }
  };

  it('a load cut short after some of its files were loaded leaves their graphs unlisted and no file behind', async () => {
    // A file a piece: the pieces before the cut are loaded (or loading) when the load fails.
    await assert.rejects(write(piecesOf(snapshot, 5), 1), /cut short/);
    const [listed] = await select(
      `SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:isil-ld:versions> { ?v <http://purl.org/dc/terms/identifier> "${version}" } }`,
    );
    assert.equal(Number(listed?.n?.value), 0, 'the version is not listed');
    const left = await count(
      `GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "${versionGraph(version)}:"))`,
    );
    assert.ok(left > 0, 'the cut load left description graphs behind');
    assert.equal(fs.readdirSync(virtuoso.dir).filter((f) => f.startsWith('isil-ld-')).length, 0);
  });

  it('the next load of those bytes drops them whole, and Virtuoso makes the version’s graph from the description graphs: exactly the version’s triples, the same blank nodes', async () => {
    const written = await write(piecesOf(snapshot), 64 * 1024);
    assert.equal(written.quads, triples.length);
    // Every description graph holds its triples once (nothing of the cut load is left), and the
    // version's graph is their union: the same blank nodes in both.
    const inDescriptions = await count(
      `GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "${versionGraph(version)}:"))`,
    );
    assert.equal(inDescriptions, triples.length);
    const made = await versionTriples();
    assert.equal(made.length, triples.length);
    assert.ok(sameGraph(made, triples), 'the version graph is isomorphic to the version’s triples');
    const shared = await count(
      `GRAPH <${versionGraph(version)}> { ?s ?p ?o } GRAPH ?g { ?s ?p ?o } FILTER(?g != <${versionGraph(version)}>)`,
    );
    assert.equal(shared, triples.length, 'each triple of the version graph is its description’s');
    assert.equal(
      await count(`GRAPH <${versionGraph(version)}> { ?s <urn:isil-ld:loading> ?o }`),
      0,
      'the mark of a load under way is gone',
    );
  });
});
