// The registry's history in a remote store (layout.ts, docs/history.md): its versions listed in
// the registry, its events in one graph a version, its descriptions in graphs named by their
// content hash. The loader and `versions use` append a version here (`appendVersion`); a replica
// reads the history it serves (`remoteHistory`), the descriptions only when a memento is asked.
// Every read is paged (ORDER BY + LIMIT, each page after the last row read), since a store may cap
// an answer's rows without saying so (Virtuoso's ResultSetMaxRows).
import { MemoryHistory } from '../../history/memory';
import {
  diff,
  statesAfterEvents,
  versionTime,
  type Change,
  type EventKind,
  type History,
  type HistoryEvent,
  type InstitutionState,
} from '../../history/model';
import { writeTriples } from '../../history/text';
import { institutionIri } from '../../rdf/iris';
import type { Isil } from '../../rdf/isil';
import { toDescription } from '../../rdf/description';
import { canonicalNTriples } from './canonicalNTriples';
import {
  DESCRIPTION_PREFIX,
  descriptionText,
  eventsGraph,
  hashGraph,
  hashOfGraph,
  HISTORY_PREFIX,
  HISTORY_TERMS as H,
  PAGE,
  timeOfGraph,
  type HistoryStep,
} from './layout';
import { graphsStartingWith, listTimeline } from './registry';
import type { SparqlClient } from './sparqlClient';
import type { Transport } from './versionWriter';

const JSON_RESULTS = 'application/sparql-results+json';
const XSD_INTEGER = 'http://www.w3.org/2001/XMLSchema#integer';
const KINDS: ReadonlySet<string> = new Set(['created', 'updated', 'withdrawn', 'deleted']);
/** Hashes asked about in one query. */
const HASH_CHUNK = 1_000;

type Row = Record<string, { value: string } | undefined>;

async function select(client: SparqlClient, query: string): Promise<Row[]> {
  const { body } = await client.query(query, JSON_RESULTS);
  return (JSON.parse(body) as { results: { bindings: Row[] } }).results.bindings;
}

/** The history as the store holds it: its versions, and the events of each, in order. */
export interface StoredHistory {
  readonly timeline: readonly HistoryStep[];
  /** Every event of the versions listed, in order of time, then ISIL. */
  readonly events: readonly HistoryEvent[];
}

/**
 * Every event of the history's listed versions, in order of time then ISIL: read in pages after the
 * last (time, ISIL) read. Events of a version the registry does not list (a killed load's) are
 * left out.
 */
export async function readEvents(
  client: SparqlClient,
  timeline: readonly HistoryStep[],
): Promise<HistoryEvent[]> {
  const listed = new Map(timeline.map((step) => [step.time, step.version]));
  const events: HistoryEvent[] = [];
  let after: { time: number; isil: string } | undefined;
  for (;;) {
    const rows = await select(client, eventsQuery(after));
    if (rows.length === 0) return events;
    for (const row of rows) {
      const time = Number(row.time?.value);
      const isil = row.isil?.value ?? '';
      const kind = row.kind?.value ?? '';
      after = { time, isil };
      const graphTime = timeOfGraph(row.g?.value ?? '');
      if (graphTime !== time || listed.get(time) !== row.version?.value || !KINDS.has(kind))
        continue;
      const successors = row.successors?.value.split(' ').filter(Boolean) ?? [];
      events.push({
        kind: kind as EventKind,
        isil,
        version: row.version!.value,
        time,
        ...(row.hash ? { hash: row.hash.value } : {}),
        ...(successors.length > 0 ? { successors } : {}),
      });
    }
  }
}

function eventsQuery(after: { time: number; isil: string } | undefined): string {
  const from = after
    ? `FILTER(?time > ${after.time} || (?time = ${after.time} && STR(?isil) > ${JSON.stringify(after.isil)}))`
    : '';
  return `SELECT ?g ?time ?isil ?kind ?version ?hash ?successors WHERE {
  GRAPH ?g {
    ?event <${H.time}> ?time ; <${H.isil}> ?isil ; <${H.kind}> ?kind ; <${H.version}> ?version .
    OPTIONAL { ?event <${H.hash}> ?hash }
    OPTIONAL { ?event <${H.successors}> ?successors }
  }
  FILTER(STRSTARTS(STR(?g), "${HISTORY_PREFIX}"))
  ${from}
}
ORDER BY ?time STR(?isil)
LIMIT ${PAGE}`;
}

