// Turns source files (RDF in every format, PICA+, the name and redirect lists) into a loaded
// Dataset, resolving ISILs held by several sources: the one loading path shared by the server and
// the command line. Snapshots are written and checked in loader/snapshot.ts.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { SaxesParser } from 'saxes';
import { Dataset, DatasetIndex, type DataWarning } from '../store/dataset';
import { parseModified } from '../rdf/description';
import {
  descriptionIri,
  descriptionIriOf,
  institutionIri,
  isilOfInstitutionIri,
  RESOURCE_PATH,
} from '../rdf/iris';
import { isilDefect, isilKey, type Isil } from '../rdf/isil';
import { CONTEXT, CONTEXT_PATH } from '../rdf/context';
import { PREFIXES } from '../rdf/namespaces';
import { lexicalForm } from '../rdf/ntriples';
import { DatasetStore, type SelectBinding, type StoreFormat } from '../store/embedded/datasetStore';
import { MAX_BLANK_NODE_DEPTH, NAMED_LINKS } from '../store/descriptions';
import { splitLine, type Line } from '../rdf/ntriples';
import { checkedIri } from '../store/queries';
import { nextTurn, TimeSlicer, UNCONTENDED_STEP_MS } from '../util/timeSlice';
import { fileHead } from './fileHead';
import { CHUNK_BYTES, chunks, figure, mib, type Hasher } from './reading';
import { LoadError, NoInstitutionError } from './loadError';
import { readNameList, readRedirectList, sniffList } from './lists';
import { convertRecord } from './pica/convert';
import { PicaFileError, readPica, sniffPica } from './pica/read';
import {
  checkInstitutions,
  checkTrailer,
  CHUNK_MARK,
  endsPiece,
  isStringTooLong,
  MAX_SNAPSHOT_BYTES,
  readTrailer,
  SNAPSHOT_CHUNK_BYTES,
  SNAPSHOT_START,
  snapshotBase,
  trailerRows,
  VERSION_LENGTH,
  type Trailer,
} from './snapshot';
import type { SkippedRecord, SourceRecord } from './records';
import { Validator, type Defect, type DefectClass, type Institution } from './validate';

/** Re-exported: the errors every caller of the loader handles. */
export { LoadError, NoInstitutionError };
/** Re-exported: what the command line and the tests write and read snapshots with. */
export {
  chunkedNQuads,
  MAX_SNAPSHOT_BYTES,
  snapshotHeader,
  writeSnapshot,
  type WrittenSnapshot,
} from './snapshot';

/** Every format the loader reads: Oxigraph's RDF formats, the two PICA+ forms, the two lists. */
export type SourceFormat = StoreFormat | 'pica' | 'ppxml' | 'names' | 'redirects';

export const FORMAT_NAMES: readonly SourceFormat[] = [
  'nt',
  'nq',
  'ttl',
  'trig',
  'rdf',
  'jsonld',
  'pica',
  'ppxml',
  'names',
  'redirects',
];

/**
 * File extensions the loader reads, and the format each selects. `.xml` is PicaPlus-XML when its
 * first bytes say so and RDF/XML otherwise; `.tsv` is the name list or the redirect list, told
 * apart by its first line.
 */
export const EXTENSIONS: Readonly<Record<string, SourceFormat | 'xml' | 'tsv'>> = {
  '.nt': 'nt',
  '.nq': 'nq',
  '.ttl': 'ttl',
  '.trig': 'trig',
  '.rdf': 'rdf',
  '.xml': 'xml',
  '.owl': 'rdf',
  '.jsonld': 'jsonld',
  '.json': 'jsonld',
  '.dat': 'pica',
  '.pica': 'pica',
  '.tsv': 'tsv',
};

export interface FileReport {
  readonly file: string;
  readonly format: SourceFormat;
  /** Records read (PICA+ and lists); RDF files have none of their own. */
  readonly records: number | undefined;
  /** Triples the file added to the store, after conflicts were resolved. */
  readonly triples: number;
}

/** A record left out: broken (with its position and id) or not published by rule. */
export interface Skipped {
  readonly origin: string;
  readonly id: string | undefined;
  readonly reason: string;
  readonly kind: 'malformed' | 'not-published';
}

/** An ISIL held by several sources, and the one whose record is loaded. */
export interface Conflict {
  readonly isil: string;
  readonly winner: string;
  /** Every source that held it, the winner included, in the order they were read. */
  readonly origins: readonly string[];
}

export interface DefectCount {
  readonly defect: DefectClass;
  readonly count: number;
  /** The first few, in the order they were found. */
  readonly examples: readonly Defect[];
}

export interface LoadReport {
  readonly files: readonly FileReport[];
  readonly institutions: number;
  readonly withdrawn: number;
  readonly triples: number;
  /** IRIs rewritten from the `http://` form of the base to the configured one. */
  readonly rewritten: number;
  readonly skipped: readonly Skipped[];
  readonly conflicts: readonly Conflict[];
  /** Defects the shapes found, by class; empty unless the load validated. */
  readonly defects: readonly DefectCount[];
  /** Institutions with at least one defect. */
  readonly defective: number;
  /** Whether the institutions were validated against the shapes. */
  readonly validated: boolean;
  readonly warnings: readonly DataWarning[];
  readonly version: string;
}

/** What `loadSources` returns. */
export interface Loaded {
  readonly dataset: Dataset<DatasetStore>;
  readonly report: LoadReport;
  /** The rows the dataset was indexed from, for a copy of the index in another thread. */
  readonly rows: readonly SelectBinding[];
}

export interface LoadOptions {
  readonly baseIri: string;
  /** Overrides detection by extension for every file. */
  readonly format?: SourceFormat;
  /**
   * Validates every published institution against the shapes. The loader command does; the
   * server does not for its own snapshot, which was validated when it was written.
   */
  readonly validate?: boolean;
  /** Worker threads that validate; by default one a core. */
  readonly validationWorkers?: number;
  /**
   * Refuses (NoInstitutionError) a load whose result holds no live institution: checked as soon
   * as every source is parsed (no foaf:Organization under the base at all), before descriptions
   * are placed, indexed or validated, and again once the index is read. The loader command sets
   * it unless given --allow-empty.
   */
  readonly requireInstitutions?: boolean;
}

