// The registry of a remote store's versions (layout.ts) as both ways of writing read it: the
// versions listed, the registry with one more, and the graphs each version has in the store.
import {
  readRegistry,
  REGISTRY_QUERY,
  registryTriples,
  versionGraph,
  versionOfGraph,
  type VersionEntry,
} from './layout';
import type { SparqlClient } from './sparqlClient';

/** Every complete version the store lists, the current one marked. */
export async function listVersions(
  client: SparqlClient,
): Promise<{ entries: VersionEntry[]; current: VersionEntry | undefined }> {
  const { body } = await client.query(REGISTRY_QUERY, 'application/sparql-results+json');
  const parsed = JSON.parse(body) as {
    results: { bindings: Record<string, { value: string } | undefined>[] };
  };
  return readRegistry(parsed.results.bindings);
}

/** The registry as N-Triples with `entry` listed (replacing an older entry of it) and current. */
export async function registryWith(client: SparqlClient, entry: VersionEntry): Promise<string> {
  const { entries } = await listVersions(client);
  return registryTriples(
    [...entries.filter((e) => e.version !== entry.version), entry],
    entry.version,
  );
}

/** Every graph of the store whose name is a version's (its own, or a description's). */
const VERSION_GRAPHS = `SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "urn:isil-ld:version:")) }`;

/** The versions that have graphs in the store, listed in the registry or not. */
export async function storedVersions(client: SparqlClient): Promise<string[]> {
  const found = new Set<string>();
  for (const graph of await graphNames(client, VERSION_GRAPHS)) {
    const version = versionOfGraph(graph);
    if (version) found.add(version);
  }
  return [...found];
}

/** The graphs of `version`: its own and each description's. */
export function graphsOf(client: SparqlClient, version: string): Promise<string[]> {
  const prefix = versionGraph(version);
  return graphNames(
    client,
    `SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "${prefix}")) }`,
  );
}

async function graphNames(client: SparqlClient, query: string): Promise<string[]> {
  const { body } = await client.query(query, 'application/sparql-results+json');
  const parsed = JSON.parse(body) as { results: { bindings: { g?: { value: string } }[] } };
  return parsed.results.bindings.flatMap((b) => (b.g ? [b.g.value] : []));
}