/** The history's versions and events as the store holds them. */
export async function readStoredHistory(client: SparqlClient): Promise<StoredHistory> {
  const timeline = await listTimeline(client);
  return { timeline, events: timeline.length === 0 ? [] : await readEvents(client, timeline) };
}

/**
 * The hashes among `hashes` whose description graphs the store holds: graphs with their one text
 * (a graph an earlier version of this service wrote as triples counts as missing, and gains the
 * text). Asked only when the store holds any: a first load asks once.
 */
export async function presentDescriptions(
  client: SparqlClient,
  hashes: Iterable<string>,
): Promise<Set<string>> {
  const present = new Set<string>();
  const all = [...new Set(hashes)];
  if (all.length === 0) return present;
  const { body } = await client.query(
    `ASK WHERE { GRAPH ?g { ?g <${H.text}> ?text } }`,
    JSON_RESULTS,
  );
  if ((JSON.parse(body) as { boolean?: boolean }).boolean !== true) return present;
  for (let i = 0; i < all.length; i += HASH_CHUNK) {
    let asked = all.slice(i, i + HASH_CHUNK);
    // An answer capped below the rows it has looks like graphs missing: the rest is asked again
    // until an answer finds none of them.
    while (asked.length > 0) {
      const values = asked.map((hash) => `<${hashGraph(hash)}>`).join(' ');
      const rows = await select(
        client,
        `SELECT DISTINCT ?g WHERE { VALUES ?g { ${values} } GRAPH ?g { ?g <${H.text}> ?text } }`,
      );
      const found = new Set(rows.flatMap((row) => hashOfGraph(row.g?.value ?? '') ?? []));
      if (found.size === 0) break;
      for (const hash of found) present.add(hash);
      asked = asked.filter((hash) => !found.has(hash));
    }
  }
  return present;
}

/** The description graphs and events graphs the store holds, listed or not. */
export async function historyGraphs(
  client: SparqlClient,
): Promise<{ descriptions: string[]; events: string[] }> {
  return {
    descriptions: await graphsStartingWith(client, DESCRIPTION_PREFIX),
    events: await graphsStartingWith(client, HISTORY_PREFIX),
  };
}

/** The triples of one version's events graph. */
export function eventTriples(step: HistoryStep, changes: readonly Change[]): string[] {
  const integer = (n: number) => `"${n}"^^<${XSD_INTEGER}>`;
  const lines: string[] = [];
  for (const change of changes) {
    const e = `<urn:isil-ld:event:${step.time}:${encodeURIComponent(change.isil)}>`;
    lines.push(
      `${e} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${H.event}> .`,
      `${e} <${H.kind}> ${JSON.stringify(change.kind)} .`,
      `${e} <${H.isil}> ${JSON.stringify(change.isil)} .`,
      `${e} <${H.version}> ${JSON.stringify(step.version)} .`,
      `${e} <${H.time}> ${integer(step.time)} .`,
    );
    if (change.hash !== undefined) lines.push(`${e} <${H.hash}> ${JSON.stringify(change.hash)} .`);
    if (change.successors && change.successors.length > 0)
      lines.push(`${e} <${H.successors}> ${JSON.stringify(change.successors.join(' '))} .`);
  }
  return lines;
}

/** What a new version of the history is, before it is written. */
export interface NextVersion {
  readonly version: string;
  readonly states: ReadonlyMap<string, InstitutionState>;
  /** The canonical description of each live ISIL (only those created or updated are read). */
  readonly description: (isil: string) => string | undefined;
  readonly now?: Date;
}

/** What appending a version wrote. */
export interface Appended {
  /** The version's place in the history; undefined when the history already ends with it. */
  readonly step: HistoryStep | undefined;
  readonly changes: readonly Change[];
  /** Description graphs written (those the store lacked). */
  readonly descriptionsWritten: number;
}

/**
 * The graphs of `next` as the history's next version, and its step: its difference from the
 * history's last version, the description graphs the store lacks, its events graph. Nothing is
 * written; undefined `step` when the history ends with this version already.
 */
