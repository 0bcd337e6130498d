// JSON-LD: compacted with the service's context and framed so that the institution is the top
// object. The context is served by the service itself (GET /context.jsonld).
import jsonld from 'jsonld';
import type { Description } from './description';
import { PREFIXES } from './namespaces';
import { toNTriples } from './turtle';

/** Where the context is published, relative to BASE_IRI. */
export const CONTEXT_PATH = '/context.jsonld';

const id = (iri: string) => ({ '@id': iri, '@type': '@id' });

/**
 * The context of the published model: the prefixes, and short terms for the properties of
 * DATA-MODEL.md. Terms for IRI-valued properties coerce to `@id`; a literal value for one of them
 * still round-trips (compaction falls back to the prefixed name).
 */
export const CONTEXT = Object.freeze({
  ...PREFIXES,
  name: 'foaf:name',
  shortName: 'dbp:shortName',
  identifier: 'dc:identifier',
  description: 'dc:description',
  sameAs: id('owl:sameAs'),
  homepage: id('foaf:homepage'),
  opac: 'gbv:opac',
  url: id('v:url'),
  email: id('v:email'),
  adr: 'v:adr',
  streetAddress: 'v:street-address',
  locality: 'v:locality',
  postalCode: 'v:postal-code',
  tel: 'v:tel',
  value: 'rdf:value',
  location: 'geo:location',
  lat: 'geo:lat',
  long: 'geo:long',
  openingHoursSpecification: 'schema:openingHoursSpecification',
  comment: 'rdfs:comment',
  describedby: id('wdrs:describedby'),
  license: id('dcterms:license'),
  modified: { '@id': 'dcterms:modified', '@type': 'xsd:dateTime' },
  isReplacedBy: id('dcterms:isReplacedBy'),
});

/** The document served at CONTEXT_PATH. */
export function contextDocument(): string {
  return `${JSON.stringify({ '@context': CONTEXT }, null, 2)}\n`;
}

/** Compacted, framed JSON-LD whose `@context` is the URL of the served context. */
export async function toJsonLd(description: Description, contextUrl: string): Promise<string> {
  const expanded = await jsonld.fromRDF(toNTriples(description), { format: 'application/n-quads' });
  const framed = await jsonld.frame(
    expanded,
    { '@context': CONTEXT, '@id': description.subject, '@embed': '@once' } as Parameters<
      typeof jsonld.frame
    >[1],
    { omitGraph: true } as jsonld.Options.Frame,
  );
  return `${JSON.stringify({ ...framed, '@context': contextUrl }, null, 2)}\n`;
}
