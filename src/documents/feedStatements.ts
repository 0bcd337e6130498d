// The change feed's documents (docs/history.md, "Following the change feed"): the stream with its
// root node, and each page with its members, as statements, written in TriG, Turtle, N-Quads,
// N-Triples or JSON-LD. A Linked Data Event Stream (LDES 1.0 on TREE) in the cultural-heritage
// profile: each member an Activity Streams activity whose payload, the description it left, is a
// named graph named after it.
//
// What the feed mints (the stream, its pages, the activities) is written absolute on the origin
// asked (docs/http-contract.md, "URLs"); what the data names (the institutions) keeps its IRIs.
import { isMemento, timestamp14, type History, type HistoryEvent } from '../history/model';
import { institutionIri } from '../rdf/iris';
import type { Isil } from '../rdf/isil';
import { PREFIXES } from '../rdf/namespaces';
import { lines, splitLine } from '../rdf/ntriples';
import { AS, LDES, SH, TREE, type FeedFormatName, type Statement } from './feedWriter';
import {
  indexCount,
  isImmutable,
  nextInRun,
  nodeLinks,
  type FeedLayout,
  type FeedPage,
} from './feedLayout';
import { FEED_PATH } from '../rdf/iris';

export { AS, LDES, TREE, writeFeed, type FeedFormatName, type Statement } from './feedWriter';
export const LDES_SPECIFICATION = 'https://w3id.org/ldes/specification';

const { rdf, xsd, owl, dcterms } = PREFIXES;

/** The stream's IRI, relative to the feed's host. */
export const STREAM = `<${FEED_PATH}#stream>`;
/** The shape of every member (`tree:shape`), stated on the root. */
const MEMBER_SHAPE = `<${FEED_PATH}#member>`;

export interface FeedFormat {
  readonly name: FeedFormatName;
  readonly mediaType: string;
  readonly aliases: readonly string[];
  readonly contentType: string;
  readonly qs: number;
}

/**
 * TriG first: the format that holds the payloads as named graphs and names the pages relative to
 * where they are read. N-Quads and N-Triples must name them absolute: the server weighs them at 0.9,
 * so that a client preferring N-Quads a little (the reference client asks N-Quads at 1, TriG at
 * 0.95) gets TriG, and one asking for them alone gets them.
 */
export const FEED_FORMATS: readonly FeedFormat[] = [
  {
    name: 'trig',
    qs: 1,
    mediaType: 'application/trig',
    aliases: [],
    contentType: 'application/trig;charset=UTF-8',
  },
  {
    name: 'jsonld',
    qs: 1,
    mediaType: 'application/ld+json',
    aliases: ['application/json'],
    contentType: 'application/ld+json',
  },
  {
    name: 'ttl',
    qs: 1,
    mediaType: 'text/turtle',
    aliases: ['application/x-turtle'],
    contentType: 'text/turtle;charset=UTF-8',
  },
  {
    name: 'nq',
    qs: 0.9,
    mediaType: 'application/n-quads',
    aliases: [],
    contentType: 'application/n-quads;charset=UTF-8',
  },
  {
    name: 'nt',
    qs: 0.9,
    mediaType: 'application/n-triples',
    aliases: ['text/plain'],
    contentType: 'application/n-triples;charset=UTF-8',
  },
];

const iri = (value: string) => `<${value}>`;
const TYPE = iri(`${rdf}type`);
const isoTime = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
const dateTime = (seconds: number) => `"${isoTime(seconds)}"^^<${xsd}dateTime>`;
const integer = (n: number) => `"${n}"^^<${xsd}integer>`;
const TRUE = `"true"^^<${xsd}boolean>`;

/** The path of a page. */
export const pagePath = (page: FeedPage) => `${FEED_PATH}/${page.id}`;

/** An event's activity: named after its version's time and its ISIL, whatever page holds it. */
export const activityIri = (event: HistoryEvent) =>
  `<${FEED_PATH}/${timestamp14(event.time)}#${event.isil}>`;

const ACTIVITY: Record<HistoryEvent['kind'], string> = {
  created: iri(`${AS}Create`),
  updated: iri(`${AS}Update`),
  withdrawn: iri(`${AS}Delete`),
  deleted: iri(`${AS}Delete`),
};

/** What the stream states about itself, on the root. */
export interface StreamSettings {
  readonly baseIri: string;
  /** Seconds between two looks at the root that can find something new (`ldes:pollingInterval`). */
  readonly pollingInterval: number;
  /** HISTORY_KEEP_VERSIONS: 0 keeps every version. */
  readonly keepVersions: number;
}

