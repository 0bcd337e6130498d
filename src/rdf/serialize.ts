// Turns a description into the bytes of one RDF format.
import type { Description } from './description';
import type { RdfFormatName } from './formats';
import { toJsonLd } from './jsonld';
import { toRdfXml } from './rdfxml';
import { toNTriples, toTurtle } from './turtle';

export async function serialize(
  description: Description,
  format: RdfFormatName,
  contextUrl: string,
): Promise<string> {
  switch (format) {
    // Triples alone: Turtle is valid N3 and TriG, N-Triples valid N-Quads.
    case 'ttl':
    case 'n3':
    case 'trig':
      return toTurtle(description);
    case 'nt':
    case 'nq':
      return toNTriples(description);
    case 'rdf':
      return toRdfXml(description);
    case 'jsonld':
      return toJsonLd(description, contextUrl);
  }
}
