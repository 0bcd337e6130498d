// A loaded dataset read canonically, graph by graph: each institution's canonical description with
// its links and its hash (the history's states), and the snapshot's lines in their canonical order
// (docs/loading.md, "The snapshot's order"). The descriptions are held deflated, a block at a time,
// until the change log has read them.
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { HASH_LENGTH, versionOf } from '../../history/canonical';
import type { InstitutionState } from '../../history/model';
import { descriptionIri, linksGraphIri } from '../../rdf/iris';
import type { Isil } from '../../rdf/isil';
import { PREFIXES } from '../../rdf/namespaces';
import { lines, splitLine, type Triple } from '../../rdf/ntriples';
import type { Dataset } from '../../store/dataset';
import type { DatasetStore } from '../../store/embedded/datasetStore';
import type { OnProgress } from '../report';
import type { DescribedResult, DescriptionJob, Subject } from './describeBatch';
import { DescribePool } from './describePool';
import type { Defect } from './shapes';
import { push, restLines, type TextQuad } from './restLabels';
import { PieceWriter, type PieceSink } from '../snapshot/snapshotPieces';
import type { SnapshotWriter } from '../snapshot/snapshotWriter';

const SAME_AS = `<${PREFIXES.owl}sameAs>`;

/** What a version is, for its history (`Loaded.history`). */
export interface VersionHistory {
  /** Every ISIL's state, live and withdrawn, by ISIL as spelled. */
  readonly states: ReadonlyMap<string, InstitutionState>;
  /**
   * The canonical description with its links of every ISIL (`canonicalDescription`); empty when
   * the states were taken from a snapshot's trailer or the states cache.
   */
  readonly descriptions: ReadonlyMap<string, string>;
  /** The hash of the rest: the links graph and every quad outside the descriptions. */
  readonly rest: string;
  /** `versionOf(states, rest)`: the dataset's version. */
  readonly version: string;
}

/** A dataset read canonically: its history, and the snapshot its pieces went to, if any. */
export interface CanonicalDataset {
  readonly history: VersionHistory;
  /**
   * The snapshot being written (`LoadOptions.snapshot`): its quads (the description graphs, the
   * links graph, the rest) are in, in pieces that end with a chunk mark where one may go
   * (`PieceWriter`); its trailer is not.
   */
  readonly snapshot?: SnapshotWriter;
}

/** Canonical texts deflated together, for the change log. */
const TEXT_BLOCK = 50;

/** What the describe stage validates, and where each description's defects go. */
export interface Validation {
  /** The ISILs whose descriptions the shapes check. */
  readonly isils: ReadonlySet<string>;
  readonly found: (isil: string, defects: Defect[]) => void;
}

/**
 * Reads the store of `dataset` canonically, graph by graph: what no description holds first (the
 * default graph, the links graph, other graphs), then each description graph in ISIL order, with
 * canonical labels made unique to it (`_:d<n>b<i>` for the n-th), its lines made pieces of the
 * snapshot at once, put to `sink` as each ends, then the rest (`restLines`). Each description is
 * described by `pool` (describeBatch.ts; in this thread without one) and, when `validation` names
 * it, validated. No dump of the whole store is held, nor the pieces. A description past the work
 * limit is a LoadError naming its ISIL.
 */