/**
 * The most bytes a load reads from its sources together, snapshots aside: 256 MiB. A load's memory
 * peaked at about 14 bytes an input byte (200 MB of generated institutions in N-Triples: 2.8 GB,
 * 2 GB of it Oxigraph's WebAssembly memory, which cannot pass 4 GiB; docs/loading.md), and the
 * snapshot of those 200 MB was 329 MB of N-Quads, made as one string by the store: 256 MiB stays
 * inside both that and V8's longest string (2^29 - 24 characters, about 512 MiB). The 18,672
 * institutions of the ISIL directory make about 100 MB.
 */
export const MAX_INPUT_BYTES = 256 * 1024 * 1024;

/**
 * The longest literal a load accepts, in characters: 64 Ki. A page that shows a literal builds
 * it anew for every request, so a literal of megabytes costs every request of its institution; the
 * longest in the real data (fixtures/real) has a few hundred characters.
 */
export const MAX_LITERAL_LENGTH = 64 * 1024;

/**
 * How deep a JSON-LD document (objects and arrays) or an RDF/XML document (elements) may nest:
 * 256 levels. Oxigraph's readers of both recurse: its JSON-LD reader overflowed the WebAssembly
 * stack at about 950 levels (an error that leaves the store's module unusable) and took seconds
 * from 800; its RDF/XML reader takes time growing with the square of the depth (20,000 levels
 * 2.5 s, 100,000 levels 52 s). Turtle, TriG, N-Triples and N-Quads have no such limit (100,000
 * nested blank nodes load in seconds). The real data nests 6 levels.
 */
export const MAX_NESTING_DEPTH = 256;

/** How many examples of each defect class the report shows. */
const DEFECT_EXAMPLES = 3;
/** Institutions removed by one SPARQL update (NOT IN over the list is checked per URL node). */
const REMOVAL_BATCH = 256;
/**
 * Institutions sent to a validating worker in one message: enough that messages cost little
 * beside the checks (about a millisecond each), few enough that the last batches end soon.
 */
const VALIDATION_BATCH = 200;
/**
 * Batches in the validator's hands at most, per worker: each worker has the next batch queued
 * while it checks one, and the loader, when ahead, waits instead of holding every institution's
 * text (memory stays bounded, whatever the number of records).
 */
const VALIDATION_BATCHES_PER_WORKER = 2;

/** The format of a file with an extension the loader knows, looking into `.xml` and `.tsv` files. */
function detect(file: string, given: SourceFormat | 'xml' | 'tsv'): SourceFormat {
  if (given === 'xml') return sniffPica(file) === 'ppxml' ? 'ppxml' : 'rdf';
  if (given !== 'tsv') return given;
  const list = sniffList(file);
  if (list === undefined) {
    throw new LoadError(
      file,
      1,
      1,
      'neither a name list (header "id<TAB>isil<TAB>sigel<TAB>name") nor a redirect list (current ISIL<TAB>retired ISIL)',
    );
  }
  return list;
}

/** Why a path given or found cannot be read, from the error `fs.statSync` threw. */
function unreadable(entry: string, error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT': {
      const link = fs.lstatSync(entry, { throwIfNoEntry: false });
      return link?.isSymbolicLink()
        ? `a symbolic link to ${fs.readlinkSync(entry)}, which does not exist`
        : 'no such file or folder';
    }
    case 'ELOOP':
      return 'a symbolic link in a loop (it leads back to itself)';
    case 'EACCES':
      return 'permission denied';
    case 'ENOTDIR':
      return 'a part of the path is not a folder';
    default:
      return error.message;
  }
}

/**
 * The files to read: given files as they are, folders walked in name order for known extensions.
 * Everything that cannot be read is refused before any file is opened: opening a FIFO waits for a
 * writer that may never come, and a device may never end. So are sources larger together than
 * MAX_INPUT_BYTES (snapshots: MAX_SNAPSHOT_BYTES), told from their sizes.
 */
export function expandSources(
  sources: readonly string[],
  format?: SourceFormat,
): { file: string; format: SourceFormat }[] {
  const files: { file: string; format: SourceFormat }[] = [];
  /** The bytes of the snapshots, and of the other sources, so far. */
  let snapshots = 0;
  let others = 0;
  const visit = (entry: string, given: boolean) => {
    const known = format ?? EXTENSIONS[path.extname(entry).toLowerCase()];
    let stat: fs.Stats;
    try {
      stat = fs.statSync(entry);
    } catch (error) {
      // In a folder, what the loader would not read anyway is no reason to refuse.
      if (!given && !known) return;
      throw new LoadError(entry, undefined, undefined, unreadable(entry, error as Error));
    }
    if (stat.isDirectory()) {
      let names: string[];
      try {
        names = fs.readdirSync(entry).sort();
      } catch (error) {
        throw new LoadError(entry, undefined, undefined, unreadable(entry, error as Error));
      }
      for (const name of names) visit(path.join(entry, name), false);
      return;
    }
    if (!known) {
      if (given)
        throw new LoadError(
          entry,
          undefined,
          undefined,
          `unknown extension; use --format (${FORMAT_NAMES.join(', ')})`,
        );
      return;
    }
    const refuse = (reason: string) => new LoadError(entry, undefined, undefined, reason);
    if (stat.isFIFO()) throw refuse('a FIFO (named pipe), not a file');
    if (stat.isSocket()) throw refuse('a socket, not a file');
    if (!stat.isFile()) throw refuse('not a regular file (a device?)');
    if (stat.size === 0) throw refuse('the file is empty');
    try {
      fs.accessSync(entry, fs.constants.R_OK);
    } catch {
      throw refuse('permission denied');
    }
    const detected = detect(entry, known);
    const snapshot = detected === 'nq' && fileHead(entry, SNAPSHOT_START.length) === SNAPSHOT_START;
    const [limit, name] = snapshot
      ? [MAX_SNAPSHOT_BYTES, 'MAX_SNAPSHOT_BYTES']
      : [MAX_INPUT_BYTES, 'MAX_INPUT_BYTES'];
    const tooMuch = (what: string) =>
      refuse(`${what}, more than a load reads (${name}, ${mib(limit)}; docs/loading.md)`);
    if (stat.size > limit) throw tooMuch(mib(stat.size));
    if (snapshot) snapshots += stat.size;
    else others += stat.size;
    if (others > MAX_INPUT_BYTES || others + snapshots > MAX_SNAPSHOT_BYTES)
      throw tooMuch(`the sources come to ${mib(others + snapshots)} with this file`);
    files.push({ file: entry, format: detected });
  };
  for (const source of sources) visit(source, true);
  return files;
}

