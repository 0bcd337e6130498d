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
 * one walk of a description's membership, as the loader places a file's lines and as it places a
 * default graph.
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

/**
 * The triples of a default graph (N-Triples as Oxigraph dumps it) as N-Quads, each institution's
 * description in the graph of its description IRI. An institution is a subject IRI minted under
 * `baseIri` (`<base>/resource/organisations/<isil>`); its description holds its own triples, those
 * of the blank nodes it links to and of the blank nodes below them (up to MAX_BLANK_NODE_DEPTH
 * levels), and those of the named nodes it links to with `wdrs:describedby`, `v:url` or `v:email`
 * (but not of what they link to; `completeDescriptions` adds what other graphs hold about those).
 * A triple that belongs to two descriptions is in both graphs; one that belongs to none stays in
 * the default graph. `check` sees every line first, and may throw (the loader refuses literals
 * too long to serve here, where every triple of its RDF sources passes once).
 */
export function descriptionQuads(
  ntriples: string,
  baseIri: string,
  check?: (line: Line) => void,
): string {
  const bySubject = new Map<string, Line[]>();
  const rest: string[] = [];
  for (const text of lines(ntriples)) {
    const line = splitLine(text);
    if (line === undefined) {
      rest.push(text);
      continue;
    }
    check?.(line);
    const lines = bySubject.get(line.s);
    if (lines) lines.push(line);
    else bySubject.set(line.s, [line]);
  }
  const placed = new Set<Line>();
  const out: string[] = [];
  const prefix = `<${baseIri}${RESOURCE_PATH}`;
  for (const [subject, own] of bySubject) {
    if (!subject.startsWith(prefix)) continue;
    const description = descriptionIriOf(subject.slice(1, -1));
    if (description === undefined) continue;
    const graph = ` <${description}> .`;
    const members = new Set<Line>(own);
    const blanks: string[] = [];
    for (const line of own) {
      if (line.o.startsWith('_:')) blanks.push(line.o);
      else if (NAMED_LINKS.has(line.p) && line.o.startsWith('<'))
        for (const linked of bySubject.get(line.o) ?? []) members.add(linked);
    }
    walkBlankNodes(blanks, (blank) => {
      const below: string[] = [];
      for (const line of bySubject.get(blank) ?? []) {
        members.add(line);
        if (line.o.startsWith('_:')) below.push(line.o);
      }
      return below;
    });
    for (const line of members) {
      placed.add(line);
      out.push(`${line.text.slice(0, -2)}${graph}\n`);
    }
  }
  for (const lines of bySubject.values())
    for (const line of lines) if (!placed.has(line)) out.push(`${line.text}\n`);
  for (const text of rest) out.push(`${text}\n`);
  return out.join('');
}
