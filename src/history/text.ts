// A description's triples as the history keeps them: canonical N-Triples, one triple a line.
import { toDescription, type Description } from '../rdf/description';
import type { Triple } from '../rdf/ntriples';

/** Triples as N-Triples lines, in the order given. */
export function writeTriples(triples: readonly Triple[]): string {
  let text = '';
  for (const t of triples) text += `${t.s} ${t.p} ${t.o} .\n`;
  return text;
}

/** The description a memento serves, from the canonical N-Triples the history keeps. */
export function readDescription(institutionIri: string, ntriples: string): Description {
  return toDescription(institutionIri, ntriples);
}
