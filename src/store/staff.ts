// The staff endpoint's side of the store port: a checked query goes in, the serialized answer
// comes out, from whichever adapter runs it (the embedded pool of workers, or a remote store). The
// caller (src/http/sparql/) has authenticated, checked the query and chosen the result's format.
import type { Reviver } from '../threads/wire';
import { QueryRefused, type QueryForm } from './staffQuery';

/** Result formats by query form, in the order of preference when the client has none. */
export interface ResultFormat {
  /** The media type a client asks for (and aliases it may send). */
  readonly mediaType: string;
  readonly aliases: readonly string[];
  /** The exact `Content-Type` of the answer. */
  readonly contentType: string;
  readonly label: string;
  readonly kind: 'json' | 'xml' | 'csv' | 'tsv' | 'ttl' | 'nt' | 'rdf' | 'jsonld';
}

const JSON_RESULTS: ResultFormat = {
  mediaType: 'application/sparql-results+json',
  aliases: ['application/json'],
  contentType: 'application/sparql-results+json;charset=utf-8',
  label: 'SPARQL JSON',
  kind: 'json',
};
const XML_RESULTS: ResultFormat = {
  mediaType: 'application/sparql-results+xml',
  aliases: ['application/xml', 'text/xml'],
  contentType: 'application/sparql-results+xml;charset=utf-8',
  label: 'SPARQL XML',
  kind: 'xml',
};
const TABLES: readonly ResultFormat[] = [
  {
    mediaType: 'text/csv',
    aliases: [],
    contentType: 'text/csv;charset=utf-8',
    label: 'CSV',
    kind: 'csv',
  },
  {
    mediaType: 'text/tab-separated-values',
    aliases: [],
    contentType: 'text/tab-separated-values;charset=utf-8',
    label: 'TSV',
    kind: 'tsv',
  },
];
export const GRAPH_FORMATS: readonly ResultFormat[] = [
  {
    mediaType: 'text/turtle',
    aliases: ['application/x-turtle'],
    contentType: 'text/turtle;charset=utf-8',
    label: 'Turtle',
    kind: 'ttl',
  },
  {
    mediaType: 'application/n-triples',
    aliases: ['text/plain'],
    contentType: 'application/n-triples;charset=utf-8',
    label: 'N-Triples',
    kind: 'nt',
  },
  {
    mediaType: 'application/rdf+xml',
    aliases: ['application/xml', 'text/xml'],
    contentType: 'application/rdf+xml;charset=utf-8',
    label: 'RDF/XML',
    kind: 'rdf',
  },
  {
    mediaType: 'application/ld+json',
    aliases: ['application/json'],
    contentType: 'application/ld+json',
    label: 'JSON-LD',
    kind: 'jsonld',
  },
];

export const RESULT_FORMATS: Readonly<Record<QueryForm, readonly ResultFormat[]>> = {
  select: [JSON_RESULTS, XML_RESULTS, ...TABLES],
  ask: [JSON_RESULTS, XML_RESULTS],
  construct: GRAPH_FORMATS,
  describe: GRAPH_FORMATS,
};

/**
 * A staff query as the protocol request brings it: its text, its dataset, where relative IRIs
 * resolve, what the client accepts. The adapter parses and checks it (src/store/staffQuery.ts) off
 * the HTTP thread: parsing is linear at best and far worse on deep nesting (docs/benchmark.md,
 * "a staff query parsed"), so it runs where the time limit stops it.
 */
export interface StaffQuery {
  readonly text: string;
  /** The request's `Accept` header: the result format is chosen for the query's form. */
  readonly accept: string | undefined;
  /** `default-graph-uri` values: none means the query's own dataset, or the union of all graphs. */
  readonly defaultGraphs: readonly string[];
  /** `named-graph-uri` values. */
  readonly namedGraphs: readonly string[];
  /** The endpoint's URL: the base of relative IRIs. */
  readonly base: string;
  readonly maxRows: number;
  readonly maxBytes: number;
}

export interface StaffAnswer {
  readonly body: string;
  /** The `Content-Type` of the format chosen. */
  readonly contentType: string;
  /** Solutions (SELECT), triples (CONSTRUCT, DESCRIBE) or 1 (ASK) in the answer. */
  readonly rows: number;
  /** Why the answer stops short of the whole result, when it does. */
  readonly cut?: 'rows' | 'bytes';
  /** The dataset version the query ran on. */
  readonly version: string;
}

/** Nothing the client accepts fits the query's form: 406 with the formats of that form. */
export class NoFormatAccepted extends Error {
  override name = 'NoFormatAccepted';
  constructor(readonly form: QueryForm) {
    super(`None of the formats of ${form.toUpperCase()} results matches the Accept header.`);
  }
}

/** A worker of the embedded adapter as /readyz shows it (a remote store has none). */
export interface WorkerState {
  readonly version: string;
  readonly threadId: number;
  readonly state: 'loading' | 'idle' | 'busy';
  /** The CPU priority it runs at (19, the lowest, on Linux). */
  readonly priority?: number;
  /** `idle` (SCHED_IDLE: any other task preempts it at once) where it could set it. */
  readonly policy?: string;
  /** Its V8 heap and its external memory (WebAssembly's included), after its last answer. */
  readonly memory?: { readonly heapBytes: number; readonly externalBytes: number };
}

/**
 * What the endpoint asks of a store adapter, told each version served with the request it was
 * opened from (`Request`: as for the store port, the adapter's kind of request).
 */
export interface StaffStore<Request = never> {
  /**
   * The version the public side serves from now on, and what it was opened from: the queries that
   * come after run on it once the adapter holds it.
   */
  serve(request: Request, version: string): void;
  /**
   * Runs the query on the newest version it holds; rejects with one of the errors below. When
   * `signal` aborts (the client went away), a query still waiting is dropped and one running is
   * stopped: it rejects with QueryAbandoned.
   */
  query(request: StaffQuery, signal?: AbortSignal): Promise<StaffAnswer>;
  /** The workers that run the queries, for /readyz. */
  workers(): readonly WorkerState[];
  close(): Promise<void>;
}

/** The client went away: the query was dropped from the queue, or stopped. */
export class QueryAbandoned extends Error {
  override name = 'QueryAbandoned';
}

/** The query ran past the time limit and was stopped: 503. */
export class QueryTimeout extends Error {
  override name = 'QueryTimeout';
}

/** Every worker is busy and the queue is full, or no copy of the data is ready yet: 503. */
export class StaffUnavailable extends Error {
  override name = 'StaffUnavailable';
  constructor(
    message: string,
    readonly retryAfter: number,
  ) {
    super(message);
  }
}

/**
 * The answer cannot be written in the format asked for (RDF/XML cannot carry a control character,
 * nor a predicate without an XML local name): 406, as the public documents answer it.
 */
export class CannotWrite extends Error {
  override name = 'CannotWrite';
}

/** The store refused the query (a function it does not know, say): 400 with its message. */
export class QueryFailed extends Error {
  override name = 'QueryFailed';
}

/** The staff errors a worker thread sends back, in their classes again (threads/wire.ts). */
export const reviveStaffError: Reviver = ({ name, message, fields }) => {
  if (name === 'QueryFailed') return new QueryFailed(message);
  if (name === 'CannotWrite') return new CannotWrite(message);
  if (name === 'QueryRefused' && (fields.status === 400 || fields.status === 403))
    return new QueryRefused(fields.status, message);
  if (
    name === 'NoFormatAccepted' &&
    typeof fields.form === 'string' &&
    fields.form in RESULT_FORMATS
  )
    return new NoFormatAccepted(fields.form as QueryForm);
  return undefined;
};
