// One load in progress: the store being filled, what is known of each ISIL held (the one source
// whose record wins), the records batched for the store, and the report's tallies. RDF files are
// read into it by rdfFile.ts; loadSources.ts drives it. Also whether records cross (`Crossings`).
import { parseModified } from '../../rdf/description';
import { descriptionIri, institutionIri, isilOfInstitutionIri } from '../../rdf/iris';
import { isilDefect, isilKey, type Isil } from '../../rdf/isil';
import type { Dataset } from '../../store/dataset';
import type { SelectBinding } from '../../store/bindings';
import { DatasetStore } from '../../store/embedded/datasetStore';
import { removeDescriptions } from '../../store/embedded/updates';
import { NAMED_LINKS } from '../../store/descriptions';
import { checkedIri } from '../../store/queries';
import { lines, splitLine } from '../../rdf/ntriples';
import { nextTurn } from '../../util/timeSlice';
import { checkLiterals, MAX_LITERAL_LENGTH } from '../limits';
import { CHUNK_BYTES, VersionHash } from '../reading';
import { malformed } from '../read/listRecords';
import type { ReadRecord } from '../read/readers';
import { LinkSet, PositionSet } from './wikidataSets';
import { outweighs, weigh, type SourceRecord, type Weight } from '../../mapping/sourceRecord';
import type { CodeWarning } from '../../mapping/pica/codeCheck';
import type { Conflict, FileReport, LoadOptions, Skipped } from '../report';
import type { Trailer } from '../snapshot/snapshot';

/** What the loader keeps of each ISIL to resolve conflicts: small, never the record's text. */
interface Entry {
  /** The ISIL as the loaded record spells it (its IRI is minted from this spelling). */
  readonly isil: string;
  readonly origin: string;
  /** Which file it came from, so that an RDF file's case twins are not taken for a conflict. */
  readonly file: string;
  readonly weight: Weight;
  /** From an RDF source. */
  readonly rdf: boolean;
  /** Whether the shapes check its description, when the load validates. */
  readonly validated: boolean;
  /** Its place in the batch not yet handed to the store, if it is there. */
  pending: number | undefined;
}

/** One load: the store being filled, what is known of each ISIL, and the report's tallies. */
export class Load {
  readonly store = new DatasetStore();
  /** Every byte read, in order: what the states cache knows sources by (`LoadOptions.statesCache`). */
  readonly hash = new VersionHash();
  /** The bytes of every source together, for progress: set before they are read. */
  inputBytes = 0;
  private bytesRead = 0;

  /** Counts bytes read from the sources, and tells the progress callback in MiB. */
  readBytes(bytes: number): void {
    this.bytesRead += bytes;
    const mib = (n: number) => Math.round(n / (1024 * 1024));
    this.options.onProgress?.('reading', mib(this.bytesRead), mib(this.inputBytes), 'MiB');
  }
  readonly files: FileReport[] = [];
  readonly skipped: Skipped[] = [];
  /** What records said that no list knows, warned of in the report. */
  readonly warnings: CodeWarning[] = [];
  /** The links of links sources, placed at the end of the load (`LinkSet.place`). */
  readonly links = new LinkSet();
  /** Wikidata's positions, placed once the links are (`PositionSet.place`). */
  readonly positions = new PositionSet();
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
  /**
   * The only source was an N-Triples file parsed straight into the graphs of its descriptions
   * (placedNTriples.ts): nothing is left to place.
   */
  placedWhileRead = false;
  /** An RDF file was loaded without weighing its institutions (it was the only source). */
  unregistered = false;
  rewritten = 0;

  constructor(
    readonly options: LoadOptions,
    /** Whether several sources are read: only then can an ISIL be held twice. */
    readonly resolving: boolean,
  ) {}

  /**
   * Weighs the entry of a record against the one held of its ISIL; returns whether it is to be
   * loaded, and then holds it. The held one, when outweighed, is taken out of the batch at once,
   * or queued for removal from the store before the next batch loads.
   */
  private contest(entry: Entry): boolean {
    const key = isilKey(entry.isil);
    const held = this.entries.get(key);
    if (held !== undefined) {
      const wins = outweighs(entry.weight, held.weight);
      const conflict = this.conflicts.get(key) ?? { isil: '', origins: [held.origin], winner: '' };
      conflict.origins.push(entry.origin);
      conflict.winner = wins ? entry.origin : held.origin;
      conflict.isil = wins ? entry.isil : held.isil;
      this.conflicts.set(key, conflict);
      if (!wins) return false;
      if (held.pending !== undefined) {
        this.pendingBytes -= this.pending[held.pending]!.length;
        this.pending[held.pending] = '';
      } else this.outweighed.push(institutionIri(this.options.baseIri, held.isil as Isil));
      // The winner is listed where a new entry is, last.
      this.entries.delete(key);
    }
    this.entries.set(key, entry);
    return true;
  }

