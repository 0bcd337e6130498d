// The registry of a remote store's versions (layout.ts) as both ways of writing read it: the
// versions listed, the history's versions, the registry with one more, and the graphs each version
// has in the store.
import {
  PAGE,
  readRegistry,
  readTimeline,
  timelineQuery,
  type HistoryStep,
  REGISTRY_QUERY,
  registryTriples,
  versionGraph,
  versionOfGraph,
  VERSION_PREFIX,
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

/** The history's versions the registry lists, oldest first (read in pages). */
export async function listTimeline(client: SparqlClient): Promise<HistoryStep[]> {
  const steps: HistoryStep[] = [];
  for (;;) {
    const { body } = await client.query(
      timelineQuery(steps.at(-1)?.time),
      'application/sparql-results+json',
    );
    const parsed = JSON.parse(body) as {
      results: { bindings: Record<string, { value: string } | undefined>[] };
    };
    const page = readTimeline(parsed.results.bindings);
    if (page.length === 0) return steps;
    steps.push(...page);
  }
}

/**
 * The registry as N-Triples with `entry` listed (replacing an older entry of it) and current, and
 * `step` added to the history's versions when given.
 */
export async function registryWith(
  client: SparqlClient,
  entry: VersionEntry,
  step?: HistoryStep,
): Promise<string> {
  const { entries } = await listVersions(client);
  const timeline = await listTimeline(client);
  return registryTriples(
    [...entries.filter((e) => e.version !== entry.version), entry],
    entry.version,
    step ? [...timeline, step] : timeline,
  );
}

/** The versions that have graphs in the store, listed in the registry or not. */
export async function storedVersions(client: SparqlClient): Promise<string[]> {
  const found = new Set<string>();
  for (const graph of await graphsStartingWith(client, VERSION_PREFIX)) {
    const version = versionOfGraph(graph);
    if (version) found.add(version);
  }
  return [...found];
}

/** The graphs of `version`: its own and each description's. */
export function graphsOf(client: SparqlClient, version: string): Promise<string[]> {
  return graphsStartingWith(client, versionGraph(version));
}

/**
 * Every graph of the store whose name starts with `prefix`, in pages ordered by name, each after
 * the last one read: a store may cap an answer's rows without saying so (Virtuoso's
 * ResultSetMaxRows), so only an empty page ends the list.
 */
export async function graphsStartingWith(client: SparqlClient, prefix: string): Promise<string[]> {
  const graphs: string[] = [];
  for (;;) {
    const after = graphs.at(-1);
    const { body } = await client.query(
      `SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), ${JSON.stringify(prefix)})${after === undefined ? '' : ` && STR(?g) > ${JSON.stringify(after)}`}) } ORDER BY STR(?g) LIMIT ${PAGE}`,
      'application/sparql-results+json',
    );
    const parsed = JSON.parse(body) as { results: { bindings: { g?: { value: string } }[] } };
    const page = parsed.results.bindings.flatMap((b) => (b.g ? [b.g.value] : []));
    if (page.length === 0) return graphs;
    graphs.push(...page);
  }
}
