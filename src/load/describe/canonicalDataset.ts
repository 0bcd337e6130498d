// A loaded dataset read canonically, graph by graph: each
// institution's canonical description with its links and its hash (the history's states), and the
// snapshot's lines in their canonical order (docs/loading.md, "The snapshot's order").
import crypto from 'node:crypto';
import { HASH_LENGTH, stateOf, versionOf } from '../../history/canonical';
import type { InstitutionState } from '../../history/model';
import { writeTriples } from '../../history/text';
import { CanonicalLimit, labelBlankNodes, orderedDescription } from '../../rdf/description';
import { descriptionIri, linksGraphIri } from '../../rdf/iris';
import type { Isil } from '../../rdf/isil';
import { PREFIXES } from '../../rdf/namespaces';
import { lines, splitLine, type Triple } from '../../rdf/ntriples';
import type { Dataset } from '../../store/dataset';
import type { DatasetStore } from '../../store/embedded/datasetStore';
import { TimeSlicer } from '../../util/timeSlice';
import { LoadError } from '../loadError';
import type { OnProgress } from '../report';
import { restLines, type TextQuad } from './restLabels';
import { deflateBlock, DeflatedTexts } from './deflatedTexts';
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

/** Canonical texts deflated together, for the change log: a quarter of their size held. */
const TEXT_BLOCK = 50;

/**
 * Sees each description as the canonical reading reads it: its ISIL, and its triples with the
 * institution's links as N-Triples (what `DatasetStore.describe` answers), made when asked.
 */
export type DescriptionCheck = (isil: string, ntriples: () => string) => Promise<void> | void;

/**
 * Reads the store of `dataset` canonically, graph by graph: what no description holds first (the
 * default graph, the links graph, other graphs), then each description graph in ISIL order, with
 * canonical labels made unique to it (`_:d<n>b<i>` for the n-th), its lines made pieces of the
 * snapshot at once, put to `sink` as each ends, then the rest (`restLines`). No dump of the whole
 * store is held, nor the pieces. A description past the work limit is a LoadError naming its ISIL.
 */