/**
 * Oxigraph's RDF/XML parser accepts a document cut off before its end (it loads what it read), so
 * XML is checked for well-formedness first: a truncated file must be refused, not half-loaded. So
 * is one nested deeper than MAX_NESTING_DEPTH. The file is read in pieces: never one string of
 * it, which may be longer than V8 makes strings. Namespaces are left to Oxigraph, which refuses an
 * unknown prefix: saxes resolves them in time growing with the depth of every element.
 */
function checkXml(file: string, fd: number): void {
  const parser = new SaxesParser({ position: true });
  let first: LoadError | undefined;
  parser.on('error', (e) => {
    first ??= new LoadError(
      file,
      parser.line,
      parser.column + 1,
      `not well-formed XML: ${e.message.replace(/^[^:]*:\d+:\d+: /, '')}`,
    );
  });
  let depth = 0;
  parser.on('opentag', () => {
    if (++depth > MAX_NESTING_DEPTH)
      first ??= new LoadError(
        file,
        parser.line,
        parser.column + 1,
        `elements nested deeper than ${MAX_NESTING_DEPTH} levels (MAX_NESTING_DEPTH; docs/loading.md)`,
      );
  });
  parser.on('closetag', () => depth--);
  const decoder = new StringDecoder('utf8');
  for (const chunk of chunks(fd)) {
    parser.write(decoder.write(chunk));
    if (first) throw first;
  }
  parser.write(decoder.end()).close();
  if (first) throw first;
}

/**
 * Refuses JSON nested deeper than MAX_NESTING_DEPTH (objects and arrays), with the line and
 * column of the bracket that goes too deep. A scan of the bytes: quotes, backslashes and brackets
 * are ASCII, never part of a longer UTF-8 sequence.
 */
function checkJsonDepth(file: string, bytes: Buffer): void {
  let depth = 0;
  let line = 1;
  let lineStart = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (inString) {
      if (byte === 0x5c /* a backslash */) i++;
      else if (byte === 0x22 /* " */) inString = false;
      else if (byte === 0x0a) {
        line++;
        lineStart = i + 1;
      }
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x7b /* { */ || byte === 0x5b /* [ */) {
      if (++depth > MAX_NESTING_DEPTH)
        throw new LoadError(
          file,
          line,
          bytes.toString('utf8', lineStart, i).length + 1,
          `JSON nested deeper than ${MAX_NESTING_DEPTH} levels (MAX_NESTING_DEPTH; docs/loading.md)`,
        );
    } else if (byte === 0x7d /* } */ || byte === 0x5d /* ] */) depth--;
    else if (byte === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
}

/**
 * Reads the position out of Oxigraph's message (`line L between columns C and …`); one without a
 * position is placed at the end of the file, counted in pieces (never one string of the file).
 */
function locate(file: string, error: Error, lineOffset = 0): LoadError {
  const message = error.message;
  const at = /line (\d+)(?: between columns (\d+) and \d+| column (\d+))?/i.exec(message);
  if (at) {
    return new LoadError(file, Number(at[1]) + lineOffset, Number(at[2] ?? at[3] ?? 1), message);
  }
  let lines = 1;
  let column = 1;
  const fd = fs.openSync(file, 'r');
  try {
    for (const chunk of chunks(fd)) {
      let last = -1;
      for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) {
        lines++;
        last = at;
      }
      if (last !== -1) column = 1;
      // Characters: the bytes that do not continue a UTF-8 sequence.
      for (let i = last + 1; i < chunk.length; i++) if ((chunk[i]! & 0xc0) !== 0x80) column++;
    }
  } finally {
    fs.closeSync(fd);
  }
  return new LoadError(file, lines, column, `${message} (at the end of the file)`);
}

/** What the loader keeps of each ISIL to resolve conflicts: small, never the record's text. */
interface Entry {
  /** The ISIL as the loaded record spells it (its IRI is minted from this spelling). */
  readonly isil: string;
  readonly origin: string;
  /** Which file it came from, so that an RDF file's case twins are not taken for a conflict. */
  readonly file: string;
  readonly weight: Weight;
  /** From an RDF source: validated from the store once it is complete. */
  readonly rdf: boolean;
  readonly withdrawn: boolean;
  /** Filled in when the validator answers. */
  defects: readonly Defect[];
  /** Its place in the batch not yet handed to the store, if it is there. */
  pending: number | undefined;
}

/**
 * How strongly a record holds its ISIL (decided, docs/data.md "When several sources hold one ISIL"): a name-only record yields to
 * anything; a withdrawal without a date (a pair of the redirect list) yields to any full record,
 * whose own status is the agency's word on the ISIL; among full records the later modification
 * wins, an unknown date counting as the earliest. Equal weights go to the source read later.
 */
interface Weight {
  readonly rank: 0 | 1 | 2;
  readonly time: number;
}

function weigh(status: SourceRecord['status'], modified: Date | undefined): Weight {
  const time = modified?.getTime() ?? Number.NEGATIVE_INFINITY;
  if (status === 'name-only') return { rank: 0, time };
  if (status === 'withdrawn' && modified === undefined) return { rank: 1, time };
  return { rank: 2, time };
}

function outweighs(candidate: Weight, held: Weight): boolean {
  return candidate.rank !== held.rank ? candidate.rank > held.rank : candidate.time >= held.time;
}

/**
 * The SPARQL update that removes the descriptions of institutions from a store: the graph of each
 * (`placeDescriptions` put its description there), and, for a store whose default graph holds
 * descriptions not placed yet, what `descriptionQuads` would place: the blank nodes below each,
 * deepest level first; its description document; the URL and e-mail nodes no subject but these
 * links to; its own triples. One update for many institutions: each operation is parsed and
 * planned once, not per record.
 */