  /**
   * Takes one record of a PICA+ file or a list: checked, weighed, batched. Links are
   * held apart: they compete with no record, and are placed once the institutions are known.
   */
  async add(record: ReadRecord, file: string): Promise<void> {
    if ('kind' in record) {
      if (record.kind === 'links') this.links.add(record, file);
      else if (record.kind === 'positions') this.positions.add(record, file);
      else this.skipped.push(record);
      return;
    }
    if (record.warnings?.length) this.warnings.push(...record.warnings);
    // A record's literals are not placed (it goes into its graph whole): checked here, where
    // the record's position is known.
    if (record.ntriples.length > MAX_LITERAL_LENGTH) checkLiterals(record.origin, record.ntriples);
    const defect = isilDefect(record.isil);
    if (defect !== undefined) {
      const reason = `"${record.isil}" is not a well-formed ISIL (${defect})`;
      this.skipped.push(malformed(record.origin, record.isil, reason));
      return;
    }
    const entry: Entry = {
      isil: record.isil,
      origin: record.origin,
      file,
      weight: weigh(record.status, record.modified),
      rdf: false,
      // A name-only record is a checked ISIL and a name that is not empty, made by this loader:
      // the shapes could find nothing more in it.
      validated: record.status === 'published',
      pending: this.pending.length,
    };
    if (!this.contest(entry)) return;
    this.pendingEntries.push(entry);
    const graph = descriptionIri(this.options.baseIri, record.isil as Isil);
    this.crossings.add(graph, institutionIri(this.options.baseIri, record.isil as Isil), record);
    const quads = inGraph(record.ntriples, graph);
    this.pending.push(quads);
    this.pendingBytes += quads.length;
    if (this.pendingBytes >= CHUNK_BYTES) await this.flush();
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

  removeOutweighed(): void {
    removeDescriptions(this.store, this.outweighed);
    this.outweighed = [];
  }

  /** A prefix for the blank-node labels of the next record: unique within every batch. */
  blankNodePrefix(): string {
    return `r${(this.blankNodes++).toString(36)}x`;
  }

  /** Weighs each institution of a store just loaded from `file`; removes those that lose from it. */
  register(target: DatasetStore, file: string): void {
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
        validated: !withdrawn,
        pending: undefined,
      };
      if (!this.contest(entry)) losers.push(iri);
    }
    removeDescriptions(target, losers);
  }

  /**
   * The ISILs whose descriptions the shapes check, in the order the report lists their defects:
   * the records' in the order they were taken, then those of RDF sources (every live institution
   * of an RDF file loaded without weighing).
   */
  validated(dataset: Dataset<DatasetStore>): string[] {
    const entries = [...this.entries.values()];
    const records = entries.filter((e) => !e.rdf && e.validated).map((e) => e.isil);
    const rdf = this.unregistered
      ? [...dataset.institutions()].map((i) => i.isil as string)
      : entries.filter((e) => e.rdf && e.validated).map((e) => e.isil);
    return [...records, ...rdf];
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
 * URL node, say); completing costs an update over every record's links, whatever it finds
 * (docs/benchmark.md, "descriptions completed").
 */
class Crossings {
  private readonly stated = new Map<string, string>();
  private readonly linked = new Map<string, string>();

  add(graph: string, institution: string, record: SourceRecord): void {
    const own = `<${institution}>`;
    for (const text of lines(record.ntriples)) {
      const line = splitLine(text);
      if (line === undefined || !line.s.startsWith('<')) continue;
      if (line.s !== own) Crossings.note(this.stated, line.s, graph);
      else if (line.o.startsWith('<') && NAMED_LINKS.has(line.p))
        Crossings.note(this.linked, line.o, graph);
    }
  }

  private static note(nodes: Map<string, string>, node: string, graph: string): void {
    const held = nodes.get(node);
    // The node is a slice of the record's text, which a key would keep alive whole: a copy.
    if (held === undefined) nodes.set((' ' + node).slice(1), graph);
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
