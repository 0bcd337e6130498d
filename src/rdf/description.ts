// An institution's description as plain RDF/JS quads: parsed from the store's N-Triples, blank
// nodes labelled from their content (stable across loads), triples deduplicated and ordered.
import crypto from 'node:crypto';
import { DataFactory, type BlankNode, type Quad, type Term } from 'n3';
import { parseNTriples } from './ntriples';
import { PREFIXES, RDF_TYPE } from './namespaces';

export interface Description {
  /** The institution IRI. */
  readonly subject: string;
  /** Distinct triples, institution first, then its description document, then the rest. */
  readonly quads: readonly Quad[];
  /** `dcterms:modified` of the description document, when it holds a valid one. */
  readonly modified: Date | undefined;
}

const MODIFIED = `${PREFIXES.dcterms}modified`;
const DESCRIBED_BY = `${PREFIXES.wdrs}describedby`;

/** N-Triples term syntax: a key that is equal exactly when the terms are. */
function termKey(term: Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return `<${term.value}>`;
    case 'BlankNode':
      return `_:${term.value}`;
    case 'Literal':
      return `${JSON.stringify(term.value)}${term.language ? `@${term.language}` : `^^<${term.datatype.value}>`}`;
    default:
      return term.value;
  }
}

/**
 * Renames blank nodes after a hash of what they say (their triples, recursively, and the triples
 * that point at them), so that the same stored record yields the same bytes after every load.
 * Blank nodes with identical content are interchangeable, so numbering them in turn is stable too.
 */
export function labelBlankNodes(quads: readonly Quad[]): Quad[] {
  const outgoing = new Map<string, Quad[]>();
  const incoming = new Map<string, Quad[]>();
  for (const q of quads) {
    if (q.subject.termType === 'BlankNode') push(outgoing, q.subject.value, q);
    if (q.object.termType === 'BlankNode') push(incoming, q.object.value, q);
  }
  if (outgoing.size === 0 && incoming.size === 0) return [...quads];

  const signature = (id: string, path: readonly string[]): string => {
    if (path.includes(id)) return '(cycle)';
    const inner = [...path, id];
    return (outgoing.get(id) ?? [])
      .map(
        (q) =>
          `${termKey(q.predicate)} ${q.object.termType === 'BlankNode' ? `[${signature(q.object.value, inner)}]` : termKey(q.object)}`,
      )
      .sort()
      .join(';');
  };
  const ids = new Set([...outgoing.keys(), ...incoming.keys()]);
  const labelled = [...ids]
    .map((id) => {
      const from = (incoming.get(id) ?? [])
        .map(
          (q) =>
            `${q.subject.termType === 'BlankNode' ? '_' : termKey(q.subject)} ${termKey(q.predicate)}`,
        )
        .sort()
        .join(';');
      const hash = crypto
        .createHash('sha1')
        .update(`${signature(id, [])}|${from}`)
        .digest('hex')
        .slice(0, 16);
      return { id, hash };
    })
    .sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
  const labels = new Map<string, BlankNode>();
  const seen = new Map<string, number>();
  for (const { id, hash } of labelled) {
    const n = seen.get(hash) ?? 0;
    seen.set(hash, n + 1);
    labels.set(id, DataFactory.blankNode(n === 0 ? `b${hash}` : `b${hash}_${n}`));
  }
  const rename = <T extends Term>(t: T): T =>
    t.termType === 'BlankNode' ? (labels.get(t.value) as unknown as T) : t;
  return quads.map((q) => DataFactory.quad(rename(q.subject), q.predicate, rename(q.object)));
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** A key equal exactly when the terms are, cheaper than escaping (no separator occurs in IRIs). */
function fastKey(t: Term): string {
  return t.termType === 'Literal'
    ? `"${t.value}\u0000${t.language}\u0000${t.datatype.value}`
    : t.termType === 'BlankNode'
      ? `_:${t.value}`
      : t.value;
}

/** The quads of `ntriples`, deduplicated, relabelled and in a fixed order. */
export function toDescription(subject: string, ntriples: string): Description {
  const parsed = parseNTriples(ntriples);
  let describedBy: string | undefined;
  for (const q of parsed)
    if (q.subject.value === subject && q.predicate.value === DESCRIBED_BY)
      describedBy = q.object.value;
  const rank = (t: Term) =>
    t.value === subject ? 0 : t.value === describedBy ? 1 : t.termType === 'NamedNode' ? 2 : 3;
  const distinct = new Map<string, { quad: Quad; rank: number; key: string }>();
  for (const q of labelBlankNodes(parsed)) {
    const typeFirst = q.predicate.value === RDF_TYPE ? '0' : '1';
    const key = `${fastKey(q.subject)}\u0001${typeFirst}${q.predicate.value}\u0001${fastKey(q.object)}`;
    if (!distinct.has(key)) distinct.set(key, { quad: q, rank: rank(q.subject), key });
  }
  const ordered = [...distinct.values()]
    .sort((a, b) => a.rank - b.rank || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((e) => e.quad);
  let modifiedText: string | undefined;
  for (const q of ordered)
    if (q.subject.value === describedBy && q.predicate.value === MODIFIED)
      modifiedText = q.object.value;
  return { subject, quads: ordered, modified: parseModified(modifiedText) };
}

/** `xsd:dateTime` without a time zone is read as UTC (the agency's records carry none). */
export function parseModified(text: string | undefined): Date | undefined {
  if (!text || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/.test(text))
    return undefined;
  const date = new Date(/(Z|[+-]\d{2}:\d{2})$/.test(text) ? text : `${text}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export interface SubjectLayout {
  /** The quads of each subject, keyed by `termType:value`, in description order. */
  readonly bySubject: ReadonlyMap<string, readonly Quad[]>;
  /** Blank nodes to write nested in place of their one reference. */
  readonly inline: ReadonlySet<string>;
}

export function subjectKey(term: Term): string {
  return `${term.termType}:${term.value}`;
}

/**
 * Groups the quads by subject and decides which blank nodes a writer nests: those that are the
 * object of exactly one triple and do not lead back to themselves.
 */
export function layout(quads: readonly Quad[]): SubjectLayout {
  const bySubject = new Map<string, Quad[]>();
  const references = new Map<string, number>();
  for (const q of quads) push(bySubject, subjectKey(q.subject), q);
  for (const q of quads) {
    if (q.object.termType === 'BlankNode')
      references.set(q.object.value, (references.get(q.object.value) ?? 0) + 1);
  }
  const nestable = (id: string, path: readonly string[]): boolean =>
    references.get(id) === 1 &&
    !path.includes(id) &&
    (bySubject.get(`BlankNode:${id}`) ?? []).every(
      (q) =>
        q.object.termType !== 'BlankNode' ||
        references.get(q.object.value) !== 1 ||
        nestable(q.object.value, [...path, id]),
    );
  const inline = new Set([...references.keys()].filter((id) => nestable(id, [])));
  return { bySubject, inline };
}