/**
 * The relations from `from` to `node`: the times of the members reachable through it are ≥
 * `lower` and ≤ `last`. Times are whole seconds: a client asking for members after a version's
 * time (`--after`) learns from the upper bound that the version has none, where `<` a second
 * later would not tell it. `label` names the relations' blank nodes, one pair per node linked.
 */
function relations(
  from: string,
  node: string,
  lower: number,
  last: number,
  label: string,
): Statement[] {
  const out: Statement[] = [];
  for (const [kind, value] of [
    ['GreaterThanOrEqualTo', lower],
    ['LessThanOrEqualTo', last],
  ] as const) {
    const relation = `_:${kind === 'GreaterThanOrEqualTo' ? 'ge' : 'le'}${label}`;
    out.push(
      [from, iri(`${TREE}relation`), relation],
      [relation, TYPE, iri(`${TREE}${kind}Relation`)],
      [relation, iri(`${TREE}path`), iri(`${AS}published`)],
      [relation, iri(`${TREE}value`), dateTime(value)],
      [relation, iri(`${TREE}node`), node],
    );
  }
  return out;
}

/** The relations to `page`: it and the rest of its run. */
const pageRelations = (from: string, page: FeedPage) =>
  relations(from, `<${pagePath(page)}>`, page.lower, page.reach - 1, String(page.index));

/** The path of index page `n`. */
export const indexPath = (n: number) => `${FEED_PATH}/index/${n}`;

/**
 * What the root (`n` = indexCount + 1) or index page `n` links: the first page of each of its runs,
 * and the index page before it, through which every older run is reached.
 */
function nodeRelations(from: string, layout: FeedLayout, n: number): Statement[] {
  const { runs, before } = nodeLinks(layout, n);
  const out = runs.flatMap((page) => pageRelations(from, page));
  if (before > 0) {
    const older = nodeLinks(layout, before).runs.at(-1)!;
    const oldest = layout.runs[0]!;
    out.push(
      ...relations(from, `<${indexPath(before)}>`, oldest.lower, older.reach - 1, `i${before}`),
    );
  }
  return out;
}

/**
 * The root: the stream, its settings and its one view, a node that links the first page of each
 * of the newest runs and the index page of those before.
 */
export function rootStatements(layout: FeedLayout, settings: StreamSettings): Statement[] {
  const root = `<${FEED_PATH}>`;
  return [
    ...STREAM_STATEMENTS,
    [STREAM, iri(`${dcterms}conformsTo`), iri(LDES_SPECIFICATION)],
    [STREAM, iri(`${dcterms}title`), '"Changes to the ISIL registry"@en'],
    [STREAM, iri(`${LDES}pollingInterval`), integer(settings.pollingInterval)],
    ...memberShape(),
    [STREAM, iri(`${TREE}view`), root],
    [root, TYPE, iri(`${TREE}Node`)],
    ...retention(root, layout, settings),
    ...nodeRelations(root, layout, indexCount(layout) + 1),
  ];
}

/** Index page `n` (1 to indexCount): a node without members, linking older runs. */
export function indexStatements(layout: FeedLayout, n: number): Statement[] {
  const node = `<${indexPath(n)}>`;
  return [
    ...STREAM_STATEMENTS,
    [node, TYPE, iri(`${TREE}Node`)],
    ...nodeRelations(node, layout, n),
  ];
}

/**
 * What every page says of its stream (LDES LR2.1, LR2.2, LR2.4, LR2.7): an ldes:EventStream (a
 * tree:Collection by the LDES vocabulary, so typed once), how its members are ordered and what
 * they are versions of, and their shape.
 */
const STREAM_STATEMENTS: readonly Statement[] = [
  [STREAM, TYPE, iri(`${LDES}EventStream`)],
  [STREAM, iri(`${LDES}timestampPath`), iri(`${AS}published`)],
  [STREAM, iri(`${LDES}versionOfPath`), iri(`${AS}object`)],
  [STREAM, iri(`${TREE}shape`), MEMBER_SHAPE],
];

/** A member: an activity of one kind, on one institution, at one time (`memberShape`). */
function memberShape(): Statement[] {
  const property = (label: string, path: string, ...constraint: [string, string][]) => {
    const node = `_:${label}`;
    return [
      [MEMBER_SHAPE, iri(`${SH}property`), node],
      [node, iri(`${SH}path`), iri(path)],
      [node, iri(`${SH}minCount`), integer(1)],
      [node, iri(`${SH}maxCount`), integer(1)],
      ...constraint.map(([p, o]): Statement => [node, iri(`${SH}${p}`), o]),
    ] satisfies Statement[];
  };
  const kinds = [...new Set(Object.values(ACTIVITY))];
  const list = kinds.map((_, i) => `_:kind${i}`);
  return [
    [MEMBER_SHAPE, TYPE, iri(`${SH}NodeShape`)],
    ...property('type', `${rdf}type`, ['in', list[0]!]),
    ...kinds.flatMap((kind, i): Statement[] => [
      [list[i]!, iri(`${rdf}first`), kind],
      [list[i]!, iri(`${rdf}rest`), list[i + 1] ?? iri(`${rdf}nil`)],
    ]),
    ...property('object', `${AS}object`, ['nodeKind', iri(`${SH}IRI`)]),
    ...property('published', `${AS}published`, ['datatype', iri(`${xsd}dateTime`)]),
  ];
}

