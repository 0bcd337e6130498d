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
//   urn:isil-ld:history:<t>                  the events of the history's version at time <t>
//                                            (seconds): one resource an event
//   urn:isil-ld:description:<hash>           a description the history keeps (canonical, with
//                                            its links), named by its content hash: written
//                                            once, shared by every event of that hash
//
// The history's versions (each a dataset version and its time) are listed in the registry too,
// `<urn:isil-ld:history:<t>>` each: the registry's write that marks a version current is the one
// that adds it to the history, so events of a version never listed (a killed load) are ignored by
// readers and dropped by the next load.
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
export const VERSION_PREFIX = 'urn:isil-ld:version:';
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

/** The prefix of every events graph of the history. */
export const HISTORY_PREFIX = 'urn:isil-ld:history:';
/** The prefix of every description graph of the history. */
export const DESCRIPTION_PREFIX = 'urn:isil-ld:description:';
/** The properties of the history's versions and events. */
export const HISTORY_TERMS = {
  step: 'urn:isil-ld:history#Version',
  event: 'urn:isil-ld:history#Event',
  version: 'urn:isil-ld:history#version',
  time: 'urn:isil-ld:history#time',
  institutions: 'urn:isil-ld:history#institutions',
  withdrawn: 'urn:isil-ld:history#withdrawn',
  events: 'urn:isil-ld:history#events',
  kind: 'urn:isil-ld:history#kind',
  isil: 'urn:isil-ld:history#isil',
  hash: 'urn:isil-ld:history#hash',
  successors: 'urn:isil-ld:history#successors',
  /** A description graph's one triple: the canonical N-Triples of the description, as a string. */
  text: 'urn:isil-ld:history#text',
} as const;

const HASH = /^[0-9a-f]{32}$/;

/** The graph of the description whose content hash is `hash` (32 hex digits). */
export function hashGraph(hash: string): CheckedIri {
  if (!HASH.test(hash)) throw new Error(`not a description's hash: ${JSON.stringify(hash)}`);
  return `${DESCRIPTION_PREFIX}${hash}` as CheckedIri;
}

/** The hash of a description graph's name, else undefined. */
export function hashOfGraph(graph: string): string | undefined {
  const hash = graph.slice(DESCRIPTION_PREFIX.length);
  return graph.startsWith(DESCRIPTION_PREFIX) && HASH.test(hash) ? hash : undefined;
}

/** The graph of the events of the history's version at `time` (its name in the registry too). */
export function eventsGraph(time: number): CheckedIri {
  if (!Number.isSafeInteger(time)) throw new Error(`not a version's time: ${time}`);
  return `${HISTORY_PREFIX}${time}` as CheckedIri;
}

/** The time of an events graph's name, else undefined. */
export function timeOfGraph(graph: string): number | undefined {
  const time = graph.slice(HISTORY_PREFIX.length);
  return graph.startsWith(HISTORY_PREFIX) && /^-?\d+$/.test(time) ? Number(time) : undefined;
}

/** A version of the history as the registry lists it: the dataset version, its time, its counts. */
export interface HistoryStep {
  readonly version: string;
  /** Seconds since the epoch, UTC; strictly after the previous step's. */
  readonly time: number;
  readonly institutions: number;
  readonly withdrawn: number;
  readonly events: number;
}

const literal = (text: string) => JSON.stringify(text);

/**
 * The one line of a description graph of the history: its canonical N-Triples as one string, so that
 * a description costs the store one quad to load, not one a triple (descriptions are read back
 * whole, when a memento is asked, never queried).
 */
export function descriptionText(hash: string, text: string): string {
  const graph = hashGraph(hash);
  return `<${graph}> <${HISTORY_TERMS.text}> ${literal(text)} .`;
}
const integer = (n: number) => `"${n}"^^<${XSD}integer>`;

/** The registry's lines of the history's versions. */
function timelineTriples(timeline: readonly HistoryStep[]): string[] {
  const h = HISTORY_TERMS;
  return timeline.flatMap((step) => {
    const s = `<${eventsGraph(step.time)}>`;
    return [
      `${s} <${PREFIXES.rdf}type> <${h.step}> .`,
      `${s} <${h.version}> ${literal(checkedVersion(step.version))} .`,
      `${s} <${h.time}> ${integer(step.time)} .`,
      `${s} <${h.institutions}> ${integer(step.institutions)} .`,
      `${s} <${h.withdrawn}> ${integer(step.withdrawn)} .`,
      `${s} <${h.events}> ${integer(step.events)} .`,
    ];
  });
}

/**
 * The registry graph as N-Triples: `entries` listed, `current` marked, and the history's versions
 * (`timeline`, kept whole whatever versions are listed: a pruned version stays in the history).
 */
export function registryTriples(
  entries: readonly VersionEntry[],
  current: string,
  timeline: readonly HistoryStep[] = [],
): string {
  const lines: string[] = timelineTriples(timeline);
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

/** Steps of the history read at once: under the rows a store gives and sorts in one answer. */
export const PAGE = 10_000;

/**
 * The query of the history's versions after `time` (none: from the first), oldest first, a page
 * at most: a store may cap an answer's rows without saying so, so the reader asks again after the
 * last step it got until a page comes back empty.
 */
export function timelineQuery(after: number | undefined): string {
  const h = HISTORY_TERMS;
  return `SELECT ?version ?time ?institutions ?withdrawn ?events
FROM <${REGISTRY}>
WHERE {
  ?step a <${h.step}> ; <${h.version}> ?version ; <${h.time}> ?time ;
     <${h.institutions}> ?institutions ; <${h.withdrawn}> ?withdrawn ; <${h.events}> ?events .
  ${after === undefined ? '' : `FILTER(?time > ${after})`}
}
ORDER BY ?time
LIMIT ${PAGE}`;
}

/** The history's versions of a page of `timelineQuery` (SPARQL JSON bindings). */
export function readTimeline(
  bindings: readonly Record<string, { value: string } | undefined>[],
): HistoryStep[] {
  const steps: HistoryStep[] = [];
  for (const b of bindings) {
    const version = b.version?.value ?? '';
    const time = Number(b.time?.value);
    if (!VERSION.test(version) || !Number.isSafeInteger(time)) continue;
    steps.push({
      version,
      time,
      institutions: Number(b.institutions?.value ?? 0),
      withdrawn: Number(b.withdrawn?.value ?? 0),
      events: Number(b.events?.value ?? 0),
    });
  }
  return steps;
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
