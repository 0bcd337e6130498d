// The plan of an N-Triples file's descriptions (placedNTriples.ts): which graphs each subject's
// triples go into, and where each line's terms are, as the first pass over its lines finds them.
import { descriptionIriOf, otherScheme, RESOURCE_PATH } from '../../rdf/iris';
import type { Line } from '../../rdf/ntriples';
import { NAMED_LINKS, walkBlankNodes } from '../../store/descriptions';
import { Positions } from './positions';

/** One graph, or several: most nodes are in one, and a set each costs a hundred bytes and more. */
type Graphs = string | Set<string>;

function addGraph(map: Map<string, Graphs>, node: string, graph: string): void {
  const graphs = map.get(node);
  if (graphs === undefined) map.set(node, graph);
  else if (typeof graphs !== 'string') graphs.add(graph);
  else if (graphs !== graph) map.set(node, new Set([graphs, graph]));
}

/** Which graphs each subject's triples go into: the first pass's findings. */
export class DescriptionPlan {
  /** Each line's subject start and end, and its object's end: -1 for a line without a triple. */
  readonly subjectStarts = new Positions();
  readonly subjectEnds = new Positions();
  readonly objectEnds = new Positions();
  /** Each line's length, and how many there were: the second pass checks it reads the same file. */
  readonly lengths = new Positions();
  lines = 0;
  /**
   * The last line (from 1) each blank-node label is on: the file is loaded in pieces that no blank
   * node spans (`placedPieces`), each store load labelling blank nodes anew.
   */
  readonly lastLines = new Map<string, number>();
  private readonly institutions = new Map<string, string>();
  /** Blank nodes each institution or blank node links to. */
  private readonly blanksBelow = new Map<string, string[]>();
  /** The graphs of the institutions that link to a named node with NAMED_LINKS. */
  private readonly linked = new Map<string, Graphs>();
  /** The graphs of the descriptions a blank node is in. */
  private readonly blankGraphs = new Map<string, Graphs>();
  private readonly prefix: string;
  private readonly other: string;

  constructor(baseIri: string) {
    this.prefix = `<${baseIri}${RESOURCE_PATH}`;
    this.other = `<${otherScheme(baseIri)}/`;
  }

  /** Notes a triple; false when the file needs the base rewritten (then it is not read here). */
  add(line: Line): boolean {
    const { s, p, o } = line;
    if (s.startsWith(this.other) || o.startsWith(this.other)) return false;
    const graph = this.graphOf(s);
    if (o.startsWith('_:') && (graph !== undefined || s.startsWith('_:'))) {
      const below = this.blanksBelow.get(s);
      if (below) below.push(o);
      else this.blanksBelow.set(s, [o]);
    } else if (graph !== undefined && o.startsWith('<') && NAMED_LINKS.has(p)) {
      addGraph(this.linked, o, graph);
    }
    return true;
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

  /** The graphs a triple with this subject goes into (none: the default graph). */
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
