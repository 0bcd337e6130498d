// The JSON-LD context of the published model, served by the service itself (GET /context.jsonld)
// and named by every JSON-LD document it serves. Apart from the JSON-LD library, so that the
// loader, which reads such documents back, does not load that library.
import { PREFIXES } from './namespaces';

/** Where the context is published, relative to BASE_IRI. */
export const CONTEXT_PATH = '/context.jsonld';

const id = (iri: string) => ({ '@id': iri, '@type': '@id' });

/**
 * The context of the published model: the prefixes, and short terms for the properties of
 * docs/data-model.md. Terms for IRI-valued properties coerce to `@id`; a literal value for one of them
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
