// Writing a version through Virtuoso's bulk loader (`ld_dir` + `rdf_loader_run`, through `isql`:
// Virtuoso's own fastest path). Each triple is sent once, in its description's graph; the
// version's graph, every triple of the version, is then made by Virtuoso itself from those graphs
// with one SQL copy of their quads (about a quarter of the bulk load's time). The history's graphs
// are written to a file of their own and loaded by a second loader while the version's quads are
// still being written and loaded, so the two use both of a small machine's cores. Nothing is
// published until every load and the copy are done and checked: one SPARQL Update of the registry.
// isql runs as a child process the loader waits for without blocking: a statement may run for
// minutes, and a loader frozen that long lets its keep-alive connections to the store go stale.
// Known limit: isql takes its password as an argument, which other users of the loader's machine
// can see in the process list (docs/scaling.md).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { canonicalNTriples } from './canonicalNTriples';
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
import { copiedVersion, copyGraphs, graphsNamed, sqlText } from './virtuosoSql';

export { copyGraphs };

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

/** isql failed, the bulk loader refused the file, or the store stopped answering. */
export class BulkLoadError extends Error {
  override name = 'BulkLoadError';
}

/** isql's error when the server is gone: 08S01 (connection lost), S2801 (connect failed). */
const STORE_GONE = /\*\*\* Error (08S01|S2801):/;
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
/**
 * Loaders of the version's files at once (the history's file has one more): two beat one, and one
 * a file would mean dozens for a million institutions (docs/benchmark.md, "Virtuoso's loaders").
 */
const VERSION_LOADERS = 2;

