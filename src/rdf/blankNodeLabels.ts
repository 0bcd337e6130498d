// Canonical blank-node labels of a description: nodes named after what they say, ties broken by
// their neighbours' labels (colour refinement), and, where that leaves a tie among nodes that are
// not interchangeable, by trying each one, within a bounded amount of work.
import type { Triple } from './ntriples';

/** Whether an N-Triples term's text is a blank node (`_:…`). */
const isBlank = (term: string): boolean => term.charCodeAt(0) === 95;

/**
 * The most work one description's labelling may take, in steps (a triple or an edge looked at):
 * a fraction of a second at most. The descriptions of the real and the generated data take a few
 * hundred; one past it
 * (blank nodes sharing their children many times over, or many alike in a cycle) is refused.
 */
export const MAX_CANONICAL_WORK = 100_000;

/** A description whose blank nodes would take more than the work limit to label canonically. */
export class CanonicalLimit extends Error {
  override name = 'CanonicalLimit';

  constructor(
    /** The description's subject (the institution IRI), when known. */
    readonly subject: string | undefined,
    readonly limit: number,
  ) {
    super(
      `the description of ${subject === undefined ? 'a subject' : `<${subject}>`} has blank nodes too intricate to label canonically (more than ${limit.toLocaleString('en')} steps, MAX_CANONICAL_WORK)`,
    );
  }
}

/** Counts work, and refuses past the limit. */
class Budget {
  private used = 0;

  constructor(
    private readonly limit: number,
    private readonly subject: string | undefined,
  ) {}

  spend(steps: number): void {
    this.used += steps;
    if (this.used > this.limit) throw new CanonicalLimit(this.subject, this.limit);
  }
}

/** An edge between two blank nodes, seen from one: the other end and `>p` (out) or `<p` (in). */
interface Edge {
  readonly n: number;
  readonly key: string;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Renames blank nodes canonically, so that the same description yields the same bytes after every
 * load, whatever order its triples come in. Each node starts with its content (its triples,
 * nested blank nodes followed, and the triples that point at it); nodes with equal content are
 * told apart by their neighbours' labels, repeated until the partition stops changing (so equal
 * nodes under different blank parents keep their parents' order). A tie left is among nodes an
 * automorphism swaps when the blank nodes form a forest (one is chosen, it does not matter which);
 * otherwise each is tried and the smallest result kept. Nodes are then numbered in order,
 * `_:b0`, `_:b1`, …. Throws CanonicalLimit past `limit` steps of work.
 */
export function labelBlankNodes(
  triples: readonly Triple[],
  subject?: string,
  limit = MAX_CANONICAL_WORK,
): Triple[] {
  const outgoing = new Map<string, Triple[]>();
  const incoming = new Map<string, string[]>();
  for (const t of triples) {
    if (isBlank(t.s)) push(outgoing, t.s, t);
    if (isBlank(t.o)) push(incoming, t.o, `${isBlank(t.s) ? '_' : t.s} ${t.p}`);
  }
  if (outgoing.size === 0 && incoming.size === 0) return triples.slice();

  const budget = new Budget(limit, subject);
  const ids: string[] = [...outgoing.keys()];
  for (const id of incoming.keys()) if (!outgoing.has(id)) ids.push(id);
  const path: string[] = [];
  const contents = ids.map((id) => content(id, outgoing, incoming, path, budget));
  let colours = rank(contents);
  if (distinct(colours) < ids.length) {
    const graph = new BlankGraph(ids, triples, budget);
    colours = graph.settle(colours);
  }
  const labels = new Map<string, string>();
  for (let i = 0; i < ids.length; i++) labels.set(ids[i]!, `_:b${colours[i]}`);
  return relabel(triples, labels);
}

function relabel(triples: readonly Triple[], labels: ReadonlyMap<string, string>): Triple[] {
  const labelled: Triple[] = [];
  for (const t of triples)
    labelled.push(
      isBlank(t.s) || isBlank(t.o)
        ? { s: labels.get(t.s) ?? t.s, p: t.p, o: labels.get(t.o) ?? t.o }
        : t,
    );
  return labelled;
}

// The helpers below are module functions rather than closures made per call: the hot path runs
// under tsx, which wraps every closure it creates in a naming call.

/** What a blank node says: its own triples (nested blank nodes in brackets), then who points at it. */
function content(
  id: string,
  outgoing: ReadonlyMap<string, readonly Triple[]>,
  incoming: ReadonlyMap<string, string[]>,
  path: string[],
  budget: Budget,
): string {
  const pointers = incoming.get(id) ?? [];
  budget.spend(pointers.length);
  return `${signature(id, outgoing, path, budget)}|${pointers.sort().join(';')}`;
}

/** A blank node's triples, nested blank nodes followed; `path` holds the nodes above (cycles). */
function signature(
  id: string,
  outgoing: ReadonlyMap<string, readonly Triple[]>,
  path: string[],
  budget: Budget,
): string {
  if (path.includes(id)) return '(cycle)';
  const list = outgoing.get(id);
  if (!list) return '';
  budget.spend(list.length);
  path.push(id);
  const parts: string[] = [];
  for (const t of list)
    parts.push(
      isBlank(t.o) ? `${t.p} [${signature(t.o, outgoing, path, budget)}]` : `${t.p} ${t.o}`,
    );
  path.pop();
  return parts.sort().join(';');
}

/** Each string's rank among the distinct strings, in sorted order: 0, 1, …. */
function rank(keys: readonly string[]): number[] {
  const sorted = [...new Set(keys)].sort();
  const ranks = new Map<string, number>();
  for (let i = 0; i < sorted.length; i++) ranks.set(sorted[i]!, i);
  return keys.map((key) => ranks.get(key)!);
}

function distinct(colours: readonly number[]): number {
  return new Set(colours).size;
}

/** A colour as a fixed-width prefix, so that ranking a refined key keeps the order of colours. */
function prefix(colour: number): string {
  return colour.toString(36).padStart(5, '0');
}

/** The blank nodes of a description with the edges between them: where ties are broken. */
class BlankGraph {
  private readonly edges: Edge[][];
  /** Whether the blank nodes form a forest: then equal colours mean interchangeable nodes. */
  private readonly forest: boolean;
  /** Each node's neighbourhood by the identity of its neighbours: equal keys, twin nodes. */
  private readonly twinKeys: string[];

