// Which triples make up an institution's description (HTTP contract §3), decided once, when data
// is loaded: the store keeps each description in a named graph of its own, named by the
// description's IRI (`/data/organisations/<isil>`), so that serving one is a scan of one graph
// (queries/describe.rq) instead of a join over the whole dataset.
import { PREFIXES } from '../rdf/namespaces';
import { lines, splitLine, type Line } from '../rdf/ntriples';
import { descriptionIriOf, RESOURCE_PATH } from '../rdf/iris';

/** Blank nodes are followed this many levels below the institution (a cycle stops here). */
export const MAX_BLANK_NODE_DEPTH = 8;

/** Links to named nodes whose own triples belong to the description. */
export const NAMED_LINKS: ReadonlySet<string> = new Set([
  `<${PREFIXES.wdrs}describedby>`,
  `<${PREFIXES.v}url>`,
  `<${PREFIXES.v}email>`,
]);

/**
 * Visits the blank nodes below an institution, breadth first from `first` (those it links to), each
 * once, down to MAX_BLANK_NODE_DEPTH levels: `visit` is given each and returns those below it. The
 * one walk of a description's membership (`DescriptionMembers.close`).
 */
export function walkBlankNodes(
  first: readonly string[],
  visit: (blank: string) => Iterable<string>,
): void {
  const seen = new Set<string>();
  let blanks = first;
  for (let depth = 1; depth <= MAX_BLANK_NODE_DEPTH && blanks.length > 0; depth++) {
    const below: string[] = [];
    for (const blank of blanks) {
      if (seen.has(blank)) continue;
      seen.add(blank);
      for (const next of visit(blank)) below.push(next);
    }
    blanks = below;
  }
}

/** One graph, or several: most nodes are in one, and a set each costs a hundred bytes and more. */
type Graphs = string | Set<string>;

function addGraph(map: Map<string, Graphs>, node: string, graph: string): void {
  const graphs = map.get(node);
  if (graphs === undefined) map.set(node, graph);
  else if (typeof graphs !== 'string') graphs.add(graph);
  else if (graphs !== graph) map.set(node, new Set([graphs, graph]));
}

/**
 * The rule of what a description holds, applied to triples (N-Triples terms) seen one by one:
 * which graphs each subject's triples go into. An institution is a subject IRI minted under
 * `baseIri` (`<base>/resource/organisations/<isil>`); its description holds its own triples, those
 * of the blank nodes it links to and of the blank nodes below them (up to MAX_BLANK_NODE_DEPTH
 * levels), and those of the named nodes it links to with NAMED_LINKS (but not of what they link
 * to; `completeDescriptions` adds what other graphs hold about those). A triple that belongs to
 * two descriptions is in both graphs; one that belongs to none stays in the default graph. Every
 * triple is `add`ed, then `close`, then `graphs` answers.
 */
export class DescriptionMembers {
  private readonly institutions = new Map<string, string>();
  /** Blank nodes each institution or blank node links to. */
  private readonly blanksBelow = new Map<string, string[]>();
  /** The graphs of the institutions that link to a named node with NAMED_LINKS. */
  private readonly linked = new Map<string, Graphs>();
  /** The graphs of the descriptions a blank node is in. */
  private readonly blankGraphs = new Map<string, Graphs>();
  private readonly prefix: string;

  constructor(baseIri: string) {
    this.prefix = `<${baseIri}${RESOURCE_PATH}`;
  }

  add({ s, p, o }: Pick<Line, 's' | 'p' | 'o'>): void {
    const graph = this.graphOf(s);
    if (o.startsWith('_:') && (graph !== undefined || s.startsWith('_:'))) {
      const below = this.blanksBelow.get(s);
      if (below) below.push(o);
      else this.blanksBelow.set(s, [o]);
    } else if (graph !== undefined && o.startsWith('<') && NAMED_LINKS.has(p)) {
      addGraph(this.linked, o, graph);
    }
  }

  /** The graph of an institution's description, for a subject that is one. */
  private graphOf(subject: string): string | undefined {
    if (!subject.startsWith(this.prefix)) return undefined;
    let graph = this.institutions.get(subject);
    if (graph === undefined) {
      const description = descriptionIriOf(subject.slice(1, -1));
      if (description === undefined) return undefined;
      graph = `<${description}>`;
      this.institutions.set(subject, graph);
    }
    return graph;
  }

  /** Follows each institution's blank nodes down to MAX_BLANK_NODE_DEPTH levels. */
  close(): void {
    for (const [institution, graph] of this.institutions)
      walkBlankNodes(this.blanksBelow.get(institution) ?? [], (blank) => {
        addGraph(this.blankGraphs, blank, graph);
        return this.blanksBelow.get(blank) ?? [];
      });
    this.blanksBelow.clear();
  }

  /** The graphs (N-Triples terms) a triple with this subject goes into (none: the default graph). */
  graphs(subject: string): string[] {
    const graphs: string[] = [];
    const own = subject.startsWith(this.prefix) ? this.institutions.get(subject) : undefined;
    if (own !== undefined) graphs.push(own);
    const linked = this.linked.get(subject) ?? [];
    for (const graph of typeof linked === 'string' ? [linked] : linked)
      if (graph !== own) graphs.push(graph);
    const blank = this.blankGraphs.get(subject) ?? [];
    return typeof blank === 'string' ? [...graphs, blank] : [...graphs, ...blank];
  }
}

/**
 * The triples of a default graph (N-Triples as Oxigraph dumps it) as N-Quads, each in the graphs
 * of the descriptions it belongs to (`DescriptionMembers`), one that belongs to none left in the
 * default graph. `check` sees every line first, and may throw (the loader refuses literals too
 * long to serve here, where every triple of its RDF sources passes once).
 */
export function descriptionQuads(
  ntriples: string,
  baseIri: string,
  check?: (line: Line) => void,
): string {
  const members = new DescriptionMembers(baseIri);
  const triples: Line[] = [];
  const rest: string[] = [];
  for (const text of lines(ntriples)) {
    const line = splitLine(text);
    if (line === undefined) {
      rest.push(text);
      continue;
    }
    check?.(line);
    members.add(line);
    triples.push(line);
  }
  members.close();
  const out: string[] = [];
  for (const line of triples) {
    const graphs = members.graphs(line.s);
    if (graphs.length === 0) out.push(`${line.text}\n`);
    for (const graph of graphs) out.push(`${line.text.slice(0, -2)} ${graph} .\n`);
  }
  for (const text of rest) out.push(`${text}\n`);
  return out.join('');
}
