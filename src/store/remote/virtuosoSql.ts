// The SQL the bulk loader's transport runs in Virtuoso (virtuosoBulk.ts) to copy quads from graph
// to graph inside the store: a version's graph made from its description graphs, and a version
// made from another one's graphs but the descriptions an update replaces (nothing crosses the
// network but the statement).
import { versionGraph } from './layout';

/** Text safe inside a single-quoted SQL string and an isql script (no `;`, which ends a statement). */
export function sqlText(text: string): string {
  return text.replace(/'/g, "''").replace(/;/g, ',');
}

// The ids of the graphs named `prefix…`, from Virtuoso's table of IRIs (a name: its prefix's id and
// the rest), not `id_to_iri` over every quad: its cache once gave 7.2.5 a name it refused (SR014).
export const graphsNamed = (prefix: string) =>
  `SELECT i.RI_ID FROM DB.DBA.RDF_IRI i, DB.DBA.RDF_PREFIX p WHERE p.RP_ID = iri_name_id(i.RI_NAME) AND iri_from_pref_name(p.RP_NAME, i.RI_NAME) LIKE '${sqlText(prefix)}%'`;

/** Copies the graphs named `prefix…` into `graph` under log_enable(2, 1), as the bulk loader runs. */
export function copyGraphs(prefix: string, graph: string): string {
  return `log_enable(2, 1); INSERT SOFT DB.DBA.RDF_QUAD (G, S, P, O) SELECT iri_to_id('${sqlText(graph)}'), q.S, q.P, q.O FROM DB.DBA.RDF_QUAD q WHERE q.G IN (${graphsNamed(prefix)});`;
}

/**
 * Copies every description graph of version `from` into version `to`, renamed (layout.ts), but
 * those named in `except` (their names in `from`): the graphs an update writes anew or removes.
 * Blank nodes are copied as the nodes they are, so both versions share them, each in its own
 * graphs: a version dropped later takes its quads only. The name of each graph is read once, from
 * the table of IRIs (as `graphsNamed`), not per quad.
 */
export function copiedVersion(from: string, to: string, except: readonly string[]): string {
  const source = `${versionGraph(from)}:`;
  const target = `${versionGraph(to)}:`;
  const names = `SELECT i.RI_ID AS ID, iri_from_pref_name(p.RP_NAME, i.RI_NAME) AS NAME FROM DB.DBA.RDF_IRI i, DB.DBA.RDF_PREFIX p WHERE p.RP_ID = iri_name_id(i.RI_NAME) AND iri_from_pref_name(p.RP_NAME, i.RI_NAME) LIKE '${sqlText(source)}%'`;
  const kept =
    except.length === 0
      ? ''
      : ` AND n.NAME NOT IN (${except.map((graph) => `'${sqlText(graph)}'`).join(', ')})`;
  return `log_enable(2, 1); INSERT SOFT DB.DBA.RDF_QUAD (G, S, P, O) SELECT iri_to_id(concat('${sqlText(target)}', subseq(n.NAME, ${source.length}))), q.S, q.P, q.O FROM DB.DBA.RDF_QUAD q, (${names}) n WHERE q.G = n.ID${kept};`;
}
