// Turns source files (RDF in every format, PICA+, the name and redirect lists) into a loaded
// Dataset, resolving ISILs held by several sources, and writes snapshots: the one loading path
// shared by the server and the command line.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SaxesParser } from 'saxes';
import { Dataset, DatasetIndex, type DataWarning } from '../src/dataset';
import { parseModified } from '../src/rdf/description';
import {
  descriptionIri,
  descriptionIriOf,
  institutionIri,
  isilOfInstitutionIri,
} from '../src/rdf/iris';
import { isilDefect, isilKey, type Isil } from '../src/rdf/isil';
import { CONTEXT, CONTEXT_PATH } from '../src/rdf/context';
import { PREFIXES } from '../src/rdf/namespaces';
import { DatasetStore, type SelectBinding, type StoreFormat } from '../src/store/datasetStore';
import { MAX_BLANK_NODE_DEPTH, NAMED_LINKS, splitLine } from '../src/store/descriptions';
import { checkedIri } from '../src/store/queries';
import { nextTurn, TimeSlicer, UNCONTENDED_STEP_MS } from '../src/timeSlice';
import { LoadError } from './loadError';
import { readNameList, readRedirectList, sniffList } from './lists';
import { convertRecord } from './pica/convert';
import { PicaFileError, readPica, sniffPica } from './pica/read';
import type { SkippedRecord, SourceRecord } from './records';
import { Validator, type Defect, type DefectClass, type Institution } from './validate';

/** Re-exported: the error every caller of the loader handles. */
export { LoadError };

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
}

/** Hex digits of the sha256 of the bytes loaded that make a dataset's version. */
const VERSION_LENGTH = 12;
/** Input is handed to the store in batches of about this size, with a turn of the event loop between. */
const CHUNK_BYTES = 1 << 20;
/**
 * Snapshots mark a safe place to split every this many bytes (see `writeSnapshot`): a piece this
 * size parses in about a millisecond, so a reload can let requests in every few milliseconds.
 */
const SNAPSHOT_CHUNK_BYTES = 1 << 14;
/** A line that marks a place in a snapshot where no blank node is shared across (an N-Quads comment). */
const CHUNK_MARK = '# chunk\n';
/**
 * The start of a snapshot's last line: the index of its institutions as `Dataset.indexRows` reads
 * them, written with the sha256 of every byte before the line and of the index query (see
 * `writeSnapshot`). A server starting from the snapshot takes the index from it instead of
 * querying the store for it: the query is about 0.6 s of a start with 17,000 institutions. A line
 * whose hashes do not match the bytes read (a snapshot edited by hand) or the query (one changed
 * since), or whose rows are not rows of that query, is ignored, and the store is queried.
 */
const INDEX_LINE = '# index ';
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

/**
 * The first line of a snapshot this loader wrote: N-Quads allows comments. A snapshot written for
 * the configured base needs neither the base rewrite nor validation again (a full pass each).
 */
export function snapshotHeader(baseIri: string): string {
  return `# isil-ld snapshot; base <${baseIri}>\n`;
}

function startsWith(fd: number, text: string): boolean {
  const head = Buffer.alloc(Buffer.byteLength(text));
  const read = fs.readSync(fd, head, 0, head.length, 0);
  return startsWithText(head.subarray(0, read), text);
}

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