/**
 * The root node's retention policy (LDES puts it on the view), as the log holds the history:
 * with HISTORY_KEEP_VERSIONS=N, or once retention has dropped versions (whatever the setting now:
 * their ISILs' latest events stand before the first version kept), the latest version of every
 * member (ldes:LatestVersionSubset of 1) and the versions kept whole; otherwise every member since
 * the first version kept (ldes:PointInTimePolicy), the first ever unless a reset set older aside.
 */
function retention(root: string, layout: FeedLayout, settings: StreamSettings): Statement[] {
  const policy = '_:retention';
  const since = layout.firstKept;
  if (since === undefined) return [];
  const carried = layout.pages[0]?.id.includes('/before/') === true;
  if (settings.keepVersions > 0 || (layout.dropped && carried)) {
    const whole =
      settings.keepVersions > 0
        ? `Every version of the last ${settings.keepVersions} versions of the registry is kept too.`
        : `Every version of the registry since ${isoTime(since)} is kept too; older versions were dropped.`;
    return [
      [root, iri(`${LDES}retentionPolicy`), policy],
      [policy, TYPE, iri(`${LDES}LatestVersionSubset`)],
      [policy, iri(`${LDES}amount`), integer(1)],
      [policy, iri(`${PREFIXES.rdfs}comment`), `"${whole}"@en`],
    ];
  }
  return [
    [root, iri(`${LDES}retentionPolicy`), policy],
    [policy, TYPE, iri(`${LDES}PointInTimePolicy`)],
    [policy, iri(`${LDES}pointInTime`), dateTime(since)],
  ];
}

/** Blank-node labels made the member's own: one page holds many descriptions labelled alike. */
function own(term: string, member: number): string {
  return term.charCodeAt(0) === 95 ? `_:m${member}${term.slice(2)}` : term;
}

/** The payload of an event: the description it left, a withdrawal record, or none (deleted). */
async function payload(
  history: History,
  event: HistoryEvent,
  baseIri: string,
  member: number,
  graph: string,
): Promise<Statement[]> {
  const institution = iri(institutionIri(baseIri, event.isil as Isil));
  if (isMemento(event)) {
    const out: Statement[] = [];
    for (const text of lines(await history.description(event))) {
      const line = splitLine(text);
      if (!line) throw new Error(`the description of ${event.isil} holds a line not N-Triples`);
      out.push([own(line.s, member), line.p, own(line.o, member), graph]);
    }
    return out;
  }
  if (event.kind === 'deleted') return [];
  return [
    [institution, iri(`${owl}deprecated`), TRUE, graph],
    ...(event.successors ?? []).map((successor): Statement => [
      institution,
      iri(`${dcterms}isReplacedBy`),
      iri(institutionIri(baseIri, successor as Isil)),
      graph,
    ]),
  ];
}

/** Members rendered between two turns of the event loop. */
const YIELD_EVERY = 50;

/** A page: the stream's members on it, their activities and payloads, and its next page. */
export async function pageStatements(
  history: History,
  layout: FeedLayout,
  page: FeedPage,
  baseIri: string,
): Promise<Statement[]> {
  const node = `<${pagePath(page)}>`;
  const out: Statement[] = [...STREAM_STATEMENTS, [node, TYPE, iri(`${TREE}Node`)]];
  if (isImmutable(layout, page)) out.push([node, iri(`${LDES}immutable`), TRUE]);
  const next = nextInRun(layout, page);
  if (next) out.push(...pageRelations(node, next));
  const payloads: Statement[] = [];
  for (const [i, event] of page.events.entries()) {
    // A page's render lets the event loop turn now and then: other requests, cached pages among
    // them, are answered meanwhile, and those that find the renders full wait in their queue.
    if (i > 0 && i % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
    const activity = activityIri(event);
    const institution = iri(institutionIri(baseIri, event.isil as Isil));
    out.push(
      [STREAM, iri(`${TREE}member`), activity],
      [activity, TYPE, ACTIVITY[event.kind]],
      [activity, iri(`${AS}object`), institution],
      [activity, iri(`${AS}published`), dateTime(event.time)],
    );
    payloads.push(...(await payload(history, event, baseIri, i, activity)));
  }
  return out.concat(payloads);
}
