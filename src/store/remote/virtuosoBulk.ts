// Writing a version through Virtuoso's bulk loader (`ld_dir` + `rdf_loader_run`, through `isql`:
// Virtuoso's own fastest path). Each triple is sent once, in its description's graph; the
// version's graph, every triple of the version, is then made by Virtuoso itself from those graphs
// with one SQL copy of their quads (about a quarter of the bulk load's time). The history's graphs
// are written to a file of their own and loaded by a second loader while the version's quads are
// still being written and loaded, so the two use both of a small machine's cores. Nothing is
// published until every load and the copy are done and checked: one SPARQL Update of the registry.
// Known limit: isql takes its password as an argument, which other users of the loader's machine
// can see in the process list (docs/scaling.md).
import { spawn, spawnSync } from 'node:child_process';
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
import type { Transport, VersionPiece } from './versionWriter';

export interface BulkSettings {
  /** `isql-vt` (Debian's name) or the path of Virtuoso's isql. */
  readonly isql: string;
  /** Its SQL port: `host:port` or a port on this machine. */
  readonly server: string;
  readonly user: string;
  readonly password: string;
  /** A folder this process writes and Virtuoso reads (listed in its DirsAllowed). */
  readonly dir: string;
  /** The bytes of each file of a version's quads (FILE_BYTES unless set). */
  readonly fileBytes?: number;
}

/** isql failed, or the bulk loader refused the file. */
export class BulkLoadError extends Error {
  override name = 'BulkLoadError';
}

