// The metadata formats the repository disseminates (OAI-PMH 2.0 §3.4): Dublin Core (`oai_dc`,
// which every repository must) and the description itself in RDF/XML (`rdf`, the `zdb` profile;
// `rdf-full`, the `full` profile), each written from
// the institution's description; the fields of `oai_dc` are the flat record's (src/record/flatRecord.ts).
import type { Description } from '../rdf/description';
import { SerializationError, toRdfXml } from '../rdf/rdfxml';
import type { FlatRecord } from '../record/flatRecord';
import { element } from './xml';

export interface MetadataFormat {
  readonly prefix: string;
  readonly schema: string;
  readonly namespace: string;
}

export const OAI_DC: MetadataFormat = {
  prefix: 'oai_dc',
  schema: 'http://www.openarchives.org/OAI/2.0/oai_dc.xsd',
  namespace: 'http://www.openarchives.org/OAI/2.0/oai_dc/',
};

/**
 * RDF/XML has no schema of its own; a description's vocabularies vary. The schema named is the
 * W3C's RDF/XML grammar document, as other OAI-PMH repositories that serve RDF name it.
 */
export const RDF: MetadataFormat = {
  prefix: 'rdf',
  schema: 'http://www.w3.org/2000/07/rdf.xsd',
  namespace: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
};

/** The description in the `full` profile (docs/data-model.md), in RDF/XML as `rdf` is. */
export const RDF_FULL: MetadataFormat = { ...RDF, prefix: 'rdf-full' };

export const FORMATS: readonly MetadataFormat[] = [OAI_DC, RDF, RDF_FULL];

export const formatOf = (prefix: string): MetadataFormat | undefined =>
  FORMATS.find((f) => f.prefix === prefix);

/**
 * The institution's Dublin Core: its names (`title`), its ISIL and URI (`identifier`), its kind
 * (`type`), its places (`coverage`) and when its record last changed (`date`: its
 * `dcterms:modified`, else the day of its datestamp).
 */
export function oaiDc(e: FlatRecord, datestamp: string): string {
  const fields = [
    element('dc:title', e.name),
    ...e.otherNames.map((n) => element('dc:title', n)),
    element('dc:identifier', e.isil),
    element('dc:identifier', e.iri),
    ...(e.type ? [element('dc:type', e.type)] : []),
    ...e.cities.map((c) => element('dc:coverage', c)),
    element('dc:date', (e.modified ?? datestamp).slice(0, 10)),
  ];
  return (
    '<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/">' +
    `${fields.join('')}</oai_dc:dc>`
  );
}

/**
 * The description in RDF/XML, as its `.rdf` document has it (without the XML declaration), or
 * undefined when RDF/XML cannot carry it (its `.rdf` answers 406).
 */
export function rdfXml(description: Description): string | undefined {
  try {
    return toRdfXml(description).replace(/^<\?xml[^>]*\?>\n/, '');
  } catch (error) {
    if (error instanceof SerializationError) return undefined;
    throw error;
  }
}