export function removalUpdate(iris: readonly string[]): string {
  const list = iris.map((iri) => `<${checkedIri(iri)}>`);
  const values = `VALUES ?r { ${list.join(' ')} }`;
  const operations: string[] = [];
  for (let depth = MAX_BLANK_NODE_DEPTH; depth >= 1; depth--) {
    const chain: string[] = [];
    const blank: string[] = [];
    let previous = '?r';
    for (let level = 1; level < depth; level++) {
      chain.push(`${previous} ?l${level} ?b${level} .`);
      blank.push(`isBlank(?b${level})`);
      previous = `?b${level}`;
    }
    chain.push(`${previous} ?l${depth} ?s . ?s ?p ?o .`);
    blank.push('isBlank(?s)');
    operations.push(
      `DELETE { ?s ?p ?o } WHERE { ${values} ${chain.join(' ')} FILTER(${blank.join(' && ')}) }`,
    );
  }
  operations.push(
    `DELETE { ?s ?p ?o } WHERE { ${values} ?r <${PREFIXES.wdrs}describedby> ?s . ?s ?p ?o FILTER(isIRI(?s)) }`,
    `DELETE { ?s ?p ?o } WHERE { ${values} ?r ?link ?s . ?s ?p ?o ` +
      `FILTER(?link IN (<${PREFIXES.v}url>, <${PREFIXES.v}email>) && isIRI(?s)) ` +
      `FILTER NOT EXISTS { ?other ?any ?s FILTER(?other NOT IN (${list.join(', ')})) } }`,
    `DELETE { ?r ?p ?o } WHERE { ${values} ?r ?p ?o }`,
  );
  const graphs = iris.flatMap((iri) => {
    const graph = descriptionIriOf(iri);
    return graph === undefined ? [] : [`<${checkedIri(graph)}>`];
  });
  if (graphs.length > 0)
    operations.push(
      `DELETE { GRAPH ?g { ?s ?p ?o } } WHERE { VALUES ?g { ${graphs.join(' ')} } GRAPH ?g { ?s ?p ?o } }`,
    );
  return operations.join(' ;\n');
}

/** Removes the descriptions of `iris` from `store`, REMOVAL_BATCH institutions an update. */
function remove(store: DatasetStore, iris: readonly string[]): void {
  for (let i = 0; i < iris.length; i += REMOVAL_BATCH) {
    store.update(removalUpdate(iris.slice(i, i + REMOVAL_BATCH)));
  }
}

/** One load: the store being filled, what is known of each ISIL, and the report's tallies. */
class Load {
  readonly store = new DatasetStore();
  /** Every byte read, in order: the dataset's version. */
  readonly hash = new VersionHash();
  readonly files: FileReport[] = [];
  readonly skipped: Skipped[] = [];
  private readonly entries = new Map<string, Entry>();
  private readonly conflicts = new Map<
    string,
    { isil: string; origins: string[]; winner: string }
  >();
  private pending: string[] = [];
  /**
   * Institutions in the store outweighed by a record not loaded yet: removed before the next
   * batch is loaded (which may hold the same IRIs), many in one update.
   */
  private outweighed: string[] = [];
  /** The entries whose records are in `pending`. */
  private pendingEntries: Entry[] = [];
  private pendingBytes = 0;
  private blankNodes = 0;
  /** Whether records state triples about nodes that other records link to. */
  readonly crossings = new Crossings();
  /**
   * The index rows of the snapshot loaded, when its trailer (INDEX_LINE) holds rows of the index
   * query and it was the only source: only then can they describe the store.
   */
  snapshotRows: SelectBinding[] | undefined;
  /** The last snapshot read, with its trailer: its institutions are checked once indexed. */
  snapshot: { readonly file: string; readonly trailer: Trailer } | undefined;
  /**
   * The RDF files loaded straight into the store, whose triples are placed (and their literals
   * checked) at the end of the load.
   */
  readonly placedFrom: string[] = [];
  /** An RDF file was loaded without weighing its institutions (it was the only source). */
  private unregistered = false;
  rewritten = 0;

  /** Institutions waiting to be sent to the validator, with what to do with their defects. */
  private unchecked: { institution: Institution; checked: (defects: Defect[]) => void }[] = [];
  /** Batches sent to the validator and not answered yet. */
  private readonly checking = new Set<Promise<void>>();
  /** The first batch that failed: the load fails with it. */
  private checkFailure: unknown;
  /**
   * Defects of institutions from RDF sources by their place in the list validated (answers come
   * in any order; the report lists them in this one). Those of records stay with their entries.
   */
  private readonly rdfDefects: Defect[][] = [];

  constructor(
    private readonly options: LoadOptions,
    /** Whether several sources are read: only then can an ISIL be held twice. */
    private readonly resolving: boolean,
    private readonly validator: Validator | undefined,
  ) {}

  /**
   * Weighs a record of `isil` against the one held; returns whether it is to be loaded. The held
   * one, when outweighed, is taken out of the batch at once, or queued for removal from the store
   * before the next batch loads.
   */
  private contest(isil: string, entry: Omit<Entry, 'pending'>): boolean {
    const key = isilKey(isil);
    const held = this.entries.get(key);
    if (held === undefined) return true;
    const wins = outweighs(entry.weight, held.weight);
    const conflict = this.conflicts.get(key) ?? { isil, origins: [held.origin], winner: '' };
    conflict.origins.push(entry.origin);
    conflict.winner = wins ? entry.origin : held.origin;
    conflict.isil = wins ? isil : held.isil;
    this.conflicts.set(key, conflict);
    if (wins) {
      if (held.pending !== undefined) {
        this.pendingBytes -= this.pending[held.pending]!.length;
        this.pending[held.pending] = '';
      } else {
        this.outweighed.push(institutionIri(this.options.baseIri, held.isil as Isil));
      }
      this.entries.delete(key);
    }
    return wins;
  }