/** The files to read: given files as they are, folders walked in name order for known extensions. */
export function expandSources(
  sources: readonly string[],
  format?: SourceFormat,
): { file: string; format: SourceFormat }[] {
  const files: { file: string; format: SourceFormat }[] = [];
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
    const known = format ?? EXTENSIONS[path.extname(entry).toLowerCase()];
    if (known) {
      if (stat.size === 0) throw new LoadError(entry, undefined, undefined, 'the file is empty');
      files.push({ file: entry, format: detect(entry, known) });
    } else if (given) {
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
function locate(file: string, error: Error, lineOffset = 0): LoadError {
  const message = error.message;
  const at = /line (\d+)(?: between columns (\d+) and \d+| column (\d+))?/i.exec(message);
  if (at) {
    return new LoadError(file, Number(at[1]) + lineOffset, Number(at[2] ?? at[3] ?? 1), message);
  }
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  return new LoadError(
    file,
    lines.length,
    (lines.at(-1)?.length ?? 0) + 1,
    `${message} (at the end of the file)`,
  );
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
 * How strongly a record holds its ISIL (decided, README "Conflicts"): a name-only record yields to
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
  readonly hash = crypto.createHash('sha256');
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
   * The index rows of the snapshot loaded, when it ended with an index that matched its bytes
   * (INDEX_LINE) and was the only source: only then can they describe the store.
   */
  snapshotRows: SelectBinding[] | undefined;
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
   * with a turn of the event loop between.
   */
  async loadRdf(file: string, format: StoreFormat): Promise<void> {
    await this.flush();
    const direct = this.store.size === 0;
    const target = direct ? this.store : new DatasetStore();
    try {
      const fd = fs.openSync(file, 'r');
      let snapshot: boolean;
      try {
        snapshot = format === 'nq' && startsWith(fd, snapshotHeader(this.options.baseIri));
        if (format === 'rdf') checkXml(file, fs.readFileSync(file));
        if (snapshot) await this.loadSnapshot(target, file, fd);
        else {
          try {
            const input =
              format === 'jsonld'
                ? servedContextInline(readHashed(fd, this.hash), this.options.baseIri)
                : chunks(fd, this.hash);
            target.load(input, format, `${this.options.baseIri}/`);
          } catch (error) {
            throw locate(file, error as Error);
          }
        }
      } finally {
        fs.closeSync(fd);
      }
      if (!snapshot) {
        target.mergeGraphs();
        this.rewritten += rewriteHttpBase(target, this.options.baseIri);
      }
      if (this.resolving) this.register(target, file);
      else this.unregistered = true;
      this.removeOutweighed();
      if (!direct) this.store.load(target.dump(), 'nq', undefined, true);
    } finally {
      if (!direct) target.free();
    }
    await nextTurn();
  }

  /**
   * A snapshot in pieces that end at its chunk marks, which `writeSnapshot` puts only where no
   * blank node spans them (each `load` call labels blank nodes anew). The event loop turns whenever
   * a time slice is used up, so a server reloading answers requests every few milliseconds. One
   * without marks (written by an older loader) is one piece.
   */
  private async loadSnapshot(target: DatasetStore, file: string, fd: number): Promise<void> {
    const size = fs.fstatSync(fd).size;
    const mark = Buffer.from(`\n${CHUNK_MARK}`);
    const slicer = new TimeSlicer();
    /** Bytes parsed a millisecond, as the last call into the store took them. */
    let rate = SNAPSHOT_CHUNK_BYTES;
    let carry: Buffer = Buffer.alloc(0);
    let lines = 0;
    // Hashed piece by piece, not as read: the index line is checked against the bytes before it.
    const load = (piece: Buffer) => {
      this.hash.update(piece);
      try {
        target.load(piece, 'nq', undefined, true);
      } catch (error) {
        throw locate(file, error as Error, lines);
      }
      lines += countLines(piece);
    };
    const last = (piece: Buffer) => {
      // A piece starts with the mark that ended the one before it.
      const at = startsWithText(piece, CHUNK_MARK) ? CHUNK_MARK.length : 0;
      const line = piece.subarray(at);
      // Only a whole last line is an index: whatever follows it (appended by hand) is loaded, and
      // the store is queried for the index.
      if (!startsWithText(line, INDEX_LINE) || line.indexOf(0x0a) !== line.length - 1)
        return load(piece);
      this.hash.update(piece.subarray(0, at));
      const before = this.hash.copy().digest('hex');
      this.hash.update(line);
      if (!this.resolving) this.snapshotRows = indexOf(line, before, target);
    };
    for (let offset = 0; offset < size;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - offset));
      const read = fs.readSync(fd, chunk, 0, chunk.length, offset);
      if (read === 0)
        throw new LoadError(file, undefined, undefined, 'the file shrank as it was read');
      offset += read;
      const text =
        carry.length > 0
          ? Buffer.concat([carry, chunk.subarray(0, read)])
          : chunk.subarray(0, read);
      let start = 0;
      for (let end = text.indexOf(mark); end !== -1; end = text.indexOf(mark, start)) {
        // Unless requests wait, as many pieces at once as parse in a slice: each call into the
        // store costs, above all while its memory grows (a first load of 16 KiB pieces one by
        // one took twice as long). When they wait, one piece, so that a slice ends on time.
        const enough = slicer.contended ? start : start + rate * UNCONTENDED_STEP_MS;
        for (let next = end; next !== -1 && next < enough; next = text.indexOf(mark, next + 1))
          end = next;
        const began = performance.now();
        load(text.subarray(start, end + 1));
        rate = (end + 1 - start) / Math.max(performance.now() - began, 0.1);
        start = end + 1;
        await slicer.pause();
      }
      if (offset < size) carry = text.subarray(start);
      else if (start < text.length) last(text.subarray(start));
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

/** The file's bytes in chunks, fed to the hash as they are read. */
function* chunks(fd: number, hash: crypto.Hash): Generator<Buffer> {
  const size = fs.fstatSync(fd).size;
  for (let offset = 0; offset < size; offset += CHUNK_BYTES) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - offset));
    const read = fs.readSync(fd, chunk, 0, chunk.length, offset);
    const bytes = chunk.subarray(0, read);
    hash.update(bytes);
    yield bytes;
  }
}