export async function canonicalDataset(
  dataset: Dataset<DatasetStore>,
  onProgress?: OnProgress,
  check?: DescriptionCheck,
  sink?: PieceSink,
): Promise<{ history: VersionHistory }> {
  const { baseIri, store } = dataset;
  const linksGraph = `<${linksGraphIri(baseIri)}>`;

  const subjects = subjectsOf(dataset);
  const { rest, owner, sameAs, named } = readRest(store, subjects, linksGraph);
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
  const slicer = new TimeSlicer();
  for (const [n, subject] of subjects.entries()) {
    // Told every thousand institutions, as records are: a small load shows no such phase.
    if (n % 1000 === 0 && n > 0) onProgress?.('canonicalising', n, subjects.length, 'institutions');
    const own = named.has(subject.graph) ? quadsOf(store, subject.graph) : [];
    const linked = sameAs.get(`<${subject.iri}>`);
    if (check) await check(subject.isil, () => describedText(own, linked));
    const made = describedCanonically(subject, n, own, linked, baseIri, (term, label) => {
      if (owner.get(term) !== n) return false;
      anchors.set(term, label);
      return true;
    });
    writer?.add(made.lines, made.later);
    keys.push(subject.isil);
    texts.push(made.text);
    if (keys.length >= TEXT_BLOCK) deflate();
    states.set(subject.isil, made.state);
    await slicer.pause();
  }
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

/** One description made canonical: its snapshot lines, its canonical text with its links, its state. */
export interface CanonicalDescription {
  readonly lines: string[];
  /** Its labels the rest names again (`anchor`): no chunk mark until their lines are past. */
  readonly later: Set<string>;
  readonly text: string;
  readonly state: InstitutionState;
}

/**
 * The `n`-th description, its graph's triples `own` (as the store labels them) with the
 * institution's links `linked`: labelled canonically and made unique to it (`_:d<n>b<i>`),
 * ordered, hashed. `anchor` is told each of its blank nodes with the label it gets, and says
 * whether the rest names that node again.
 */
export function describedCanonically(
  { isil, iri, live, graph }: Subject,
  n: number,
  own: readonly TextQuad[],
  linked: readonly Triple[] | undefined,
  baseIri: string,
  anchor?: (term: string, label: string) => boolean,
): CanonicalDescription {
  const labels = labelled(own, isil, iri);
  const prefix = `_:d${n}`;
  const later = new Set<string>();
  if (anchor)
    own.forEach((q, k) => {
      for (const [term, label] of [
        [q.s, labels[k]!.s],
        [q.o, labels[k]!.o],
      ] as const)
        if (term.startsWith('_:') && anchor(term, `${prefix}${label.slice(2)}`))
          later.add(`${prefix}${label.slice(2)}`);
    });
  // Ordered once, with the links: the graph's own lines are those but the links it lacks.
  const links = linksBeyond(own, linked);
  const { triples } = orderedDescription(iri, links ? [...labels, ...links] : labels);
  const lines: string[] = [];
  for (const t of triples)
    if (!links?.includes(t))
      lines.push(`${local(t.s, prefix)} ${t.p} ${local(t.o, prefix)} ${graph} .`);
  const text = writeTriples(triples);
  return { lines, later, text, state: stateOf(isil, iri, live, text, baseIri) };
}

/** A description's triples labelled canonically; past the work limit, a LoadError naming its ISIL. */
function labelled(own: readonly TextQuad[], isil: string, iri: string): Triple[] {
  try {
    return labelBlankNodes(own, iri);
  } catch (error) {
    if (!(error instanceof CanonicalLimit)) throw error;
    throw new LoadError(isil, undefined, undefined, error.message);
  }
}

/** A description to read: its institution, and the graph that holds it. */
export interface Subject {
  readonly isil: string;
  readonly iri: string;
  readonly live: boolean;
  readonly graph: string;
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
 * the description that labels each of its blank nodes that a description holds too (the last, by
 * number: a blank node in several takes the label the last gives it); the links by institution;
 * and the store's named graphs.
 */
function readRest(
  store: DatasetStore,
  subjects: readonly Subject[],
  linksGraph: string,
): {
  rest: TextQuad[];
  owner: Map<string, number>;
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
  return { rest, owner, sameAs, named };
}

/** The institution's links its graph does not state itself, if any. */
function linksBeyond(
  own: readonly TextQuad[],
  links: readonly Triple[] | undefined,
): Triple[] | undefined {
  if (links === undefined) return undefined;
  const stated = new Set<string>();
  for (const q of own) if (q.p === SAME_AS) stated.add(`${q.s} ${q.o}`);
  const beyond = links.filter((t) => !stated.has(`${t.s} ${t.o}`));
  return beyond.length > 0 ? beyond : undefined;
}

/** A description's triples and its institution's links as N-Triples, as the store labels them. */
function describedText(own: readonly TextQuad[], links: readonly Triple[] | undefined): string {
  let text = '';
  for (const q of own) text += `${q.s} ${q.p} ${q.o} .\n`;
  for (const t of links ?? []) text += `${t.s} ${t.p} ${t.o} .\n`;
  return text;
}

/** A description's label made unique to it in the snapshot: `_:b3` → `_:d17b3`. */
function local(term: string, prefix: string): string {
  return term.startsWith('_:') ? `${prefix}${term.slice(2)}` : term;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The N-Triples of one graph of the store (`''`: the default graph), as Oxigraph writes them. */
function graphText(store: DatasetStore, graph: string): string {
  return store.graphTriples(graph === '' ? undefined : graph.slice(1, -1));
}

/** The quads of one graph of the store (`''`: the default graph), as Oxigraph writes them. */
function quadsOf(store: DatasetStore, graph: string): TextQuad[] {
  return quadsIn(graphText(store, graph), graph);
}

/** The quads of N-Triples `text` as Oxigraph writes them, in `graph`. */
export function quadsIn(text: string, graph: string): TextQuad[] {
  const quads: TextQuad[] = [];
  for (const written of lines(text)) {
    const line = splitLine(written);
    if (line === undefined) throw new Error(`not a triple as the store writes them: ${written}`);
    quads.push({ s: line.s, p: line.p, o: line.o, g: graph });
  }
  return quads;
}