export class VirtuosoBulkTransport implements Transport {
  readonly target: string;
  /** The history's graphs are written first: the bulk loader loads them beside the version's. */
  readonly historyFirst = true;
  private file: string | undefined;
  private fd: number | undefined;
  /** Bytes written to `file`, and the files of this version written so far. */
  private bytes = 0;
  private files = 0;
  private version: string | undefined;
  private all: string | undefined;
  /** Bulk loads started and not yet checked: each file, its entry in the load list, its isql run. */
  private loads: { file: string; listed: string; run: Promise<string> }[] = [];
  /** The loads of the version's files under way: at most VERSION_LOADERS. */
  private readonly loading = new Set<Promise<unknown>>();

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
    const left = await this.isql(
      `SPARQL ASK WHERE { GRAPH <${this.all}> { ?s ?p ?o } }`,
      'the look for an earlier load',
    );
    if (/^\s*1\s*$/m.test(left)) await this.dropVersion(version);
    await this.isql(
      `SPARQL INSERT DATA { GRAPH <${this.all}> { <${this.all}> <${LOADING}> "" } }`,
      'the mark of a load under way',
    );
    this.version = version;
  }

  /** Copies `from`'s description graphs into the version begun, but those named in `except`. */
  async copy(from: string, except: readonly string[]): Promise<void> {
    if (this.version === undefined) throw new Error('copy before begin');
    await this.isql(copiedVersion(from, this.version, except), `the copy of version ${from}`);
  }

  /** The description graphs' triples, and those of the version's graph alone; `all` is made at finish. */
  async write({ graphs, own }: VersionPiece): Promise<void> {
    if (this.all === undefined) throw new Error('write before begin');
    const out: string[] = [];
    for (const [graph, triples] of graphs)
      for (const t of triples) out.push(`${t.slice(0, -2)} <${graph}> .\n`);
    for (const t of own) out.push(`${t.slice(0, -2)} <${this.all}> .\n`);
    if (out.length === 0) return;
    if (this.fd === undefined) {
      this.file = path.join(
        this.settings.dir,
        `isil-ld-${this.version}-${process.pid}-${++this.files}.nq`,
      );
      this.fd = fs.openSync(this.file, 'w', 0o644);
      this.bytes = 0;
    }
    this.bytes += fs.writeSync(this.fd, out.join(''));
    if (this.bytes >= (this.settings.fileBytes ?? FILE_BYTES)) await this.loadFile();
  }

  /**
   * Closes the file being written and starts its load once fewer than VERSION_LOADERS of the
   * version's are under way: they load while the next file is written.
   */
  private async loadFile(): Promise<void> {
    if (this.fd === undefined || this.file === undefined) return;
    fs.closeSync(this.fd);
    const file = this.file;
    this.fd = undefined;
    this.file = undefined;
    while (this.loading.size >= VERSION_LOADERS) await Promise.race(this.loading);
    const run = this.startLoad(file);
    this.loading.add(run);
    void run.then(() => this.loading.delete(run));
  }

  /**
   * Loads the version's last file (beside the history's, when that is still loading), checks
   * every file, and has Virtuoso copy every description graph's quads into the version's graph;
   * then drops the mark, once the copy is whole, and makes it all durable (checkpoint).
   */
  async finish(): Promise<void> {
    if (this.all === undefined) throw new Error('finish before begin');
    await this.loadFile();
    await this.settle(false);
    // A copy cut short leaves the mark: the next load of these bytes finds it and drops them.
    await this.isql(copyGraphs(`${this.all}:`, this.all), 'the copy into the version’s graph');
    await this.isql(
      `DELETE FROM DB.DBA.RDF_QUAD WHERE G = iri_to_id('${sqlText(this.all)}') AND P = iri_to_id('${LOADING}'); checkpoint;`,
      'the checkpoint after the copy',
    );
  }

  /**
   * Starts the bulk load of `file` (N-Quads, in the bulk folder); `settle` checks it. Resolves when
   * its run ends, well or not.
   */
  private startLoad(file: string): Promise<unknown> {
    const { dir } = this.settings;
    const name = path.basename(file);
    // The entry `ld_dir` makes in the load list: the folder as it is given, a slash, the name.
    const listed = `${sqlText(dir)}/${sqlText(name)}`;
    const run = this.isql(
      `DELETE FROM DB.DBA.load_list WHERE ll_file = '${listed}'; ld_dir('${sqlText(dir)}', '${sqlText(name)}', 'urn:isil-ld:unused'); rdf_loader_run();`,
      `the bulk load of ${name}`,
    );
    this.loads.push({ file, listed, run });
    return run.catch(() => undefined); // its failure is thrown by `settle`
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
    const list = loads.map((load) => `'${load.listed}'`).join(', ');
    try {
      for (const run of runs) if (run.status === 'rejected') throw run.reason;
      // Counted as loaded, not as refused: an entry not found is not loaded either.
      const loaded = await this.isql(
        `SELECT COUNT(*) FROM DB.DBA.load_list WHERE ll_file IN (${list}) AND ll_state = 2 AND ll_error IS NULL;`,
        'the check of the load list',
      );
      if (Number(/^\s*(\d+)\s*$/m.exec(loaded)?.[1]) !== loads.length) {
        const said = await this.isql(
          `SELECT ll_file, ll_state, ll_error FROM DB.DBA.load_list WHERE ll_file IN (${list});`,
          'the check of the load list',
        );
        throw new BulkLoadError(
          `Virtuoso's bulk loader did not load all of ${loads.length} files: ${said.trim()}`,
        );
      }
      if (checkpoint) await this.isql('checkpoint;', 'the checkpoint of the loaded files');
    } finally {
      await this.forget(loads);
    }
  }

  /** Removes the files of `loads` and their entries in the load list, as far as it can. */
  private async forget(loads: readonly { file: string; listed: string }[]): Promise<void> {
    for (const load of loads) fs.rmSync(load.file, { force: true });
    try {
      const list = loads.map((load) => `'${load.listed}'`).join(', ');
      if (loads.length > 0)
        await this.isql(
          `DELETE FROM DB.DBA.load_list WHERE ll_file IN (${list});`,
          'the clean-up of the load list',
        );
    } catch {
      // The store may be what failed: the entries are replaced when a file of that name is loaded.
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
      await this.isql(
        `SPARQL DEFINE sql:log-enable 3 DELETE { GRAPH ?g { ?s ?p ?o } } WHERE { VALUES ?g { ${values} } GRAPH ?g { ?s ?p ?o } };`,
        'the drop of graphs',
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
    const write = (update: string, lines: Iterable<string>) =>
      this.isql(
        `SPARQL ${update} { GRAPH <${REGISTRY}> { ${data(lines)} } };`,
        'the registry’s write',
      );
    await write('INSERT DATA', wanted);
    if (old.length > 0) await write('DELETE DATA', old);
  }

  async stored(): Promise<string[]> {
    return storedVersions(this.client);
  }

  async drop(version: string): Promise<void> {
    await this.dropVersion(version);
  }

  async close(): Promise<void> {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    if (this.file) fs.rmSync(this.file, { force: true });
    this.fd = undefined;
    this.file = undefined;
    // A load still running (the write failed) ends before its file is removed.
    const loads = this.loads.splice(0);
    await Promise.allSettled(loads.map((load) => load.run));
    await this.forget(loads);
  }

  /**
   * Drops every graph of `version` (each description's, then its own, which holds the mark of a
   * load under way: dropped last, so that a drop cut short is found again) with SQL, the graphs
   * found by name as the copy finds them: the SPARQL form tests every quad's graph as a string.
   */
  async dropVersion(version: string): Promise<void> {
    const all = versionGraph(version);
    const drop = (where: string, during = `the drop of version ${version}`) =>
      this.isql(`log_enable(2, 1); DELETE FROM DB.DBA.RDF_QUAD WHERE ${where};`, during);
    await drop(`G IN (${graphsNamed(`${all}:`)})`);
    await drop(`G = iri_to_id('${all}'); checkpoint`);
  }

  /**
   * Runs `sql` through isql, `during` naming the step for an error; resolves with what it printed,
   * or rejects with a BulkLoadError saying what it printed.
   */
  private isql(sql: string, during: string): Promise<string> {
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
        const [stdout = '', stderr = ''] = [out, err].map((text) => Buffer.concat(text).toString());
        try {
          resolve(this.checked(status, stdout, stderr, during));
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  /** isql's output when it ran well, else a BulkLoadError with what it said (never the password). */
  private checked(status: number | null, stdout: string, stderr: string, during: string): string {
    const said = `${stdout}${stderr}`;
    if (status === 0 && !/\*\*\* Error/.test(said)) return stdout;
    const { password, server } = this.settings;
    const shown = password === '' ? said : said.split(password).join('***');
    const gone = STORE_GONE.exec(shown);
    if (gone)
      throw new BulkLoadError(
        `the remote store at ${server} stopped answering during ${during}: ${shown.slice(gone.index).split('\n')[0]}`,
      );
    throw new BulkLoadError(`isql at ${server} during ${during}: ${shown.slice(0, 2000)}`);
  }
}