export async function canonicalDataset(
  dataset: Dataset<DatasetStore>,
  onProgress?: OnProgress,
  pool?: DescribePool,
  validation?: Validation,
  sink?: PieceSink,
): Promise<{ history: VersionHistory }> {
  const { baseIri, store } = dataset;
  const linksGraph = `<${linksGraphIri(baseIri)}>`;

  const subjects = subjectsOf(dataset);
  const { rest, shared, sameAs, named } = readRest(store, subjects, linksGraph);
  const states = new Map<string, InstitutionState>();
  const descriptions = new DeflatedTexts();
  let keys: string[] = [];
  let texts: string[] = [];
  const deflate = () => {
    if (keys.length > 0) descriptions.add(deflateBlock(keys, texts));
    keys = [];
    texts = [];
  };
  const writer = sink && new PieceWriter(sink);
  const anchors = new Map<string, string>();
  const take = (jobs: readonly DescriptionJob[], results: readonly DescribedResult[]) => {
    results.forEach((made, k) => {
      const { isil } = jobs[k]!.subject;
      for (const [term, label] of made.anchors) anchors.set(term, label);
      writer?.add(made.lines, new Set(made.later));
      keys.push(isil);
      texts.push(made.text);
      if (keys.length >= TEXT_BLOCK) deflate();
      states.set(isil, made.state);
      if (made.defects) validation?.found(isil, made.defects);
    });
  };
  const jobs = function* (): Generator<DescriptionJob> {
    for (const [n, subject] of subjects.entries()) {
      // Told every thousand institutions, as records are: a small load shows no such phase.
      if (n % 1000 === 0 && n > 0)
        onProgress?.('canonicalising', n, subjects.length, 'institutions');
      yield {
        subject,
        n,
        own: named.has(subject.graph) ? graphText(store, subject.graph) : '',
        linked: sameAs.get(`<${subject.iri}>`),
        shared: shared.get(n) ?? [],
        validate: validation?.isils.has(subject.isil) ?? false,
      };
    }
  };
  const describer = pool ?? DescribePool.start({ workers: 0 });
  await describer.describeAll(baseIri, jobs(), subjects.length, take);
  if (subjects.length > 1000)
    onProgress?.('canonicalising', subjects.length, subjects.length, 'institutions');
  deflate();
  const { tail, restHash } = restTail(rest, anchors, linksGraph);
  writer?.add(tail);
  writer?.flush();
  return {
    history: { states, descriptions, rest: restHash, version: versionOf(states, restHash) },
  };
}

/**
 * What no description holds, labelled together (a blank node may be in several graphs; those a
 * description holds too keep the label it gave them, `anchors`), the links graph's lines first;
 * and the hash of those lines.
 */
function restTail(
  rest: readonly TextQuad[],
  anchors: ReadonlyMap<string, string>,
  linksGraph: string,
): { tail: string[]; restHash: string } {
  const used = new Map<string, string>();
  for (const q of rest)
    for (const term of [q.s, q.o]) {
      const label = anchors.get(term);
      if (label !== undefined) used.set(term, label);
    }
  const written = restLines(rest, used);
  const inLinks = ` ${linksGraph} .`;
  const tail = [
    ...written.filter((line) => line.endsWith(inLinks)),
    ...written.filter((line) => !line.endsWith(inLinks)),
  ];
  const restHash = crypto
    .createHash('sha256')
    .update(tail.map((line) => `${line}\n`).join(''))
    .digest('hex')
    .slice(0, HASH_LENGTH);
  return { tail, restHash };
}

/** Every ISIL of the dataset, live and withdrawn, in ISIL order. */
function subjectsOf(dataset: Dataset<DatasetStore>): Subject[] {
  const subjects: Subject[] = [];
  const graphOf = (isil: string) => `<${descriptionIri(dataset.baseIri, isil as Isil)}>`;
  for (const i of dataset.institutions())
    subjects.push({ isil: i.isil, iri: i.iri, live: true, graph: graphOf(i.isil) });
  for (const w of dataset.withdrawnInstitutions())
    subjects.push({ isil: w.isil, iri: w.iri, live: false, graph: graphOf(w.isil) });
  return subjects.sort((a, b) => (a.isil < b.isil ? -1 : a.isil > b.isil ? 1 : 0));
}

/**
 * What no description holds, in the order the store lists its graphs, the default graph first;
 * by description number, its blank nodes the rest holds too that it labels (a blank node in
 * several descriptions takes the label the last, by number, gives it); the links by institution;
 * and the store's named graphs.
 */
