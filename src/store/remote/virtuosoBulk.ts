// Writing a version through Virtuoso's bulk loader: the version's quads are written to one N-Quads
// file in a folder the server may read (its DirsAllowed), then `ld_dir` + `rdf_loader_run` load
// it through `isql` (Virtuoso's own fastest path: 537,000 triples in about 4 s here), and one
// SPARQL Update publishes it in the registry. Known limit: isql takes its password as an argument,
// which other users of the loader's machine can see in the process list (docs/scaling.md).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { canonicalNTriples } from './canonical';
import { listVersions, registryWith, storedVersions } from './registry';
import {
  REGISTRY,
  registryTriples,
  versionGraph,
  type HistoryStep,
  type VersionEntry,
} from './layout';
import type { SparqlClient } from './sparqlClient';
import type { Transport } from './versionWriter';

export interface BulkSettings {
  /** `isql-vt` (Debian's name) or the path of Virtuoso's isql. */
  readonly isql: string;
  /** Its SQL port: `host:port` or a port on this machine. */
  readonly server: string;
  readonly user: string;
  readonly password: string;
  /** A folder this process writes and Virtuoso reads (listed in its DirsAllowed). */
  readonly dir: string;
}

/** isql failed, or the bulk loader refused the file. */
export class BulkLoadError extends Error {
  override name = 'BulkLoadError';
}

