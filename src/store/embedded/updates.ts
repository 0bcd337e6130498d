// The updates and checks a load runs on the store it fills: SPARQL belongs to the store, and the
// loader asks for what it needs by name (remove these institutions' descriptions, is there an
// institution under this base, serve data minted under the other scheme under this one).
import { PREFIXES } from '../../rdf/namespaces';
import { descriptionIriOf, otherScheme, RESOURCE_PATH } from '../../rdf/iris';
import { MAX_BLANK_NODE_DEPTH } from '../descriptions';
import { checkedIri } from '../queries';
import type { DatasetStore } from './datasetStore';

/** Institutions removed by one SPARQL update (NOT IN over the list is checked per URL node). */
const REMOVAL_BATCH = 256;

/**
 * The SPARQL update that removes the descriptions of institutions from a store: the graph of each
 * (`placeDescriptions` put its description there), and, for a store whose default graph holds
 * descriptions not placed yet, what `descriptionQuads` would place: the blank nodes below each,
 * deepest level first; its description document; the URL and e-mail nodes no subject but these
 * links to; its own triples. One update for many institutions: each operation is parsed and
 * planned once, not per record.
 */
export function removalUpdate(iris: readonly string[]): string {
  const list = iris.map((iri) => `<${checkedIri(iri)}>`);
  const values = `VALUES ?r { ${list.join(' ')} }`;
  const operations: string[] = [];
  for (let depth = MAX_BLANK_NODE_DEPTH; depth >= 1; depth--) {
    const chain: string[] = [];
    const blank: string[] = [];
    let previous = '?r';
    for (let level = 1; level < depth; level++) {
      chain.push(`${previous} ?l${level} ?b${level} .`);
      blank.push(`isBlank(?b${level})`);
      previous = `?b${level}`;
    }
    chain.push(`${previous} ?l${depth} ?s . ?s ?p ?o .`);
    blank.push('isBlank(?s)');
    operations.push(
      `DELETE { ?s ?p ?o } WHERE { ${values} ${chain.join(' ')} FILTER(${blank.join(' && ')}) }`,
    );
  }
  operations.push(
    `DELETE { ?s ?p ?o } WHERE { ${values} ?r <${PREFIXES.wdrs}describedby> ?s . ?s ?p ?o FILTER(isIRI(?s)) }`,
    `DELETE { ?s ?p ?o } WHERE { ${values} ?r ?link ?s . ?s ?p ?o ` +
      `FILTER(?link IN (<${PREFIXES.v}url>, <${PREFIXES.v}email>) && isIRI(?s)) ` +
      `FILTER NOT EXISTS { ?other ?any ?s FILTER(?other NOT IN (${list.join(', ')})) } }`,
    `DELETE { ?r ?p ?o } WHERE { ${values} ?r ?p ?o }`,
  );
  const graphs = iris.flatMap((iri) => {
    const graph = descriptionIriOf(iri);
    return graph === undefined ? [] : [`<${checkedIri(graph)}>`];
  });
  if (graphs.length > 0)
    operations.push(
      `DELETE { GRAPH ?g { ?s ?p ?o } } WHERE { VALUES ?g { ${graphs.join(' ')} } GRAPH ?g { ?s ?p ?o } }`,
    );
  return operations.join(' ;\n');
}

/** Removes the descriptions of `iris` from `store`, REMOVAL_BATCH institutions an update. */
export function removeDescriptions(store: DatasetStore, iris: readonly string[]): void {
  for (let i = 0; i < iris.length; i += REMOVAL_BATCH) {
    store.update(removalUpdate(iris.slice(i, i + REMOVAL_BATCH)));
  }
}

/** Whether the store has anything that may be an institution: a foaf:Organization under the base. */
export function holdsInstitution(store: DatasetStore, baseIri: string): boolean {
  return store.ask(
    `ASK { ?i a <${PREFIXES.foaf}Organization> FILTER(isIRI(?i) && STRSTARTS(STR(?i), ${JSON.stringify(`${baseIri}${RESOURCE_PATH}`)})) }`,
  );
}

/**
 * Data minted with `http://` for an `https://` base (or the reverse) is served under the configured
 * base (docs/data-model.md, Identifiers). Subjects and objects are rewritten; returns how many triples.
 */
export function rewriteHttpBase(store: DatasetStore, baseIri: string): number {
  const from = JSON.stringify(`${otherScheme(baseIri)}/`);
  const to = JSON.stringify(`${baseIri}/`);
  const matches = `FILTER((isIRI(?s) && STRSTARTS(STR(?s), ${from})) || (isIRI(?o) && STRSTARTS(STR(?o), ${from})))`;
  const count = store.select(`SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o ${matches} }`)[0]?.n?.value;
  const n = Number(count ?? 0);
  if (n === 0) return 0;
  const swap = (v: string) =>
    `IF(isIRI(?${v}) && STRSTARTS(STR(?${v}), ${from}), IRI(CONCAT(${to}, STRAFTER(STR(?${v}), ${from}))), ?${v})`;
  store.update(
    `DELETE { ?s ?p ?o } INSERT { ?s2 ?p ?o2 } WHERE { ?s ?p ?o ${matches} BIND(${swap('s')} AS ?s2) BIND(${swap('o')} AS ?o2) }`,
  );
  return n;
}
