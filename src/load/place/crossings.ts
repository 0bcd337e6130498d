// Whether the records of a load state triples about nodes that other records link to: only then
// can completing the descriptions across graphs find anything.
import type { SourceRecord } from '../read/sourceRecord';
import { NAMED_LINKS } from '../../store/descriptions';
import { lines, splitLine } from '../../rdf/ntriples';

/** A node stated in, or linked from, more than one graph. */
const MANY = '';

/**
 * The named nodes records state triples about and those their institutions link to, each with its
 * record's graph: whether `completeDescriptions` could find anything after a load of records
 * alone. It can when a node is stated in one graph and linked from another (two records with one
 * URL node, say); completing costs an update over every record's links, whatever it finds
 * (docs/benchmark.md, "descriptions completed").
 */
export class Crossings {
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