  /** Takes one record of a PICA+ file or a list: checked, weighed, validated, batched. */
  async add(record: SourceRecord | SkippedRecord, file: string): Promise<void> {
    if (!('ntriples' in record)) {
      this.skipped.push(record);
      return;
    }
    // A record's literals are not placed (it goes into its graph whole): checked here, where
    // the record's position is known.
    if (record.ntriples.length > MAX_LITERAL_LENGTH) {
      for (const text of record.ntriples.split('\n')) {
        const line = splitLine(text);
        if (line) Load.checkLiteral(record.origin, line);
      }
    }
    const defect = isilDefect(record.isil);
    if (defect !== undefined) {
      this.skipped.push({
        origin: record.origin,
        id: record.isil,
        reason: `"${record.isil}" is not a well-formed ISIL (${defect})`,
        kind: 'malformed',
      });
      return;
    }
    const entry = {
      isil: record.isil,
      origin: record.origin,
      file,
      weight: weigh(record.status, record.modified),
      rdf: false,
      withdrawn: record.status === 'withdrawn',
      defects: [],
    };
    if (!this.contest(record.isil, entry)) return;
    const held: Entry = { ...entry, pending: this.pending.length };
    this.entries.set(isilKey(record.isil), held);
    this.pendingEntries.push(held);
    const graph = descriptionIri(this.options.baseIri, record.isil as Isil);
    this.crossings.add(graph, institutionIri(this.options.baseIri, record.isil as Isil), record);
    const quads = inGraph(record.ntriples, graph);
    this.pending.push(quads);
    this.pendingBytes += quads.length;
    // A name-only record is a checked ISIL and a name that is not empty, made by this loader: the
    // shapes could find nothing more in it, and SHACL costs a millisecond a record. An entry that
    // is outweighed before its defects come is out of the map, and so are they.
    if (this.validator && record.status === 'published') {
      const iri = institutionIri(this.options.baseIri, record.isil as Isil);
      await this.check({ iri, ntriples: record.ntriples }, (defects) => (held.defects = defects));
    }
    if (this.pendingBytes >= CHUNK_BYTES) await this.flush();
  }

  /**
   * Queues an institution for the validator and sends a full batch, without waiting for its
   * answer unless the validator has as many batches in hand as it may.
   */
  private async check(
    institution: Institution,
    checked: (defects: Defect[]) => void,
  ): Promise<void> {
    this.unchecked.push({ institution, checked });
    if (this.unchecked.length >= VALIDATION_BATCH) await this.sendChecks();
  }

  private async sendChecks(): Promise<void> {
    const batch = this.unchecked;
    this.unchecked = [];
    if (batch.length > 0) {
      const done = this.validator!.validate(batch.map((b) => b.institution)).then((found) =>
        found.forEach((defects, i) => batch[i]!.checked(defects)),
      );
      this.checking.add(done);
      done.then(
        () => this.checking.delete(done),
        (error: unknown) => {
          this.checking.delete(done);
          this.checkFailure ??= error;
        },
      );
    }
    await this.checksInHand(this.validator!.workers * VALIDATION_BATCHES_PER_WORKER - 1);
  }

  /** Waits until at most `bound` batches are in the validator's hands; throws if one failed. */
  private async checksInHand(bound: number): Promise<void> {
    while (this.checking.size > bound && this.checkFailure === undefined)
      await Promise.race(this.checking).catch(() => undefined);
    if (this.checkFailure !== undefined) throw this.checkFailure;
  }

  /** Hands the batch to the store in one parse, then lets the event loop turn. */
  async flush(): Promise<void> {
    this.removeOutweighed();
    if (this.pending.length === 0) return;
    const text = this.pending.join('');
    for (const entry of this.pendingEntries) entry.pending = undefined;
    this.pendingEntries = [];
    this.pending = [];
    this.pendingBytes = 0;
    if (text !== '') this.store.load(text, 'nq');
    await nextTurn();
  }

  private removeOutweighed(): void {
    remove(this.store, this.outweighed);
    this.outweighed = [];
  }

  /** A prefix for the blank-node labels of the next record: unique within every batch. */
  blankNodePrefix(): string {
    return `r${(this.blankNodes++).toString(36)}x`;
  }

  /**
   * Loads an RDF file. The first file goes straight into the store; later ones into a store of
   * their own first, so that their institutions can be weighed against those already held and the
   * losers removed before anything is merged. Snapshots this loader wrote are loaded in pieces,
   * with a turn of the event loop between, and only when whole: their trailer is read first, and
   * what was read is checked against it.
   */
  async loadRdf(file: string, format: StoreFormat): Promise<number | undefined> {
    await this.flush();
    /** The store's size, when this load counted it: each count is a pass over every quad. */
    let size: number | undefined;
    const direct = this.store.size === 0;
    const target = direct ? this.store : new DatasetStore();
    try {
      const fd = fs.openSync(file, 'r');
      let ours = false;
      try {
        const base = format === 'nq' ? snapshotBase(fd) : undefined;
        const { baseIri } = this.options;
        if (base !== undefined && base !== baseIri && base !== otherScheme(baseIri))
          throw new LoadError(
            file,
            undefined,
            undefined,
            `a snapshot made for BASE_IRI ${base}, this service's is ${baseIri}`,
          );
        ours = base === baseIri;
        // One written for the other scheme of the base is read as any N-Quads file (rewritten,
        // checked, placed), but only when whole, as any snapshot.
        const trailer = base === undefined ? undefined : readTrailer(file, fd, baseIri);
        // The sha256 of the bytes before the trailer: the version's own hash when nothing was
        // read before them (no second pass over the bytes), else one of their own.
        const own = trailer && this.hash.bytes > 0 ? crypto.createHash('sha256') : undefined;
        const hash: Hasher = {
          update: (bytes) => {
            this.hash.update(bytes);
            own?.update(bytes);
          },
        };
        if (format === 'rdf') checkXml(file, fd);
        if (ours) await this.loadSnapshot(target, file, fd, trailer!.start, hash);
        else {
          try {
            let input: Buffer | Iterable<Buffer>;
            if (format === 'jsonld') {
              const bytes = readHashed(fd, hash);
              checkJsonDepth(file, bytes);
              input = servedContextInline(bytes, baseIri);
            } else input = chunks(fd, hash, trailer?.start);
            target.load(input, format, `${baseIri}/`);
          } catch (error) {
            if (error instanceof LoadError) throw error;
            throw locate(file, error as Error);
          }
        }
        if (trailer) {
          const sha256 = (own ?? this.hash.copy()).digest('hex');
          this.hash.update(trailer.bytes);
          const triples = target.size;
          checkTrailer(file, trailer, sha256, triples);
          // Nothing of a snapshot of this base loaded first changes below.
          if (direct && ours) size = triples;
          this.snapshot = { file, trailer };
          if (ours && !this.resolving) this.snapshotRows = trailerRows(trailer, target);
        }
      } finally {
        fs.closeSync(fd);
      }
      if (!ours) {
        target.mergeGraphs();
        this.rewritten += rewriteHttpBase(target, this.options.baseIri);
        // Its triples are placed with the rest at the end, where its literals are checked.
        if (direct) this.placedFrom.push(file);
      }
      if (this.resolving) this.register(target, file);
      else this.unregistered = true;
      this.removeOutweighed();
      if (!direct) {
        const nquads = target.dump();
        // Checked here, where the file they come from is known.
        if (!ours) checkLiterals(file, nquads);
        this.store.load(nquads, 'nq', undefined, true);
      }
    } finally {
      if (!direct) target.free();
    }
    await nextTurn();
    return size;
  }