  constructor(
    private readonly ids: readonly string[],
    private readonly triples: readonly Triple[],
    private readonly budget: Budget,
  ) {
    const index = new Map<string, number>();
    ids.forEach((id, n) => index.set(id, n));
    this.edges = ids.map(() => []);
    const near: string[][] = ids.map(() => []);
    const roots = ids.map((_, n) => n);
    const root = (n: number): number => {
      while (roots[n] !== n) n = roots[n] = roots[roots[n]!]!;
      return n;
    };
    let forest = true;
    for (const t of triples) {
      const s = index.get(t.s);
      const o = index.get(t.o);
      if (s !== undefined) near[s]!.push(`>${t.p} ${t.o}`);
      if (o !== undefined) near[o]!.push(`<${t.p} ${t.s}`);
      if (s === undefined || o === undefined) continue;
      this.edges[s]!.push({ n: o, key: `>${t.p}` });
      this.edges[o]!.push({ n: s, key: `<${t.p}` });
      const [a, b] = [root(s), root(o)];
      if (a === b) forest = false;
      else roots[a] = b;
    }
    budget.spend(triples.length);
    this.forest = forest;
    this.twinKeys = near.map((list) => list.sort().join('\n'));
  }

  /** Colours refined until stable, then ties broken until every node has its own. */
  settle(start: readonly number[]): number[] {
    const colours = this.refine(start);
    const tied = this.firstTie(colours);
    if (tied === undefined) return colours;
    if (this.forest || this.twins(tied)) return this.settle(individualise(colours, tied[0]!));
    let best: { text: string; colours: number[] } | undefined;
    for (const n of tied) {
      const tried = this.settle(individualise(colours, n));
      this.budget.spend(this.triples.length);
      const text = this.written(tried);
      if (best === undefined || text < best.text) best = { text, colours: tried };
    }
    return best!.colours;
  }

  /** Colour refinement: each node's colour with its neighbours' colours, until nothing splits. */
  private refine(start: readonly number[]): number[] {
    let colours = [...start];
    let classes = distinct(colours);
    for (;;) {
      const keys: string[] = [];
      for (let n = 0; n < colours.length; n++) {
        const around = this.edges[n]!;
        this.budget.spend(around.length + 1);
        const parts: string[] = [];
        for (const e of around) parts.push(`${e.key} ${colours[e.n]}`);
        keys.push(`${prefix(colours[n]!)}|${parts.sort().join(',')}`);
      }
      const next = rank(keys);
      const count = distinct(next);
      if (count === classes) return colours;
      colours = next;
      classes = count;
    }
  }

  /** The nodes of the lowest colour several nodes share, if any does. */
  private firstTie(colours: readonly number[]): number[] | undefined {
    const members = new Map<number, number[]>();
    colours.forEach((c, n) => push(members, c, n));
    let tied: number[] | undefined;
    let lowest = Infinity;
    for (const [c, list] of members) if (list.length > 1 && c < lowest) [tied, lowest] = [list, c];
    return tied;
  }

  /** Whether the nodes have the same triples but for their own label: any order is the same. */
  private twins(nodes: readonly number[]): boolean {
    const key = this.twinKeys[nodes[0]!];
    return nodes.every((n) => this.twinKeys[n] === key);
  }

  /** The triples written with `colours` as labels, sorted: what the choices are compared by. */
  private written(colours: readonly number[]): string {
    const labels = new Map<string, string>();
    this.ids.forEach((id, n) => labels.set(id, `_:b${colours[n]}`));
    return relabel(this.triples, labels)
      .map((t) => `${t.s} ${t.p} ${t.o}`)
      .sort()
      .join('\n');
  }
}

/** The colours with `chosen` put first among the nodes of its colour. */
function individualise(colours: readonly number[], chosen: number): number[] {
  return rank(colours.map((c, n) => `${prefix(c)}${n === chosen ? 0 : 1}`));
}
