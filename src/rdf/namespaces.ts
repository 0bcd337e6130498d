// The prefixes of the published model (docs/data-model.md), used by every serializer and the context.

export const PREFIXES = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  owl: 'http://www.w3.org/2002/07/owl#',
  foaf: 'http://xmlns.com/foaf/0.1/',
  v: 'http://www.w3.org/2006/vcard/ns#',
  dbp: 'http://dbpedia.org/property/',
  dc: 'http://purl.org/dc/elements/1.1/',
  dcterms: 'http://purl.org/dc/terms/',
  dcmitype: 'http://purl.org/dc/dcmitype/',
  geo: 'http://www.opengis.net/ont/geosparql#',
  wgs84: 'http://www.w3.org/2003/01/geo/wgs84_pos#',
  schema: 'http://schema.org/',
  gbv: 'http://purl.org/ontology/gbv/',
  wdrs: 'http://www.w3.org/2007/05/powder-s#',
  cdtype: 'http://purl.org/cld/cdtype/',
} as const;

export type Prefix = keyof typeof PREFIXES;

export const RDF_TYPE = `${PREFIXES.rdf}type`;
export const XSD_STRING = `${PREFIXES.xsd}string`;
export const CC0 = 'http://creativecommons.org/publicdomain/zero/1.0/';
/** The IRI space every Wikidata item is published under, and the GND's (links out, src/load/read/wikidata.ts). */
export const WIKIDATA = 'http://www.wikidata.org/entity/';
export const GND = 'https://d-nb.info/gnd/';
