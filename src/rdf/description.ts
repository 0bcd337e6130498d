// An institution's description: the store's N-Triples read as term text, blank nodes labelled
// canonically (src/rdf/blankNodeLabels.ts: stable across loads), triples deduplicated and ordered;
// RDF/JS quads on demand.
import { DataFactory, type NamedNode, type Quad, type Quad_Object, type Quad_Subject } from 'n3';
import { decodeTerm, lexicalForm, splitWrittenNTriples, type Triple } from './ntriples';
import { labelBlankNodes } from './blankNodeLabels';
import { PREFIXES, RDF_TYPE } from './namespaces';

export { CanonicalLimit, labelBlankNodes, MAX_CANONICAL_WORK } from './blankNodeLabels';

const MODIFIED = `<${PREFIXES.dcterms}modified>`;
const DESCRIBED_BY = `<${PREFIXES.wdrs}describedby>`;
const TYPE = `<${RDF_TYPE}>`;

/** Whether an N-Triples term's text is a blank node (`_:…`). */
export const isBlank = (term: string): boolean => term.charCodeAt(0) === 95;
/** Whether an N-Triples term's text is an IRI (`<…>`). */
export const isIri = (term: string): boolean => term.charCodeAt(0) === 60;

/**
 * Triples as N-Triples lines whose blank nodes carry `prefix`: in a file of many descriptions each
 * keeps its own nodes, or two institutions' addresses would be read as one node.
 */
export function withOwnBlankNodes(triples: readonly Triple[], prefix: string): string {
  const own = (term: string) => (isBlank(term) ? `_:${prefix}${term.slice(2)}` : term);
  return triples.map((t) => `${own(t.s)} ${t.p} ${own(t.o)} .\n`).join('');
}

export class Description {
  private decoded: readonly Quad[] | undefined;

  constructor(
    /** The institution IRI. */
    readonly subject: string,
    /** Distinct triples, institution first, then its description document, then the rest. */
    readonly triples: readonly Triple[],
    /** The same triples by the text of their subject, in the same order. */
    readonly bySubject: ReadonlyMap<string, readonly Triple[]>,
    /** `dcterms:modified` of the description document, when it holds a valid one. */
    readonly modified: Date | undefined,
  ) {}

  /** The triples as RDF/JS quads, made on first use: Turtle and N-Triples are written from text. */
  get quads(): readonly Quad[] {
    this.decoded ??= this.triples.map((t) =>
      DataFactory.quad(
        decodeTerm(t.s) as Quad_Subject,
        decodeTerm(t.p) as NamedNode,
        decodeTerm(t.o) as Quad_Object,
      ),
    );
    return this.decoded;
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Within a subject: `rdf:type` first, then by predicate, then by object. */
function byPredicateObject(a: Triple, b: Triple): number {
  const aType = a.p === TYPE;
  if (aType !== (b.p === TYPE)) return aType ? -1 : 1;
  if (a.p !== b.p) return a.p < b.p ? -1 : 1;
  return a.o < b.o ? -1 : a.o > b.o ? 1 : 0;
}

/**
 * The triples of `ntriples`, relabelled, deduplicated (the store repeats triples that hold stored
 * blank nodes) and in a fixed order: the institution, its description document, other named
 * nodes, blank nodes; each subject's triples side by side.
 */
export function toDescription(subject: string, ntriples: string): Description {
  return orderedDescription(subject, labelBlankNodes(splitWrittenNTriples(ntriples), subject));
}

/** The description of triples whose blank nodes are labelled already, deduplicated and ordered. */
export function orderedDescription(subject: string, labelled: readonly Triple[]): Description {
  const self = `<${subject}>`;
  const bySubject = new Map<string, Triple[]>();
  let describedBy: string | undefined;
  for (const t of labelled) {
    push(bySubject, t.s, t);
    if (t.s === self && t.p === DESCRIBED_BY) describedBy = t.o;
  }
  // Subjects in order of rank (the institution, its description document, other named nodes,
  // blank nodes), then by text: the rank digit in front of the text makes one string to sort.
  const subjects: string[] = [];
  for (const s of bySubject.keys())
    subjects.push(`${s === self ? 0 : s === describedBy ? 1 : isIri(s) ? 2 : 3}${s}`);
  subjects.sort();
  const ordered: Triple[] = [];
  const grouped = new Map<string, Triple[]>();
  let modified: string | undefined;
  for (const ranked of subjects) {
    const s = ranked.slice(1);
    const list = bySubject.get(s)!.sort(byPredicateObject);
    const distinct: Triple[] = [];
    for (let i = 0; i < list.length; i++) {
      const t = list[i]!;
      if (i > 0 && t.p === list[i - 1]!.p && t.o === list[i - 1]!.o) continue;
      distinct.push(t);
      ordered.push(t);
      if (s === describedBy && t.p === MODIFIED && t.o.charCodeAt(0) === 34)
        modified = lexicalForm(t.o);
    }
    grouped.set(s, distinct);
  }
  return new Description(subject, ordered, grouped, parseModified(modified));
}

/** `xsd:dateTime` without a time zone is read as UTC (the agency's records carry none). */
export function parseModified(text: string | undefined): Date | undefined {
  if (!text || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/.test(text))
    return undefined;
  const date = new Date(/(Z|[+-]\d{2}:\d{2})$/.test(text) ? text : `${text}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export interface SubjectLayout {
  /** The triples of each subject (by the text of the subject term), in description order. */
  readonly bySubject: ReadonlyMap<string, readonly Triple[]>;
  /** Blank nodes to write nested in place of their one reference. */
  readonly inline: ReadonlySet<string>;
}

/**
 * The description's triples by subject, and which blank nodes a writer nests: those that are the
 * object of exactly one triple and do not lead back to themselves.
 */
export function layout(description: Description): SubjectLayout {
  const { bySubject } = description;
  const references = new Map<string, number>();
  for (const t of description.triples)
    if (isBlank(t.o)) references.set(t.o, (references.get(t.o) ?? 0) + 1);
  const nestable = (id: string, path: readonly string[]): boolean =>
    references.get(id) === 1 &&
    !path.includes(id) &&
    (bySubject.get(id) ?? []).every(
      (t) => !isBlank(t.o) || references.get(t.o) !== 1 || nestable(t.o, [...path, id]),
    );
  const inline = new Set<string>();
  for (const id of references.keys()) if (nestable(id, [])) inline.add(id);
  return { bySubject, inline };
}