/** Text safe inside a single-quoted SQL string and an isql script (no `;`, which ends a statement). */
function sqlText(text: string): string {
  return text.replace(/'/g, "''").replace(/;/g, ',');
}

/**
 * The SQL that copies the quads of every graph whose name starts with `prefix` into `graph`, under
 * log_enable(2, 1) as the bulk loader itself runs (no transaction log, each row committed as it is
 * written; a checkpoint makes it durable). It reads every quad once and tests its graph's name:
 * 706,419 quads in about 1.4 s, where SPARQL's `INSERT … WHERE` with the same test takes 3× `ld_dir`.
 */
export function copyGraphs(prefix: string, graph: string): string {
  return `log_enable(2, 1); INSERT SOFT DB.DBA.RDF_QUAD (G, S, P, O) SELECT iri_to_id('${sqlText(graph)}'), q.S, q.P, q.O FROM DB.DBA.RDF_QUAD q WHERE id_to_iri(q.G) LIKE '${sqlText(prefix)}%';`;
}

/** What marks a version's graph while the version is loaded: a load killed before the copy left it. */
const LOADING = 'urn:isil-ld:loading';
/** What isql may print before the process is ended (a runaway answer is not kept whole). */
const MAX_OUTPUT = 64 * 1024 * 1024;
/** The longest an isql statement may run. */
const ISQL_TIMEOUT = 3_600_000;
/**
 * The bytes of a file of the version's quads: each is loaded as soon as it is written, while the
 * next is written (files end between pieces, so no blank node spans two: the bulk loader names a
 * blank node within one file).
 */
const FILE_BYTES = 32 * 1024 * 1024;

export class VirtuosoBulkTransport implements Transport {
  readonly target: string;
  private file: string | undefined;
  private fd: number | undefined;
  /** Bytes written to `file`, and the files of this version written so far. */
  private bytes = 0;
  private files = 0;
  private version: string | undefined;
  private all: string | undefined;
  /** Bulk loads started and not yet checked: each file and its isql run. */
  private loads: { file: string; run: Promise<string> }[] = [];

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
    // What an earlier load of the same bytes left, killed before it was published, is dropped
    // whole: its version's graph holds the mark below, or (killed after the copy) every triple.
    const left = this.isql(`SPARQL ASK WHERE { GRAPH <${this.all}> { ?s ?p ?o } }`);
    if (/^\s*1\s*$/m.test(left)) this.dropVersion(version);
    this.isql(`SPARQL INSERT DATA { GRAPH <${this.all}> { <${this.all}> <${LOADING}> "" } }`);
    this.version = version;
    this.openFile();
  }

  private openFile(): void {
    this.file = path.join(
      this.settings.dir,
      `isil-ld-${this.version}-${process.pid}-${++this.files}.nq`,
    );
    this.fd = fs.openSync(this.file, 'w', 0o644);
    this.bytes = 0;
  }

  /** Closes the file being written and starts its load. */
  private loadFile(): void {
    if (this.fd === undefined || this.file === undefined) return;
    fs.closeSync(this.fd);
    this.fd = undefined;
    this.startLoad(this.file);
    this.file = undefined;
  }

  /** The description graphs' triples, and those of the version's graph alone; `all` is made at finish. */
  async write({ graphs, own }: VersionPiece): Promise<void> {
    if (this.fd === undefined || this.all === undefined) throw new Error('write before begin');
    const out: string[] = [];
    for (const [graph, triples] of graphs)
      for (const t of triples) out.push(`${t.slice(0, -2)} <${graph}> .\n`);
    for (const t of own) out.push(`${t.slice(0, -2)} <${this.all}> .\n`);
    this.bytes += fs.writeSync(this.fd, out.join(''));
    if (this.bytes >= (this.settings.fileBytes ?? FILE_BYTES)) {
      this.loadFile();
      this.openFile();
    }
  }

  /**
   * Loads the version's last file (beside the others, when they are still loading), checks all, and
   * has Virtuoso copy every description graph's quads into the version's graph, then drops the mark
   * and makes it all durable (checkpoint).
   */
  async finish(): Promise<void> {
    if (this.fd === undefined || this.all === undefined) throw new Error('finish before begin');
    this.loadFile();
    await this.settle(false);
    // A copy cut short is a version nobody reads (it is not listed), and its mark is still there
    // for the next load to find.
    this.isql(
      `${copyGraphs(`${this.all}:`, this.all)} DELETE FROM DB.DBA.RDF_QUAD WHERE G = iri_to_id('${sqlText(this.all)}') AND P = iri_to_id('${LOADING}'); checkpoint;`,
    );
  }

  /** Starts the bulk load of `file` (N-Quads, in the bulk folder); `settle` waits for it. */
  private startLoad(file: string): void {
    const full = sqlText(file);
    const run = this.isqlAsync(
      `DELETE FROM DB.DBA.load_list WHERE ll_file = '${full}'; ld_dir('${sqlText(this.settings.dir)}', '${sqlText(path.basename(file))}', 'urn:isil-ld:unused'); rdf_loader_run();`,
    );
    run.catch(() => {}); // settled (and its failure thrown) by `settle`
    this.loads.push({ file, run });
  }

  /**
   * Waits for every load started, then checks that the loader loaded each file whole: a loader may
   * take another's file from the list, so only when every run has ended is every file done. The
   * files and their entries in the list are removed whatever happened. With `checkpoint`, what was
   * loaded is made durable.
   */
  private async settle(checkpoint: boolean): Promise<void> {
    const loads = this.loads.splice(0);
    if (loads.length === 0) return;
    const runs = await Promise.allSettled(loads.map((load) => load.run));
    const list = loads.map((load) => `'${sqlText(load.file)}'`).join(', ');
    try {
      for (const run of runs) if (run.status === 'rejected') throw run.reason;
      const refused = this.isql(
        `SELECT ll_file, ll_state, ll_error FROM DB.DBA.load_list WHERE ll_file IN (${list}) AND (ll_state <> 2 OR ll_error IS NOT NULL);`,
      );
      if (!/^\s*0 Rows\./m.test(refused))
        throw new BulkLoadError(`Virtuoso's bulk loader did not load: ${refused.trim()}`);
      if (checkpoint) this.isql('checkpoint;');
    } finally {
      for (const load of loads) fs.rmSync(load.file, { force: true });
      this.isql(`DELETE FROM DB.DBA.load_list WHERE ll_file IN (${list});`);
    }
  }

  async publish(entry: VersionEntry, step?: HistoryStep): Promise<void> {
    await this.settle(true);
    await this.replaceRegistry(await registryWith(this.client, entry, step));
  }

  async writeRegistry(
    entries: readonly VersionEntry[],
    current: string,
    timeline: readonly HistoryStep[],
  ): Promise<void> {
    await this.settle(true);
    await this.replaceRegistry(registryTriples(entries, current, timeline));
  }

  /**
   * The graphs, which the store lacks, written to one file whose load starts now and goes on while
   * the version is written: `finish`, `publish` and `writeRegistry` wait for it and check it.
   */
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
    this.startLoad(file);
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
    // A load still running (the write failed) ends before its file is removed.
    const loads = this.loads.splice(0);
    await Promise.allSettled(loads.map((load) => load.run));
    for (const load of loads) fs.rmSync(load.file, { force: true });
  }

  /**
   * Drops every graph of `version` (its own and each description's) in one SQL statement over the
   * quads, as the copy reads them: the SPARQL form tests every quad's graph as a string.
   */
  dropVersion(version: string): void {
    const prefix = sqlText(versionGraph(version));
    this.isql(
      `log_enable(2, 1); DELETE FROM DB.DBA.RDF_QUAD WHERE id_to_iri(G) LIKE '${prefix}%'; checkpoint;`,
    );
  }

  /** Runs `sql` through isql; throws BulkLoadError with what it printed when it fails. */
  isql(sql: string): string {
    const { isql, server, user, password } = this.settings;
    const run = spawnSync(isql, [server, user, password, `exec=${sql}`], {
      encoding: 'utf8',
      timeout: ISQL_TIMEOUT,
      maxBuffer: MAX_OUTPUT,
    });
    if (run.error) throw new BulkLoadError(`${isql} could not run: ${run.error.message}`);
    return this.checked(run.status, run.stdout ?? '', run.stderr ?? '');
  }

  /** `isql` without blocking: the loader writes while Virtuoso loads. */
  private isqlAsync(sql: string): Promise<string> {
    const { isql, server, user, password } = this.settings;
    return new Promise((resolve, reject) => {
      const child = spawn(isql, [server, user, password, `exec=${sql}`], {
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: ISQL_TIMEOUT,
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let size = 0;
      const keep = (into: Buffer[]) => (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_OUTPUT) into.push(chunk);
      };
      child.stdout.on('data', keep(out));
      child.stderr.on('data', keep(err));
      child.once('error', (error) =>
        reject(new BulkLoadError(`${isql} could not run: ${error.message}`)),
      );
      child.once('close', (status) => {
        try {
          resolve(
            this.checked(status, Buffer.concat(out).toString(), Buffer.concat(err).toString()),
          );
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  /** isql's output when it ran well, else a BulkLoadError with what it said (never the password). */
  private checked(status: number | null, stdout: string, stderr: string): string {
    const said = `${stdout}${stderr}`;
    if (status === 0 && !/\*\*\* Error/.test(said)) return stdout;
    const { password, server } = this.settings;
    const shown = password === '' ? said : said.split(password).join('***');
    throw new BulkLoadError(`isql at ${server}: ${shown.slice(0, 2000)}`);
  }
}
