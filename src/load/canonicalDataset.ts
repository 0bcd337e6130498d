// A loaded dataset read canonically, from one dump of its store grouped by graph: each
// institution's canonical description with its links and its hash (the history's states), and the
// snapshot's lines in their canonical order (docs/loading.md, "The snapshot's order").
import crypto from 'node:crypto';
import { HASH_LENGTH, stateOf, versionOf } from '../history/canonical';
import type { InstitutionState } from '../history/model';
import { writeTriples } from '../history/text';
import { CanonicalLimit, labelBlankNodes, orderedDescription } from '../rdf/description';
import { descriptionIri, linksGraphIri } from '../rdf/iris';
import type { Isil } from '../rdf/isil';
import { PREFIXES } from '../rdf/namespaces';
import { lines, splitLine, type Triple } from '../rdf/ntriples';
import type { Dataset } from '../store/dataset';
import type { DatasetStore } from '../store/oxigraph/datasetStore';
import { TimeSlicer } from '../util/timeSlice';
import { LoadError } from './loadError';
import type { OnProgress } from './report';
import { restLines, type TextQuad } from './restLabels';

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

/** A dataset read canonically: its history, and its snapshot's quad lines in their order. */
export interface CanonicalDataset {
  readonly history: VersionHistory;
  /** N-Quads lines, without their newline: the description graphs, the links graph, the rest. */
  readonly lines: readonly string[];
}

/**
 * Reads the store of `dataset` once and canonically: the description graphs in ISIL order, each
 * with canonical labels made unique to it (`_:d<n>b<i>` for the n-th), then what no description
 * holds (`restLines`). A description past the work limit is a LoadError naming its ISIL.
 */
export async function canonicalDataset(
  dataset: Dataset<DatasetStore>,
  onProgress?: OnProgress,
): Promise<CanonicalDataset> {
  const { baseIri } = dataset;
  const graphs = byGraph(dataset.store.dump());
  const linksGraph = `<${linksGraphIri(baseIri)}>`;
  const sameAs = new Map<string, Triple[]>();
  for (const q of graphs.get(linksGraph) ?? [])
    if (q.p === SAME_AS) push(sameAs, q.s, { s: q.s, p: q.p, o: q.o });

  const subjects: { isil: string; iri: string; live: boolean }[] = [];
  for (const i of dataset.institutions()) subjects.push({ isil: i.isil, iri: i.iri, live: true });
  for (const w of dataset.withdrawnInstitutions())
    subjects.push({ isil: w.isil, iri: w.iri, live: false });
  subjects.sort((a, b) => (a.isil < b.isil ? -1 : a.isil > b.isil ? 1 : 0));

  const states = new Map<string, InstitutionState>();
  const descriptions = new Map<string, string>();
  const out: string[] = [];
  const anchors = new Map<string, string>();
  const slicer = new TimeSlicer();
  for (const [n, { isil, iri, live }] of subjects.entries()) {
    // Told every thousand institutions, as records are: a small load shows no such phase.
    if (n % 1000 === 0 && n > 0) onProgress?.('canonicalising', n, subjects.length, 'institutions');
    const graph = `<${descriptionIri(baseIri, isil as Isil)}>`;
    const own = graphs.get(graph) ?? [];
    graphs.delete(graph);
    let labelled: Triple[];
    try {
      labelled = labelBlankNodes(own, iri);
    } catch (error) {
      if (!(error instanceof CanonicalLimit)) throw error;
      throw new LoadError(isil, undefined, undefined, error.message);
    }
    const prefix = `_:d${n}`;
    own.forEach((q, k) => {
      if (q.s.startsWith('_:')) anchors.set(q.s, `${prefix}${labelled[k]!.s.slice(2)}`);
      if (q.o.startsWith('_:')) anchors.set(q.o, `${prefix}${labelled[k]!.o.slice(2)}`);
    });
    // Ordered once, with the links: the graph's own lines are those but the links it lacks.
    const links = linksBeyond(own, sameAs.get(`<${iri}>`));
    const { triples } = orderedDescription(iri, links ? [...labelled, ...links] : labelled);
    for (const t of triples)
      if (!links?.includes(t))
        out.push(`${local(t.s, prefix)} ${t.p} ${local(t.o, prefix)} ${graph} .`);
    const text = writeTriples(triples);
    descriptions.set(isil, text);
    states.set(isil, stateOf(isil, iri, live, text, baseIri));
    await slicer.pause();
  }
  if (subjects.length > 1000)
    onProgress?.('canonicalising', subjects.length, subjects.length, 'institutions');
  // What no description holds, labelled together (a blank node may be in several graphs), the
  // links graph's lines first.
  const rest = [...graphs.values()].flat();
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
  out.push(...tail);
  return {
    history: { states, descriptions, rest: restHash, version: versionOf(states, restHash) },
    lines: out,
  };
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

/** A description's label made unique to it in the snapshot: `_:b3` → `_:d17b3`. */
function local(term: string, prefix: string): string {
  return term.startsWith('_:') ? `${prefix}${term.slice(2)}` : term;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The store's N-Quads (as Oxigraph writes them) by graph: `''` for the default graph. */
function byGraph(nquads: string): Map<string, TextQuad[]> {
  const graphs = new Map<string, TextQuad[]>();
  for (const text of lines(nquads)) {
    const line = splitLine(text);
    if (line === undefined) throw new Error(`not a quad as the store writes them: ${text}`);
    const end = objectEnd(line.o);
    const g = line.o.slice(end + 1);
    push(graphs, g, { s: line.s, p: line.p, o: line.o.slice(0, end), g });
  }
  return graphs;
}

/** Where the object term of `o g` (as `splitLine` leaves them) ends. */
function objectEnd(text: string): number {
  const first = text.charCodeAt(0);
  if (first === 60 /* < */) return text.indexOf('>') + 1;
  if (first !== 34 /* " */) {
    const space = text.indexOf(' ');
    return space === -1 ? text.length : space;
  }
  let at = 1;
  while (at < text.length && text.charCodeAt(at) !== 34) at += text.charCodeAt(at) === 92 ? 2 : 1;
  const space = text.indexOf(' ', at + 1);
  // After the closing quote: a language tag or a datatype IRI, neither with a space.
  return space === -1 ? text.length : space;
}
