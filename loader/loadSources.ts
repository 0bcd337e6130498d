// Turns source files (N-Triples, N-Quads, Turtle, RDF/XML, JSON-LD) into a loaded Dataset, and
// writes snapshots: the one loading path shared by the server and the command line.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SaxesParser } from 'saxes';
import { Dataset, type DataWarning } from '../src/dataset';
import { DatasetStore, type StoreFormat } from '../src/store/datasetStore';

/** File extensions the loader reads, and the parser each selects. */
export const EXTENSIONS: Readonly<Record<string, StoreFormat>> = {
  '.nt': 'nt',
  '.nq': 'nq',
  '.ttl': 'ttl',
  '.trig': 'trig',
  '.rdf': 'rdf',
  '.xml': 'rdf',
  '.owl': 'rdf',
  '.jsonld': 'jsonld',
  '.json': 'jsonld',
};

export const FORMAT_NAMES: readonly StoreFormat[] = ['nt', 'nq', 'ttl', 'trig', 'rdf', 'jsonld'];

/** A file that cannot be loaded: where, and why. */
export class LoadError extends Error {
  override name = 'LoadError';
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly column: number | undefined,
    readonly reason: string,
  ) {
    super(`${file}${line !== undefined ? `:${line}:${column ?? 1}` : ''}: ${reason}`);
  }
}

export interface FileReport {
  readonly file: string;
  readonly format: StoreFormat;
  readonly triples: number;
}

export interface LoadReport {
  readonly files: readonly FileReport[];
  readonly institutions: number;
  readonly triples: number;
  /** IRIs rewritten from the `http://` form of the base to the configured one. */
  readonly rewritten: number;
  readonly warnings: readonly DataWarning[];
  readonly version: string;
}

export interface LoadOptions {
  readonly baseIri: string;
  /** Overrides detection by extension for every file. */
  readonly format?: StoreFormat;
}

/** Files are handed to the store in pieces of this size: faster and leaner than one buffer. */
const CHUNK_BYTES = 1 << 20;

/**
 * The first line of a snapshot this loader wrote: N-Quads allows comments. A snapshot written for
 * the configured base needs neither the base rewrite nor validation again (a full pass each).
 */
export function snapshotHeader(baseIri: string): string {
  return `# isil-ld snapshot; base <${baseIri}>\n`;
}

/** The file's bytes in chunks, fed to the hash as they are read. */
function* chunks(fd: number, size: number, hash: crypto.Hash): Generator<Buffer> {
  for (let offset = 0; offset < size; offset += CHUNK_BYTES) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - offset));
    const read = fs.readSync(fd, chunk, 0, chunk.length, offset);
    const bytes = chunk.subarray(0, read);
    hash.update(bytes);
    yield bytes;
  }
}

function startsWith(fd: number, text: string): boolean {
  const head = Buffer.alloc(Buffer.byteLength(text));
  const read = fs.readSync(fd, head, 0, head.length, 0);
  return read === head.length && head.toString('utf8') === text;
}

/** The files to read: given files as they are, folders walked in name order for known extensions. */
export function expandSources(
  sources: readonly string[],
  format?: StoreFormat,
): { file: string; format: StoreFormat }[] {
  const files: { file: string; format: StoreFormat }[] = [];
  const visit = (entry: string, given: boolean) => {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(entry);
    } catch {
      throw new LoadError(entry, undefined, undefined, 'no such file or folder');
    }
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(entry).sort()) visit(path.join(entry, name), false);
      return;
    }
    const detected = format ?? EXTENSIONS[path.extname(entry).toLowerCase()];
    if (detected) files.push({ file: entry, format: detected });
    else if (given) {
      throw new LoadError(
        entry,
        undefined,
        undefined,
        `unknown extension; use --format (${FORMAT_NAMES.join(', ')})`,
      );
    }
  };
  for (const source of sources) visit(source, true);
  return files;
}

/**
 * Oxigraph's RDF/XML parser accepts a document cut off before its end (it loads what it read), so
 * XML is checked for well-formedness first: a truncated file must be refused, not half-loaded.
 */
function checkXml(file: string, text: Buffer): void {
  const parser = new SaxesParser({ xmlns: true, position: true });
  let first: LoadError | undefined;
  parser.on('error', (e) => {
    first ??= new LoadError(
      file,
      parser.line,
      parser.column + 1,
      `not well-formed XML: ${e.message.replace(/^[^:]*:\d+:\d+: /, '')}`,
    );
  });
  parser.write(text.toString('utf8')).close();
  if (first) throw first;
}