  /** Refuses a literal of the triple `line` longer than MAX_LITERAL_LENGTH, found in `where`. */
  static checkLiteral(where: string, line: Line): void {
    const length = literalLength(line.o);
    if (length !== undefined && length > MAX_LITERAL_LENGTH)
      throw new LoadError(
        where,
        undefined,
        undefined,
        `${line.s} ${line.p}: a literal of ${figure(length)} characters, more than a load accepts (MAX_LITERAL_LENGTH, ${figure(MAX_LITERAL_LENGTH)}; docs/loading.md)`,
      );
  }

  /**
   * A snapshot's bytes before its trailer, in pieces that end at its chunk marks, which
   * `writeSnapshot` puts only where no blank node spans them (each `load` call labels blank nodes
   * anew). The event loop turns whenever a time slice is used up, so a server reloading answers
   * requests every few milliseconds. One without marks is one piece.
   */
  private async loadSnapshot(
    target: DatasetStore,
    file: string,
    fd: number,
    end: number,
    hash: Hasher,
  ): Promise<void> {
    const mark = Buffer.from(`\n${CHUNK_MARK}`);
    const slicer = new TimeSlicer();
    /** Bytes parsed a millisecond, as the last call into the store took them. */
    let rate = SNAPSHOT_CHUNK_BYTES;
    /** What was read after the last piece loaded, in reads. */
    let carry: Buffer[] = [];
    let lines = 0;
    const load = (piece: Buffer) => {
      hash.update(piece);
      try {
        target.load(piece, 'nq', undefined, true);
      } catch (error) {
        throw locate(file, error as Error, lines);
      }
      lines += countLines(piece);
    };
    for (let offset = 0; offset < end;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, end - offset));
      const read = fs.readSync(fd, chunk, 0, chunk.length, offset);
      if (read === 0)
        throw new LoadError(file, undefined, undefined, 'the file shrank as it was read');
      offset += read;
      const bytes = chunk.subarray(0, read);
      // A piece larger than a read (a group of blank nodes of megabytes) is gathered read by read
      // and joined once it ends: joined at every read, its bytes were copied and searched again
      // and again.
      if (offset < end && !endsPiece(carry, bytes, mark)) {
        carry.push(bytes);
        continue;
      }
      const text = carry.length > 0 ? Buffer.concat([...carry, bytes]) : bytes;
      carry = [];
      let start = 0;
      for (let stop = text.indexOf(mark); stop !== -1; stop = text.indexOf(mark, start)) {
        // Unless requests wait, as many pieces at once as parse in a slice: each call into the
        // store costs, above all while its memory grows (a first load of 16 KiB pieces one by
        // one took twice as long). When they wait, one piece, so that a slice ends on time.
        const enough = slicer.contended ? start : start + rate * UNCONTENDED_STEP_MS;
        for (let next = stop; next !== -1 && next < enough; next = text.indexOf(mark, next + 1))
          stop = next;
        const began = performance.now();
        load(text.subarray(start, stop + 1));
        rate = (stop + 1 - start) / Math.max(performance.now() - began, 0.1);
        start = stop + 1;
        await slicer.pause();
      }
      if (offset < end) carry = [text.subarray(start)];
      else if (start < text.length) load(text.subarray(start));
    }
  }

  /** Weighs each institution of a store just loaded from `file`; removes those that lose from it. */
  private register(target: DatasetStore, file: string): void {
    const losers: string[] = [];
    for (const row of target.institutions()) {
      const iri = row.institution!.value;
      const isil = isilOfInstitutionIri(this.options.baseIri, iri);
      if (isil === undefined || isilDefect(isil) !== undefined) continue;
      // Case twins within one file are the index's to report, not a conflict between sources.
      if (this.entries.get(isilKey(isil))?.file === file) continue;
      const withdrawn = row.deprecated !== undefined;
      const modified = parseModified(row.modified?.value);
      const entry = {
        isil,
        origin: `${file}#${isil}`,
        file,
        weight: weigh(withdrawn ? 'withdrawn' : 'published', modified),
        rdf: true,
        withdrawn,
        defects: [],
      };
      if (this.contest(isil, entry))
        this.entries.set(isilKey(isil), { ...entry, pending: undefined });
      else losers.push(iri);
    }
    remove(target, losers);
  }

  /**
   * Validates the institutions of RDF sources from the store (their description), waits for every
   * answer still owed, and returns the defects: the records' first, then the RDF institutions'.
   */
  async validated(dataset: Dataset<DatasetStore>): Promise<Defect[][]> {
    if (!this.validator) return [];
    const rdf = this.unregistered
      ? [...dataset.institutions()].map((i) => i.isil as string)
      : [...this.entries.values()].filter((e) => e.rdf && !e.withdrawn).map((e) => e.isil);
    for (const [i, isil] of rdf.entries()) {
      const iri = institutionIri(this.options.baseIri, isil as Isil);
      await this.check(
        { iri, ntriples: this.store.describe(checkedIri(iri)) },
        (defects) => (this.rdfDefects[i] = defects),
      );
    }
    await this.sendChecks();
    await this.checksInHand(0);
    const found: Defect[][] = [];
    for (const entry of this.entries.values())
      if (entry.defects.length > 0) found.push([...entry.defects]);
    return [...found, ...this.rdfDefects.filter((defects) => defects.length > 0)];
  }

  conflictList(): Conflict[] {
    return [...this.conflicts.values()];
  }
}

/**
 * A record's N-Triples as N-Quads in the graph of its description: a record is one institution's
 * description, whole. Each line ends in ` .` and a newline, which no term holds (N-Triples escapes
 * a newline in a literal).
 */
