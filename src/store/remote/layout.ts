// The remote store's layout (docs/scaling.md, "The remote layout"): where each dataset version's
// triples are, and how the service and the loader agree on which version is current. Every version
// lives in graphs of its own, beside the others, and every query the service sends names the graphs
// of one version: a store such as Virtuoso matches every graph when a query names none, so versions
// never mix.
//
//   urn:isil-ld:versions                     the registry: each complete version, and the current one
//   urn:isil-ld:version:<v>                  every triple of version <v> (the staff default graph)
//   urn:isil-ld:version:<v>:<description>    the triples of one description (its graph in the
//                                            embedded store is <description> itself)
//   urn:isil-ld:version:<v>:<base>/data/links  the version's links to the same institutions
//                                            elsewhere, when a links source was loaded
//
// A version is listed in the registry only once all its graphs are written: a load that fails or
// is killed leaves graphs nobody reads, which the next load of those bytes replaces and `prune`
// drops. `<v>` is the dataset version (12 hex digits of the sha256 of the bytes loaded), the
// `Dataset-Version` every replica answers with.
import { PREFIXES } from '../../rdf/namespaces';
import type { CheckedIri } from '../queries';

export const REGISTRY = 'urn:isil-ld:versions';
/** `<registry> <current> <version graph>`: the version replicas serve on their next reload. */
export const CURRENT = 'urn:isil-ld:current';
const VERSION_PREFIX = 'urn:isil-ld:version:';
const VOID = 'http://rdfs.org/ns/void#';
const XSD = 'http://www.w3.org/2001/XMLSchema#';

const VERSION = /^[0-9a-f]{12}$/;

/** A dataset version's name as the store's graphs carry it: checked to be what a load makes. */
export function checkedVersion(version: string): string {
  if (!VERSION.test(version)) throw new Error(`not a dataset version: ${JSON.stringify(version)}`);
  return version;
}

/** The graph that holds every triple of `version`. */
export function versionGraph(version: string): CheckedIri {
  // A URN of fixed text and 12 hex digits: nothing in it can end the `<…>` it is written in.
  return `${VERSION_PREFIX}${checkedVersion(version)}` as CheckedIri;
}

/** The graph of one description of `version`: `description` is a checked IRI. */
export function descriptionGraph(version: string, description: string): CheckedIri {
  return `${versionGraph(version)}:${description}` as CheckedIri;
}

/** The version whose graph `graph` is (its own graph or a description's), else undefined. */
export function versionOfGraph(graph: string): string | undefined {
  if (!graph.startsWith(VERSION_PREFIX)) return undefined;
  const version = graph.slice(VERSION_PREFIX.length, VERSION_PREFIX.length + 12);
  return VERSION.test(version) ? version : undefined;
}

/** A complete version as the registry lists it. */
export interface VersionEntry {
  readonly version: string;
  /** When its load finished (ISO 8601). */
  readonly created: string;
  /** Its quads: the triples of its descriptions, counted per graph (as the embedded store counts). */
  readonly triples: number;
  /** The base IRI it was loaded for. */
  readonly baseIri: string;
  /** What it was loaded from, for the operator. */
  readonly sources: string;
}

const literal = (text: string) => JSON.stringify(text);

/** The registry graph as N-Triples: `entries` listed, `current` marked. */
export function registryTriples(entries: readonly VersionEntry[], current: string): string {
  const lines: string[] = [];
  for (const e of entries) {
    const s = `<${versionGraph(e.version)}>`;
    lines.push(
      `${s} <${PREFIXES.rdf}type> <${VOID}Dataset> .`,
      `${s} <${PREFIXES.dcterms}identifier> ${literal(e.version)} .`,
      `${s} <${PREFIXES.dcterms}created> ${literal(e.created)}^^<${XSD}dateTime> .`,
      `${s} <${VOID}triples> "${e.triples}"^^<${XSD}integer> .`,
      `${s} <${VOID}uriSpace> ${literal(e.baseIri)} .`,
      `${s} <${PREFIXES.dcterms}source> ${literal(e.sources)} .`,
    );
  }
  lines.push(`<${REGISTRY}> <${CURRENT}> <${versionGraph(current)}> .`);
  return `${lines.join('\n')}\n`;
}

/** The query that reads the registry: every version, the current one marked. */
export const REGISTRY_QUERY = `SELECT ?version ?created ?triples ?base ?sources ?current
FROM <${REGISTRY}>
WHERE {
  ?g <${PREFIXES.dcterms}identifier> ?version ; <${PREFIXES.dcterms}created> ?created ;
     <${VOID}triples> ?triples ; <${VOID}uriSpace> ?base .
  OPTIONAL { ?g <${PREFIXES.dcterms}source> ?sources }
  OPTIONAL { <${REGISTRY}> <${CURRENT}> ?current }
}`;

/** The registry as its query answers it (SPARQL JSON bindings). */
export function readRegistry(bindings: readonly Record<string, { value: string } | undefined>[]): {
  entries: VersionEntry[];
  current: VersionEntry | undefined;
} {
  const entries: VersionEntry[] = [];
  let current: VersionEntry | undefined;
  for (const b of bindings) {
    const version = b.version?.value ?? '';
    if (!VERSION.test(version)) continue;
    // Virtuoso writes a dateTime back in its own form; any other store as it was written.
    const entry: VersionEntry = {
      version,
      created: b.created?.value ?? '',
      triples: Number(b.triples?.value ?? 0),
      baseIri: b.base?.value ?? '',
      sources: b.sources?.value ?? '',
    };
    if (entries.some((e) => e.version === version)) continue;
    entries.push(entry);
    if (b.current?.value === versionGraph(version)) current = entry;
  }
  return { entries, current };
}