/** Reads the position out of Oxigraph's message (`line L between columns C and …`). */
function locate(file: string, text: Buffer, error: Error): LoadError {
  const message = error.message;
  const at = /line (\d+)(?: between columns (\d+) and \d+| column (\d+))?/i.exec(message);
  if (at) return new LoadError(file, Number(at[1]), Number(at[2] ?? at[3] ?? 1), message);
  const lines = text.toString('utf8').split('\n');
  return new LoadError(
    file,
    lines.length,
    (lines.at(-1)?.length ?? 0) + 1,
    `${message} (at the end of the file)`,
  );
}

/**
 * Loads every source into a new store, rewrites `http://` base IRIs, checks the institutions and
 * returns the dataset with a report. Throws a LoadError for the first file that does not parse;
 * nothing is half-loaded (the store is freed).
 */
export function loadSources(
  sources: readonly string[],
  options: LoadOptions,
): { dataset: Dataset; report: LoadReport } {
  const files = expandSources(sources, options.format);
  const store = new DatasetStore();
  const hash = crypto.createHash('sha256');
  const reports: FileReport[] = [];
  const header = snapshotHeader(options.baseIri);
  let everyFileASnapshot = true;
  try {
    for (const { file, format } of files) {
      const before = store.size;
      const fd = fs.openSync(file, 'r');
      try {
        const size = fs.fstatSync(fd).size;
        if (size === 0) throw new LoadError(file, undefined, undefined, 'the file is empty');
        const snapshot = format === 'nq' && startsWith(fd, header);
        everyFileASnapshot &&= snapshot;
        if (format === 'rdf') checkXml(file, fs.readFileSync(fd));
        try {
          store.load(chunks(fd, size, hash), format, `${options.baseIri}/`, snapshot);
        } catch (error) {
          throw locate(file, fs.readFileSync(file), error as Error);
        }
      } finally {
        fs.closeSync(fd);
      }
      reports.push({ file, format, triples: store.size - before });
    }
    const rewritten = everyFileASnapshot ? 0 : rewriteHttpBase(store, options.baseIri);
    const version = hash.digest('hex').slice(0, 12);
    const dataset = new Dataset(store, options.baseIri, version);
    return {
      dataset,
      report: {
        files: reports,
        institutions: dataset.institutionCount,
        triples: store.size,
        rewritten,
        warnings: dataset.warnings,
        version,
      },
    };
  } catch (error) {
    store.free();
    throw error;
  }
}

/**
 * Data minted with `http://` for an `https://` base (or the reverse) is served under the configured
 * base (DATA-MODEL.md, Identifiers). Subjects and objects are rewritten; returns how many triples.
 */
export function rewriteHttpBase(store: DatasetStore, baseIri: string): number {
  const other = baseIri.startsWith('https://')
    ? `http://${baseIri.slice(8)}`
    : `https://${baseIri.slice(7)}`;
  const from = JSON.stringify(`${other}/`);
  const to = JSON.stringify(`${baseIri}/`);
  const matches = `FILTER((isIRI(?s) && STRSTARTS(STR(?s), ${from})) || (isIRI(?o) && STRSTARTS(STR(?o), ${from})))`;
  const count = store.select(`SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o ${matches} }`)[0]?.n?.value;
  const n = Number(count ?? 0);
  if (n === 0) return 0;
  const swap = (v: string) =>
    `IF(isIRI(?${v}) && STRSTARTS(STR(?${v}), ${from}), IRI(CONCAT(${to}, STRAFTER(STR(?${v}), ${from}))), ?${v})`;
  store.update(
    `DELETE { ?s ?p ?o } INSERT { ?s2 ?p ?o2 } WHERE { ?s ?p ?o ${matches} BIND(${swap('s')} AS ?s2) BIND(${swap('o')} AS ?o2) }`,
  );
  return n;
}

/**
 * Writes the store as an N-Quads snapshot: to a temporary file beside the target, flushed to disk,
 * then renamed over it, so a reader sees the old snapshot or the new one, never a part.
 */
export function writeSnapshot(dataset: Dataset, target: string): number {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const temporary = `${target}.tmp-${process.pid}`;
  const body = snapshotHeader(dataset.baseIri) + dataset.store.dump();
  try {
    const fd = fs.openSync(temporary, 'w');
    try {
      fs.writeSync(fd, body);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, target);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  return Buffer.byteLength(body);
}