/** The whole file's bytes, fed to the hash. */
function readHashed(fd: number, hash: crypto.Hash): Buffer {
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
function hashFile(file: string, hash: crypto.Hash): void {
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
      } else {
        await load.loadRdf(file, format);
      }
      size = load.store.size;
      load.files.push({ file, format, records, triples: size - before });
    }
    const version = load.hash.digest('hex').slice(0, VERSION_LENGTH);
    // A triple two descriptions share is placed in both graphs: one quad more.
    const placed = load.store.placeDescriptions(options.baseIri);
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
    throw error;
  } finally {
    await validator?.close();
  }
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

/**
 * The blank-node labels of an N-Quads line: each `_:` at its start or after a space, up to the
 * next space (a label in a literal counts too, which only joins groups that need not be). A scan,
 * not a regular expression: this runs over every line of every snapshot.
 */
function labelsOf(line: string): string[] {
  const labels: string[] = [];
  for (let at = line.indexOf('_:'); at !== -1; at = line.indexOf('_:', at + 2)) {
    if (at > 0 && line[at - 1] !== ' ') continue;
    const end = line.indexOf(' ', at + 2);
    if (end === -1) break;
    if (end === at + 2) continue;
    labels.push(line.slice(at, end));
    at = end - 1;
  }
  return labels;
}

/**
 * The store's N-Quads in pieces of about SNAPSHOT_CHUNK_BYTES, each ended by a chunk mark (a
 * comment line), with every group of blank nodes inside one piece: the loader can hand a snapshot
 * to the store piece by piece, since each `load` call labels blank nodes anew. Blank nodes that
 * share a line are one group (union-find over their labels). Pieces are yielded, not joined, so
 * that writing a snapshot holds the dump once, not three times.
 */
export function* chunkedNQuads(nquads: string): Generator<string> {
  const lines = nquads.split('\n');
  const parent = new Map<string, string>();
  const find = (label: string): string => {
    let root = label;
    for (let up = parent.get(root); up !== undefined && up !== root; up = parent.get(root))
      root = up;
    parent.set(label, root);
    return root;
  };
  /** The first blank-node label of each line that has one, by line number. */
  const firsts: (string | undefined)[] = [];
  lines.forEach((line, n) => {
    const labels = labelsOf(line);
    const first = labels[0];
    if (first === undefined) return;
    firsts[n] = first;
    if (!parent.has(first)) parent.set(first, first);
    for (const label of labels.slice(1)) {
      if (!parent.has(label)) parent.set(label, label);
      const a = find(first);
      const b = find(label);
      if (a !== b) parent.set(b, a);
    }
  });
  const groups = new Map<string, string[]>();
  let piece: string[] = [];
  let size = 0;
  const add = (text: string): string | undefined => {
    piece.push(text);
    size += text.length;
    if (size < SNAPSHOT_CHUNK_BYTES) return undefined;
    piece.push(CHUNK_MARK);
    const full = piece.join('');
    piece = [];
    size = 0;
    return full;
  };
  for (const [n, line] of lines.entries()) {
    if (line === '') continue;
    const first = firsts[n];
    if (first === undefined) {
      const full = add(`${line}\n`);
      if (full !== undefined) yield full;
      continue;
    }
    const root = find(first);
    const group = groups.get(root);
    if (group) group.push(line);
    else groups.set(root, [line]);
  }
  for (const group of groups.values()) {
    const full = add(`${group.join('\n')}\n`);
    if (full !== undefined) yield full;
  }
  if (piece.length > 0) yield piece.join('');
}

