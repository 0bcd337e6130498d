// The SPARQL 1.1 Service Description of the staff endpoint: what it can do (its language, result
// formats, the union default graph, the dataset's size), never the data. Public, so that a client
// can learn how to talk to the endpoint before it has credentials.
import type { Dataset } from '../../store/dataset';
import { RESULT_FORMATS } from '../../store/staff';

const SD = 'http://www.w3.org/ns/sparql-service-description#';
const FORMATS_NS = 'http://www.w3.org/ns/formats/';
const VOID = 'http://rdfs.org/ns/void#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const DCTERMS = 'http://purl.org/dc/terms/';
const XSD = 'http://www.w3.org/2001/XMLSchema#';

/** The W3C format IRIs (https://www.w3.org/ns/formats/) of the result formats. */
const FORMAT_IRIS: Readonly<Record<string, string>> = {
  json: 'SPARQL_Results_JSON',
  xml: 'SPARQL_Results_XML',
  csv: 'SPARQL_Results_CSV',
  tsv: 'SPARQL_Results_TSV',
  ttl: 'Turtle',
  nt: 'N-Triples',
  rdf: 'RDF_XML',
  jsonld: 'JSON-LD',
};

const iri = (value: string) => `<${value}>`;
const literal = (value: string | number, datatype?: string) =>
  `${JSON.stringify(String(value))}${datatype ? `^^<${datatype}>` : ''}`;

/**
 * The description as N-Triples, its service node `<endpoint#service>`. `dataset` is the one
 * served (its size and version), or undefined while none is loaded.
 */
export function serviceDescription(endpoint: string, dataset: Dataset | undefined): string {
  const service = iri(`${endpoint}#service`);
  const triples: string[] = [
    `${service} <${RDF_TYPE}> <${SD}Service> .`,
    `${service} <${SD}endpoint> ${iri(endpoint)} .`,
    `${service} <${SD}supportedLanguage> <${SD}SPARQL11Query> .`,
    `${service} <${SD}feature> <${SD}UnionDefaultGraph> .`,
    `${service} <${SD}defaultEntailmentRegime> <http://www.w3.org/ns/entailment/Simple> .`,
    `${service} <${DCTERMS}description> ${literal('The staff SPARQL endpoint of the ISIL Linked Data service: read-only, for authenticated staff; every description is a named graph, and the default graph is their union.')} .`,
  ];
  const kinds = new Set(Object.values(RESULT_FORMATS).flatMap((list) => list.map((f) => f.kind)));
  for (const kind of kinds)
    triples.push(`${service} <${SD}resultFormat> <${FORMATS_NS}${FORMAT_IRIS[kind]}> .`);
  triples.push(
    `${service} <${SD}defaultDataset> _:dataset .`,
    `_:dataset <${RDF_TYPE}> <${SD}Dataset> .`,
    `_:dataset <${SD}defaultGraph> _:union .`,
    `_:union <${RDF_TYPE}> <${SD}Graph> .`,
  );
  if (dataset !== undefined)
    triples.push(
      `_:union <${VOID}triples> ${literal(dataset.tripleCount, `${XSD}integer`)} .`,
      `_:union <${VOID}entities> ${literal(dataset.institutionCount, `${XSD}integer`)} .`,
      `_:dataset <${DCTERMS}identifier> ${literal(dataset.version)} .`,
      `_:dataset <${DCTERMS}license> <http://creativecommons.org/publicdomain/zero/1.0/> .`,
    );
  return `${triples.join('\n')}\n`;
}
