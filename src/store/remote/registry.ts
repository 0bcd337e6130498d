// The registry of a remote store's versions (layout.ts) as both ways of writing read it, and the
// one statement that publishes a version: a SPARQL 1.1 Update that replaces the registry graph's
// content in one transaction, or, where only the Graph Store Protocol is open, one PUT of it.
import {
  readRegistry,
  REGISTRY,
  REGISTRY_QUERY,
  registryTriples,
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

/** A SPARQL Update that makes the registry graph hold exactly `ntriples`, in one statement. */
export function replaceRegistry(ntriples: string): string {
  return `WITH <${REGISTRY}> DELETE { ?s ?p ?o } INSERT { ${ntriples} } WHERE { OPTIONAL { ?s ?p ?o } }`;
}
