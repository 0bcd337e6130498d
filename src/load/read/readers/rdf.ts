// The RDF formats: the store parses them itself (Oxigraph's readers), so each reader only names
// its format and extensions. RDF/XML shares `.xml` with PicaPlus-XML, and takes what that one does
// not recognise.
import type { RdfReader } from './reader';

const rdf = <F extends RdfReader['storeFormat']>(
  format: F,
  extensions: readonly string[],
  describes: string,
): RdfReader<F> => ({ format, storeFormat: format, extensions, describes });

export const RDF_READERS = [
  rdf('nt', ['.nt'], 'N-Triples'),
  rdf('nq', ['.nq'], 'N-Quads (and the snapshots this loader writes)'),
  rdf('ttl', ['.ttl'], 'Turtle'),
  rdf('trig', ['.trig'], 'TriG'),
  rdf('rdf', ['.rdf', '.owl', '.xml'], 'RDF/XML'),
  rdf('jsonld', ['.jsonld', '.json'], 'JSON-LD'),
] as const;