/** Text safe inside a single-quoted SQL string and an isql script (no `;`, which ends a statement). */
function sqlText(text: string): string {
  return text.replace(/'/g, "''").replace(/;/g, ',');
}

export class VirtuosoBulkTransport implements Transport {
  readonly target: string;
  private file: string | undefined;
  private fd: number | undefined;
  private all: string | undefined;

  constructor(
    private readonly settings: BulkSettings,
    private readonly client: SparqlClient,
  ) {
    this.target = `${settings.server} (bulk loader, ${settings.dir})`;
  }

  async held(version: string): Promise<VersionEntry | undefined> {
    return (await listVersions(this.client)).entries.find((e) => e.version === version);
  }

  async begin(version: string): Promise<void> {
    this.all = versionGraph(version);
    // What an earlier load of the same bytes left, killed before it was published: dropped whole.
    const left = this.isql(`SPARQL ASK WHERE { GRAPH <${this.all}> { ?s ?p ?o } }`);
    if (/^\s*1\s*$/m.test(left)) this.dropVersion(version);
    this.file = path.join(this.settings.dir, `isil-ld-${version}-${process.pid}.nq`);
    this.fd = fs.openSync(this.file, 'w', 0o644);
  }

  async write(
    graphs: ReadonlyMap<string, readonly string[]>,
    all: readonly string[],
  ): Promise<void> {
    if (this.fd === undefined || this.all === undefined) throw new Error('write before begin');
    const out: string[] = [];
    for (const [graph, triples] of graphs)
      for (const t of triples) out.push(`${t.slice(0, -2)} <${graph}> .\n`);
    for (const t of all) out.push(`${t.slice(0, -2)} <${this.all}> .\n`);
    fs.writeSync(this.fd, out.join(''));
  }

  async finish(): Promise<void> {
    if (this.fd === undefined || this.file === undefined) throw new Error('finish before begin');
    fs.closeSync(this.fd);
    this.fd = undefined;
    this.loadFile(this.file);
  }

  /** Loads `file` (N-Quads, in the bulk folder) with the bulk loader and removes it. */
  private loadFile(file: string): void {
    const { dir } = this.settings;
    const name = path.basename(file);
    const full = sqlText(file);
    try {
      this.isql(
        `DELETE FROM DB.DBA.load_list WHERE ll_file = '${full}'; ld_dir('${sqlText(dir)}', '${sqlText(name)}', 'urn:isil-ld:unused'); rdf_loader_run(); checkpoint;`,
      );
      const errors = this.isql(
        `SELECT ll_error FROM DB.DBA.load_list WHERE ll_file = '${full}' AND ll_error IS NOT NULL;`,
      );
      if (/^\s*\d+ Rows\./m.test(errors) && !/^\s*0 Rows\./m.test(errors))
        throw new BulkLoadError(`Virtuoso's bulk loader refused ${file}: ${errors.trim()}`);
    } finally {
      fs.rmSync(file, { force: true });
      this.isql(`DELETE FROM DB.DBA.load_list WHERE ll_file = '${full}';`);
    }
  }

  async publish(entry: VersionEntry, step?: HistoryStep): Promise<void> {
    await this.replaceRegistry(await registryWith(this.client, entry, step));
  }

  async writeRegistry(
    entries: readonly VersionEntry[],
    current: string,
    timeline: readonly HistoryStep[],
  ): Promise<void> {
    await this.replaceRegistry(registryTriples(entries, current, timeline));
  }

  /** The graphs, which the store lacks, loaded from one file. */
  async writeGraphs(graphs: ReadonlyMap<string, readonly string[]>): Promise<void> {
    if (graphs.size === 0) return;
    const file = path.join(this.settings.dir, `isil-ld-history-${process.pid}-${Date.now()}.nq`);
    const out: string[] = [];
    let n = 0;
    for (const [graph, triples] of graphs) {
      // A blank node's label names one node in the whole file: each graph gets labels of its own.
      const own = `_:g${++n}_`;
      for (const t of triples)
        out.push(
          `${t
            .slice(0, -2)
            .replace(/^_:/, own)
            .replace(/ _:(\S+)$/, ` ${own}$1`)} <${graph}> .\n`,
        );
    }
    fs.writeFileSync(file, out.join(''), { mode: 0o644 });
    this.loadFile(file);
  }

  /** Drops the graphs named, a few hundred in one isql statement. */
  async dropGraphs(graphs: readonly string[]): Promise<void> {
    for (let i = 0; i < graphs.length; i += 500) {
      const values = graphs
        .slice(i, i + 500)
        .map((g) => `<${g}>`)
        .join(' ');
      this.isql(
        `SPARQL DEFINE sql:log-enable 3 DELETE { GRAPH ?g { ?s ?p ?o } } WHERE { VALUES ?g { ${values} } GRAPH ?g { ?s ?p ?o } };`,
      );
    }
  }

  /**
   * Makes the registry hold `ntriples`: the new triples are inserted first, then the old ones that
   * are not among them deleted, so a reader never finds it empty (for a moment it may find the old
   * current version marked beside the new one, and serve the old: still whole). Virtuoso runs a
   * DELETE … INSERT … WHERE over an empty graph without inserting, so the update is not one
   * statement; and isql ends a statement at every `;`, so none is in the text.
   */
  private async replaceRegistry(ntriples: string): Promise<void> {
    const wanted = new Set(ntriples.split('\n').filter(Boolean));
    const { body } = await this.client.query(
      `CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <${REGISTRY}> { ?s ?p ?o } }`,
      'application/n-triples',
    );
    const old = canonicalNTriples(body)
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#') && !wanted.has(line));
    const data = (lines: Iterable<string>) => [...lines].join(' ').replace(/;/g, ',');
    this.isql(`SPARQL INSERT DATA { GRAPH <${REGISTRY}> { ${data(wanted)} } };`);
    if (old.length > 0) this.isql(`SPARQL DELETE DATA { GRAPH <${REGISTRY}> { ${data(old)} } };`);
  }

  async stored(): Promise<string[]> {
    return storedVersions(this.client);
  }

  async drop(version: string): Promise<void> {
    this.dropVersion(version);
  }

  async close(): Promise<void> {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    if (this.file) fs.rmSync(this.file, { force: true });
  }

  /** Drops every graph of `version`: its own and each description's. */
  dropVersion(version: string): void {
    const prefix = versionGraph(version);
    this.isql(
      `SPARQL DEFINE sql:log-enable 3 DELETE { GRAPH ?g { ?s ?p ?o } } WHERE { GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "${prefix}")) };`,
    );
  }

  /** Runs `sql` through isql; throws BulkLoadError with what it printed when it fails. */
  isql(sql: string): string {
    const { isql, server, user, password } = this.settings;
    const run = spawnSync(isql, [server, user, password, `exec=${sql}`], {
      encoding: 'utf8',
      timeout: 3_600_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    const said = `${run.stdout ?? ''}${run.stderr ?? ''}`;
    if (run.error) throw new BulkLoadError(`${isql} could not run: ${run.error.message}`);
    if (run.status !== 0 || /\*\*\* Error/.test(said))
      throw new BulkLoadError(`isql at ${server}: ${said.replace(password, '***').slice(0, 2000)}`);
    return run.stdout;
  }
}