/** Which index query a snapshot's index was read with: one changed since makes it stale. */
function queryHash(store: DatasetStore): string {
  return crypto.createHash('sha256').update(store.indexQuery).digest('hex').slice(0, 16);
}

/** Whether `value` is a term of a SELECT row as `DatasetStore.select` makes them. */
function isBoundTerm(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { type, value: text } = value as { type?: unknown; value?: unknown };
  return (type === 'uri' || type === 'bnode' || type === 'literal') && typeof text === 'string';
}

/**
 * The rows of a snapshot's index line (INDEX_LINE), when `before` (the sha256 of every byte before
 * it) is the hash it was written with, `store`'s index query the one it was read with, and every
 * row has the shape of a row of that query; otherwise none.
 */
function indexOf(line: Buffer, before: string, store: DatasetStore): SelectBinding[] | undefined {
  let index: unknown;
  try {
    index = JSON.parse(line.subarray(INDEX_LINE.length).toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof index !== 'object' || index === null) return undefined;
  const { sha256, query, rows } = index as { sha256?: unknown; query?: unknown; rows?: unknown };
  if (sha256 !== before || query !== queryHash(store) || !Array.isArray(rows)) return undefined;
  const wellFormed = rows.every(
    (row: unknown) =>
      typeof row === 'object' &&
      row !== null &&
      isBoundTerm((row as SelectBinding).institution) &&
      Object.values(row).every(isBoundTerm),
  );
  return wellFormed ? (rows as SelectBinding[]) : undefined;
}

/** Whether `buffer` starts with the UTF-8 bytes of `text`. */
function startsWithText(buffer: Buffer, text: string): boolean {
  const bytes = Buffer.from(text);
  return buffer.length >= bytes.length && buffer.subarray(0, bytes.length).equals(bytes);
}

/** What `writeSnapshot` wrote. */
export interface WrittenSnapshot {
  readonly bytes: number;
  /** The version a server loading the snapshot shows (`/readyz`, `Dataset-Version`). */
  readonly version: string;
}

/**
 * Writes the store as an N-Quads snapshot: to a temporary file beside the target, flushed to disk,
 * then renamed over it, so a reader sees the old snapshot or the new one, never a part.
 */
export function writeSnapshot(
  { dataset, rows }: Pick<Loaded, 'dataset' | 'rows'>,
  target: string,
): WrittenSnapshot {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const temporary = `${target}.tmp-${process.pid}`;
  let bytes = 0;
  // The version is the hash of the bytes a load reads (see `Load.hash`): these, once renamed.
  const hash = crypto.createHash('sha256');
  const write = (fd: number, text: string) => {
    const buffer = Buffer.from(text);
    hash.update(buffer);
    bytes += fs.writeSync(fd, buffer);
  };
  try {
    const fd = fs.openSync(temporary, 'w');
    try {
      write(fd, snapshotHeader(dataset.baseIri));
      let ended = false;
      for (const piece of chunkedNQuads(dataset.store.dump())) {
        write(fd, piece);
        ended = piece.endsWith(CHUNK_MARK);
      }
      // Blank nodes are labelled anew by every load: rows naming one would not match the store.
      if (rows.every((row) => Object.values(row).every((term) => term?.type !== 'bnode'))) {
        // The index is a piece of its own, so that a load finds it whole at the end.
        if (!ended) write(fd, CHUNK_MARK);
        const line = JSON.stringify({
          sha256: hash.copy().digest('hex'),
          query: queryHash(dataset.store),
          rows,
        });
        write(fd, `${INDEX_LINE}${line}\n`);
      }
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, target);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  return { bytes, version: hash.digest('hex').slice(0, VERSION_LENGTH) };
}