function inGraph(ntriples: string, description: string): string {
  return ntriples.replaceAll(' .\n', ` <${checkedIri(description)}> .\n`);
}

/** A node stated in, or linked from, more than one graph. */
const MANY = '';

/**
 * The named nodes records state triples about and those their institutions link to, each with its
 * record's graph: whether `completeDescriptions` could find anything after a load of records
 * alone. It can when a node is stated in one graph and linked from another (two records with one
 * URL node, say); completing costs 250 ms for 16,000 records, whatever it finds.
 */
class Crossings {
  private readonly stated = new Map<string, string>();
  private readonly linked = new Map<string, string>();

  add(graph: string, institution: string, record: SourceRecord): void {
    const own = `<${institution}>`;
    for (const text of record.ntriples.split('\n')) {
      const line = splitLine(text);
      if (line === undefined || !line.s.startsWith('<')) continue;
      if (line.s !== own) Crossings.note(this.stated, line.s, graph);
      else if (line.o.startsWith('<') && NAMED_LINKS.has(line.p))
        Crossings.note(this.linked, line.o, graph);
    }
  }

  private static note(nodes: Map<string, string>, node: string, graph: string): void {
    const held = nodes.get(node);
    if (held === undefined) nodes.set(node, graph);
    else if (held !== graph) nodes.set(node, MANY);
  }

  /** Whether a node is stated in a graph other than one it is linked from. */
  get crossed(): boolean {
    for (const [node, from] of this.linked) {
      const stated = this.stated.get(node);
      if (stated !== undefined && (stated === MANY || from === MANY || stated !== from))
        return true;
    }
    return false;
  }
}

/** The sources read record by record (each into the graph of its description). */
const RECORD_FORMATS: ReadonlySet<SourceFormat> = new Set(['pica', 'ppxml', 'names', 'redirects']);

function readsRecords(format: SourceFormat): format is 'pica' | 'ppxml' | 'names' | 'redirects' {
  return RECORD_FORMATS.has(format);
}

/** The sha256 of every byte a load reads, and how many it read. */
class VersionHash implements Hasher {
  private readonly hash = crypto.createHash('sha256');
  bytes = 0;

  update(bytes: Buffer): void {
    this.bytes += bytes.length;
    this.hash.update(bytes);
  }

  copy(): crypto.Hash {
    return this.hash.copy();
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

/** The whole file's bytes, fed to the hash. */
function readHashed(fd: number, hash: Hasher): Buffer {
  return Buffer.concat([...chunks(fd, hash)]);
}

/** Whether `value` names the context this service serves (under either form of the base). */
function namesServedContext(value: unknown, baseIri: string): boolean {
  if (typeof value !== 'string' || !value.endsWith(CONTEXT_PATH)) return false;
  const base = value.slice(0, -CONTEXT_PATH.length);
  return base === baseIri || base === otherScheme(baseIri);
}

/**
 * A JSON-LD document with the context this service serves put in place of its IRI: the documents
 * the service serves name it by its absolute IRI under BASE_IRI, which the store's JSON-LD reader
 * does not fetch (and which a deployment not yet public does not answer). Any other document, and
 * one that is not JSON, is handed on as it is: the store's reader says where it is broken. One that
 * is rewritten goes through JSON.parse: an integer beyond 2^53 would lose digits there (JSON-LD
 * makes RDF of numbers by their value, so `1.0` and `1` stay what they were); the service's own
 * documents hold no JSON numbers.
 */
function servedContextInline(bytes: Buffer, baseIri: string): Buffer {
  if (!bytes.includes(CONTEXT_PATH)) return bytes;
  let document: unknown;
  try {
    document = JSON.parse(bytes.toString('utf8'));
  } catch {
    return bytes;
  }
  let replaced = false;
  const inline = (value: unknown): unknown => {
    if (namesServedContext(value, baseIri)) {
      replaced = true;
      return CONTEXT;
    }
    return value;
  };
  // Recursion is safe: the document nests MAX_NESTING_DEPTH levels at most (checkJsonDepth).
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      const object = value as Record<string, unknown>;
      // A value object's content is data (an `@json` literal may hold any key): left as it is.
      if ('@value' in object) return;
      for (const [key, item] of Object.entries(object)) {
        if (key === '@context') object[key] = Array.isArray(item) ? item.map(inline) : inline(item);
        else visit(item);
      }
    }
  };
  visit(document);
  return replaced ? Buffer.from(JSON.stringify(document)) : bytes;
}

function countLines(bytes: Buffer): number {
  let n = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) n++;
  return n;
}