function readRest(
  store: DatasetStore,
  subjects: readonly Subject[],
  linksGraph: string,
): {
  rest: TextQuad[];
  shared: Map<number, string[]>;
  sameAs: Map<string, Triple[]>;
  named: Set<string>;
} {
  const named = new Set(store.graphNames());
  const described = new Set(subjects.map((s) => s.graph));
  const rest: TextQuad[] = [...quadsOf(store, '')];
  for (const graph of named) if (!described.has(graph)) rest.push(...quadsOf(store, graph));
  const blanks = new Set<string>();
  for (const q of rest) for (const term of [q.s, q.o]) if (term.startsWith('_:')) blanks.add(term);
  const owner = new Map<string, number>();
  if (blanks.size > 0)
    for (const [n, { graph }] of subjects.entries())
      if (named.has(graph))
        for (const q of quadsOf(store, graph))
          for (const term of [q.s, q.o]) if (blanks.has(term)) owner.set(term, n);
  const sameAs = new Map<string, Triple[]>();
  for (const q of rest)
    if (q.g === linksGraph && q.p === SAME_AS) push(sameAs, q.s, { s: q.s, p: q.p, o: q.o });
  const shared = new Map<number, string[]>();
  for (const [term, n] of owner) push(shared, n, term);
  return { rest, shared, sameAs, named };
}

/** The N-Triples of one graph of the store (`''`: the default graph), as Oxigraph writes them. */
function graphText(store: DatasetStore, graph: string): string {
  return store.graphTriples(graph === '' ? undefined : graph.slice(1, -1));
}

/** The quads of one graph of the store (`''`: the default graph), as Oxigraph writes them. */
function quadsOf(store: DatasetStore, graph: string): TextQuad[] {
  const quads: TextQuad[] = [];
  for (const written of lines(graphText(store, graph))) {
    const line = splitLine(written);
    if (line === undefined) throw new Error(`not a triple as the store writes them: ${written}`);
    quads.push({ s: line.s, p: line.p, o: line.o, g: graph });
  }
  return quads;
}

/** Texts deflated as one block: what `DeflatedTexts.add` takes. */
export interface TextBlock {
  /** Each text's key, in the block's order. */
  readonly keys: readonly string[];
  /** Each text's length (UTF-16 code units), in the block's order. */
  readonly lengths: readonly number[];
  /** The texts joined, as UTF-8, deflated. */
  readonly deflated: Uint8Array;
}

/** Deflates `texts` (keyed by `keys`, in order) as one block. */
export function deflateBlock(keys: readonly string[], texts: readonly string[]): TextBlock {
  return {
    keys,
    lengths: texts.map((text) => text.length),
    // The fastest level: the texts are held for minutes at most, and deflating is on the reading's
    // path.
    deflated: zlib.deflateRawSync(texts.join(''), { level: 1 }),
  };
}

/**
 * Texts by key, held a deflated block at a time; a block is inflated when one of its texts is
 * read, and kept until a text of another is (readers go in the blocks' order: the change log
 * reads by ISIL, as the reading made them).
 */
export class DeflatedTexts implements ReadonlyMap<string, string> {
  private readonly where = new Map<string, { block: number; start: number; end: number }>();
  private readonly blocks: Uint8Array[] = [];
  private inflated: { block: number; text: string } | undefined;

  add({ keys, lengths, deflated }: TextBlock): void {
    const block = this.blocks.push(deflated) - 1;
    let start = 0;
    keys.forEach((key, i) => {
      const end = start + lengths[i]!;
      this.where.set(key, { block, start, end });
      start = end;
    });
  }

  get size(): number {
    return this.where.size;
  }

  has(key: string): boolean {
    return this.where.has(key);
  }

  get(key: string): string | undefined {
    const at = this.where.get(key);
    if (at === undefined) return undefined;
    if (this.inflated?.block !== at.block)
      this.inflated = {
        block: at.block,
        text: zlib.inflateRawSync(this.blocks[at.block]!).toString('utf8'),
      };
    return this.inflated.text.slice(at.start, at.end);
  }

  *keys(): MapIterator<string> {
    yield* this.where.keys();
  }

  *values(): MapIterator<string> {
    for (const key of this.where.keys()) yield this.get(key)!;
  }

  *entries(): MapIterator<[string, string]> {
    for (const key of this.where.keys()) yield [key, this.get(key)!];
  }

  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }

  forEach(each: (value: string, key: string, map: ReadonlyMap<string, string>) => void): void {
    for (const [key, value] of this.entries()) each(value, key, this);
  }
}