export async function nextVersion(
  client: SparqlClient,
  stored: StoredHistory,
  next: NextVersion,
): Promise<Appended & { graphs: Map<string, string[]> }> {
  const last = stored.timeline.at(-1);
  if (last?.version === next.version)
    return { step: undefined, changes: [], descriptionsWritten: 0, graphs: new Map() };
  const changes = diff(last ? statesAfterEvents(stored.events) : undefined, next.states);
  let institutions = 0;
  for (const state of next.states.values()) if (state.status === 'live') institutions++;
  const step: HistoryStep = {
    version: next.version,
    time: versionTime(next.now ?? new Date(), last?.time),
    institutions,
    withdrawn: next.states.size - institutions,
    events: changes.length,
  };
  const wanted = new Map<string, string>();
  for (const change of changes) if (change.hash) wanted.set(change.hash, change.isil);
  const present = await presentDescriptions(client, wanted.keys());
  const graphs = new Map<string, string[]>();
  for (const [hash, isil] of wanted) {
    if (present.has(hash)) continue;
    const text = next.description(isil);
    if (text === undefined) throw new Error(`no description of ${isil} to keep in the history`);
    graphs.set(hashGraph(hash), [descriptionText(hash, text)]);
  }
  const descriptionsWritten = graphs.size;
  if (changes.length > 0) graphs.set(eventsGraph(step.time), eventTriples(step, changes));
  return { step, changes, descriptionsWritten, graphs };
}

/**
 * The events graphs of versions after `time` (none: every one): those of loads killed before their
 * version was listed, which the next load drops.
 */
export async function unlistedEvents(
  client: SparqlClient,
  time: number | undefined,
): Promise<string[]> {
  const rows = await select(
    client,
    `SELECT DISTINCT ?g WHERE { GRAPH ?g { ?event <${H.time}> ?time } FILTER(STRSTARTS(STR(?g), "${HISTORY_PREFIX}")${time === undefined ? '' : ` && ?time > ${time}`}) }`,
  );
  return rows.flatMap((row) => (row.g ? [row.g.value] : []));
}

/**
 * Writes `next` as the history's next version through `transport`: the events graphs a killed load
 * left are dropped, then the description graphs the store lacks and the version's events graph
 * written. Not published: the registry's write that lists the returned step does that.
 */
export async function writeHistoryVersion(
  transport: Transport,
  client: SparqlClient,
  next: NextVersion,
  stored?: StoredHistory,
): Promise<Appended> {
  const history = stored ?? (await readStoredHistory(client));
  const { graphs, ...appended } = await nextVersion(client, history, next);
  if (appended.step === undefined) return appended;
  const stale = await unlistedEvents(client, history.timeline.at(-1)?.time);
  if (stale.length > 0) await transport.dropGraphs(stale);
  await transport.writeGraphs(graphs);
  return appended;
}

/**
 * The history a replica serves with `version`: the registry's versions up to the last that names
 * it, their events, and each memento's description read from its hash graph when asked for.
 * Undefined when the history never names the version (one loaded before the store kept history).
 */
export async function remoteHistory(
  client: SparqlClient,
  version: string,
  baseIri: string,
): Promise<History | undefined> {
  const timeline = await listTimeline(client);
  let end = -1;
  timeline.forEach((step, i) => {
    if (step.version === version) end = i;
  });
  if (end === -1) return undefined;
  const served = timeline.slice(0, end + 1);
  const events = await readEvents(client, served);
  return new MemoryHistory(
    served.map(({ version: v, time }) => ({ version: v, time })),
    events,
    (event) => readHashDescription(client, baseIri, event),
  );
}

/**
 * The canonical description a memento serves, from its hash graph: its one string, or (a graph
 * written by an earlier version of this service) its triples.
 */
export async function readHashDescription(
  client: SparqlClient,
  baseIri: string,
  event: HistoryEvent,
): Promise<string> {
  const graph = hashGraph(event.hash ?? '');
  const [row] = await select(
    client,
    `SELECT ?text WHERE { GRAPH <${graph}> { <${graph}> <${H.text}> ?text } } LIMIT 1`,
  );
  let text = row?.text?.value;
  if (text === undefined) {
    const { body } = await client.query(
      `CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <${graph}> { ?s ?p ?o } }`,
      'application/n-triples',
    );
    text = canonicalNTriples(body);
  }
  if (text.trim() === '')
    throw new Error(`the store holds no description ${event.hash ?? ''} of ${event.isil}`);
  return writeTriples(toDescription(institutionIri(baseIri, event.isil as Isil), text).triples);
}