/** The file's bytes into the hash, in chunks (the record readers read the file themselves). */
function hashFile(file: string, hash: Hasher): void {
  const fd = fs.openSync(file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    for (let read; (read = fs.readSync(fd, chunk, 0, chunk.length, null)) > 0;) {
      hash.update(chunk.subarray(0, read));
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** The records of a PICA+ file or a list, converted; a file not well-formed as a whole throws. */
function* recordsOf(
  file: string,
  format: 'pica' | 'ppxml' | 'names' | 'redirects',
  load: Load,
  baseIri: string,
): Generator<SourceRecord | SkippedRecord> {
  if (format === 'names') return yield* readNameList(file, { baseIri });
  if (format === 'redirects') return yield* readRedirectList(file, { baseIri });
  for (const record of readPica(file, format)) {
    if ('malformed' in record) {
      yield {
        origin: `${file}, ${record.position}`,
        id: record.id,
        reason: record.reason,
        kind: 'malformed',
      };
      continue;
    }
    yield convertRecord(record, {
      baseIri,
      origin: `${file}, ${record.position}`,
      blankNodePrefix: load.blankNodePrefix(),
    });
  }
}

function tally(lists: readonly Defect[][]): DefectCount[] {
  const byClass = new Map<DefectClass, { count: number; examples: Defect[] }>();
  for (const defects of lists) {
    for (const defect of defects) {
      const entry = byClass.get(defect.defect) ?? { count: 0, examples: [] };
      entry.count++;
      if (entry.examples.length < DEFECT_EXAMPLES) entry.examples.push(defect);
      byClass.set(defect.defect, entry);
    }
  }
  return [...byClass].map(([defect, { count, examples }]) => ({ defect, count, examples }));
}

/**
 * Loads every source into a new store, resolves ISILs held by several sources, rewrites `http://`
 * base IRIs, optionally validates, and returns the dataset with a report. Throws a LoadError for
 * the first file that is not well-formed; nothing is half-loaded (the store is freed). The event
 * loop turns between pieces of other sources (about a MiB), and every 2 ms while a snapshot loads
 * and is indexed, so a server reloading in the background keeps answering.
 */
export async function loadSources(
  sources: readonly string[],
  options: LoadOptions,
): Promise<Loaded> {
  const files = expandSources(sources, options.format);
  const validator = options.validate
    ? await Validator.start({ workers: options.validationWorkers })
    : undefined;
  const load = new Load(options, files.length > 1, validator);
  try {
    // The store's size, counted as few times as may be: each count is a pass over every quad
    // (about 60 ms for 17,000 institutions).
    let size = 0;
    for (const { file, format } of files) {
      const before = size;
      let records: number | undefined;
      if (readsRecords(format)) {
        hashFile(file, load.hash);
        records = 0;
        try {
          for (const record of recordsOf(file, format, load, options.baseIri)) {
            records++;
            await load.add(record, file);
          }
        } catch (error) {
          if (error instanceof PicaFileError)
            throw new LoadError(file, undefined, undefined, `${error.position}: ${error.reason}`);
          throw error;
        }
        await load.flush();
        size = load.store.size;
      } else {
        size = (await load.loadRdf(file, format)) ?? load.store.size;
      }
      load.files.push({ file, format, records, triples: size - before });
    }
    const from = sources.join(', ');
    // Before the costly steps (placing doubles a load's memory): nothing at all to serve.
    if (options.requireInstitutions && !load.store.ask(anyInstitution(options.baseIri)))
      throw new NoInstitutionError(
        from,
        undefined,
        undefined,
        `holds no institution to serve: none of its ${figure(size)} triples makes a foaf:Organization of an IRI under ${options.baseIri}${RESOURCE_PATH}`,
      );
    const version = load.hash.digest().slice(0, VERSION_LENGTH);
    // A triple two descriptions share is placed in both graphs: one quad more. Every triple of
    // the RDF sources passes here once: their literals are checked on the way.
    const placedFrom = load.placedFrom.length > 0 ? load.placedFrom.join(', ') : from;
    const placed = load.store.placeDescriptions(options.baseIri, (line) =>
      Load.checkLiteral(placedFrom, line),
    );
    // One source's descriptions are whole once placed, unless its records cross; several sources
    // may state triples about a node that another's description links to.
    const combined = files.length > 1 || load.crossings.crossed;
    if (combined) load.store.completeDescriptions(options.baseIri);
    if (placed || combined) size = load.store.size;
    // A snapshot's own index holds when it is the store's only source (not `combined`) and
    // nothing was placed since.
    const rows =
      load.snapshotRows !== undefined && !placed && !combined
        ? DatasetIndex.order(load.snapshotRows)
        : await Dataset.indexRows(load.store);
    const dataset = await Dataset.fromRows(load.store, options.baseIri, version, rows);
    if (load.snapshot && files.length === 1)
      checkInstitutions(load.snapshot.file, load.snapshot.trailer, dataset);
    if (options.requireInstitutions && dataset.institutionCount === 0)
      throw new NoInstitutionError(
        from,
        undefined,
        undefined,
        `holds no institution to serve (${figure(size)} triples, ${figure(dataset.withdrawnCount)} withdrawn ISILs, ${figure(dataset.warnings.length)} warnings)`,
      );
    const defects = await load.validated(dataset);
    return {
      dataset,
      rows,
      report: {
        files: load.files,
        institutions: dataset.institutionCount,
        withdrawn: dataset.withdrawnCount,
        triples: size,
        rewritten: load.rewritten,
        skipped: load.skipped,
        conflicts: load.conflictList(),
        defects: tally(defects),
        defective: defects.length,
        validated: options.validate === true,
        warnings: dataset.warnings,
        version,
      },
    };
  } catch (error) {
    load.store.free();
    if (isStringTooLong(error))
      throw new LoadError(
        sources.join(', '),
        undefined,
        undefined,
        `more data than one load can hold (${(error as Error).message}; docs/loading.md)`,
      );
    throw error;
  } finally {
    await validator?.close();
  }
}

/** Whether the store has anything that may be an institution: a foaf:Organization under the base. */
function anyInstitution(baseIri: string): string {
  return `ASK { ?i a <${PREFIXES.foaf}Organization> FILTER(isIRI(?i) && STRSTARTS(STR(?i), ${JSON.stringify(`${baseIri}${RESOURCE_PATH}`)})) }`;
}

/** Refuses a literal longer than MAX_LITERAL_LENGTH in `ntriples` (a dump of `file`'s triples). */
function checkLiterals(file: string, ntriples: string): void {
  for (let start = 0, end; start < ntriples.length; start = end + 1) {
    end = ntriples.indexOf('\n', start);
    if (end === -1) end = ntriples.length;
    if (end - start <= MAX_LITERAL_LENGTH) continue;
    const line = splitLine(ntriples.slice(start, end));
    if (line) Load.checkLiteral(file, line);
  }
}

/**
 * The length in characters of the literal `term` (an N-Triples term) when it may be longer than
 * MAX_LITERAL_LENGTH; undefined for any other term. Escapes only make a term longer than its
 * value, so a short term is not decoded.
 */
function literalLength(term: string): number | undefined {
  if (term.length <= MAX_LITERAL_LENGTH || !term.startsWith('"')) return undefined;
  const value = lexicalForm(term);
  let length = 0;
  // Code points, as SPARQL's STRLEN counts: the second half of a surrogate pair is not one.
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0xdc00 || unit > 0xdfff) length++;
  }
  return length;
}

/** The base under the other scheme: `http://` for `https://`, and the reverse. */
function otherScheme(baseIri: string): string {
  return baseIri.startsWith('https://')
    ? `http://${baseIri.slice(8)}`
    : `https://${baseIri.slice(7)}`;
}

/**
 * Data minted with `http://` for an `https://` base (or the reverse) is served under the configured
 * base (DATA-MODEL.md, Identifiers). Subjects and objects are rewritten; returns how many triples.
 */
export function rewriteHttpBase(store: DatasetStore, baseIri: string): number {
  const from = JSON.stringify(`${otherScheme(baseIri)}/`);
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
