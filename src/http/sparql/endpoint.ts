// The staff SPARQL endpoint, `/sparql` (docs/sparql.md): the Service Description for anyone, and
// for the staff the query editor and the query operation of the SPARQL 1.1 Protocol, each query
// checked on its algebra and run by the store's staff adapter (a pool of workers when embedded).
import crypto from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Config } from '../../config/config';
import { toDescription } from '../../rdf/description';
import { formatByName, FORMATS, type RdfFormatName } from '../../rdf/formats';
import { serialize } from '../../rdf/serialize';
import { QueryAbandoned, QueryTimeout, type StaffAnswer, type StaffQuery } from '../../store/staff';
import { CONTEXT_PATH } from '../../rdf/context';
import { DATASET_VERSION, type StaffDeps } from '../deps';
import {
  answerOf,
  badRequest,
  methodNotAllowed,
  notAcceptable,
  notFound,
  tooManyRequests,
  type HttpError,
} from '../errors';
import { commonHeaders } from '../middleware';
import { negotiateAmong } from '../negotiate';
import { publicOrigin } from '../publicOrigin';
import { serviceDescription } from './serviceDescription';
import {
  EDITOR_ASSETS,
  editorAsset,
  editorPage,
  editorPolicy,
  type Asset,
  type AssetName,
} from './editor';
import { readProtocol, SPARQL_METHODS } from './protocolRequest';

export const SPARQL_PATH = '/sparql';
/** The header that says an answer was cut at a cap, and which: `rows; limit=100000`. */
export const CUT_HEADER = 'Results-Truncated';

const PREFLIGHT = {
  'Access-Control-Allow-Methods': SPARQL_METHODS,
  'Access-Control-Allow-Headers': 'Accept, Authorization, Content-Type',
  'Access-Control-Max-Age': '86400',
  Allow: SPARQL_METHODS,
  'Content-Length': '0',
};

/** The RDF formats the Service Description is offered in, HTML (the editor) first. */
const DESCRIPTION_OFFERS = FORMATS.filter((f) => f.name !== 'html');
const EDITOR_OFFER = FORMATS.find((f) => f.name === 'html')!;

/**
 * The endpoint's URL as the client reached it (the Service Description's `sd:endpoint`, the base
 * of relative IRIs in queries), by the rule of every URL a client is told (publicOrigin).
 */
const endpointUrl = (req: Request): string => `${publicOrigin(req)}${SPARQL_PATH}`;

/**
 * Service Descriptions written, by format, endpoint URL and dataset version: the one public answer
 * of the endpoint, so a flood of it must not serialize (JSON-LD takes milliseconds) each time.
 * Bounded, since the endpoint URL comes from the Host header.
 */
const DESCRIPTIONS_KEPT = 32;

/** `default-graph-uri` or `named-graph-uri` values a request may name, each. */
const MAX_GRAPHS = 1000;

const hashOf = (text: string) =>
  crypto.createHash('sha256').update(text).digest('hex').slice(0, 16);

/** A graph IRI of `default-graph-uri`/`named-graph-uri`: absolute, and nothing a query could not hold. */
function graphIris(values: readonly string[], name: string): readonly string[] {
  if (values.length > MAX_GRAPHS)
    throw badRequest(`At most ${MAX_GRAPHS} ${name} parameters, not ${values.length}.`);
  for (const value of values)
    if (!/^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|^`\\]*$/.test(value))
      throw badRequest(`${name} must be an absolute IRI: ${JSON.stringify(value.slice(0, 200))}`);
  return values;
}

/** The 200 of a query, with the cut said in its header. */
function sendAnswer(res: Response, answer: StaffAnswer, head: boolean, config: Config): void {
  const headers: Record<string, string> = {
    ...commonHeaders(res),
    'Content-Type': answer.contentType,
    'Content-Length': String(Buffer.byteLength(answer.body)),
    'Cache-Control': 'private, no-store',
    Vary: 'Accept, Authorization',
    [DATASET_VERSION]: answer.version,
  };
  if (answer.cut)
    headers[CUT_HEADER] =
      `${answer.cut}; limit=${answer.cut === 'rows' ? config.sparql.maxRows : config.sparql.maxResultBytes}`;
  res.writeHead(200, headers);
  res.end(head ? undefined : answer.body);
}

export function sparqlEndpoint(deps: StaffDeps): RequestHandler {
  const endpoint = new StaffEndpoint(deps);
  return function sparqlRoute(req, res) {
    return endpoint.handle(req, res);
  };
}

/** The query's outcome in the query log. */
function outcomeOf(error: unknown, http: HttpError): string {
  if (error instanceof QueryTimeout) return 'timeout';
  if (error instanceof QueryAbandoned) return 'abandoned';
  return http.status < 500 ? 'refused' : 'unavailable';
}

class StaffEndpoint {
  private readonly assets = new Map<AssetName, Asset>();
  /** Queries running or waiting, by user. */
  private readonly inFlight = new Map<string, number>();
  private readonly descriptions = new Map<string, string>();
  private readonly editor: (user: string) => string;
  private readonly editorPolicy = editorPolicy(SPARQL_PATH);

  constructor(private readonly deps: StaffDeps) {
    this.editor = editorPage(SPARQL_PATH, deps.examples);
  }

  async handle(req: Request, res: Response): Promise<void> {
    const below = req.path;
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...commonHeaders(res), ...PREFLIGHT });
      res.end();
      return;
    }
    if (!['GET', 'HEAD', 'POST'].includes(req.method))
      throw methodNotAllowed(
        SPARQL_METHODS,
        `The SPARQL endpoint answers ${SPARQL_METHODS}; it is read-only.`,
      );
    if (below.startsWith('/editor/')) {
      if (req.method === 'POST')
        throw methodNotAllowed('GET, HEAD', 'The editor files are read with GET.');
      await this.deps.auth.user(req);
      this.asset(req, res, below.slice('/editor/'.length));
      return;
    }
    if (below !== '/' && below !== '')
      throw notFound(`Nothing is published at ${SPARQL_PATH}${below.slice(0, 128)}.`);
    const target = req.originalUrl;
    const search = new URLSearchParams(target.slice(target.indexOf('?') + 1 || target.length));
    if (req.method !== 'POST' && !search.has('query') && !search.has('update'))
      return this.withoutQuery(req, res);
    const user = await this.deps.auth.user(req);
    await this.run(req, res, user);
  }

  /** No query: the editor for a browser (staff only), the Service Description for the rest. */
  private async withoutQuery(req: Request, res: Response): Promise<void> {
    const offers = [EDITOR_OFFER, ...DESCRIPTION_OFFERS];
    const offer = negotiateAmong(req.headers.accept, offers);
    if (!offer)
      throw notAcceptable(
        undefined,
        offers.map((f) => ({ href: SPARQL_PATH, label: f.label, type: f.mediaType })),
      );
    if (offer.name !== 'html') return this.description(req, res, offer.name as RdfFormatName);
    const user = await this.deps.auth.user(req);
    const page = this.editor(user);
    res.writeHead(200, {
      ...commonHeaders(res),
      'Content-Type': 'text/html;charset=utf-8',
      'Content-Security-Policy': this.editorPolicy,
      'Content-Length': String(Buffer.byteLength(page)),
      'Cache-Control': 'private, no-store',
      Vary: 'Accept, Authorization',
    });
    res.end(req.method === 'HEAD' ? undefined : page);
  }

  private async description(req: Request, res: Response, format: RdfFormatName): Promise<void> {
    const { config, service } = this.deps;
    const endpoint = endpointUrl(req);
    const dataset = service.current?.dataset;
    const key = `${format} ${dataset?.version ?? ''} ${endpoint}`;
    let text = this.descriptions.get(key);
    if (text === undefined) {
      const ntriples = serviceDescription(endpoint, dataset);
      text = await serialize(
        toDescription(`${endpoint}#service`, ntriples),
        format,
        `${config.baseIri}${CONTEXT_PATH}`,
      );
      if (this.descriptions.size >= DESCRIPTIONS_KEPT) this.descriptions.clear();
      this.descriptions.set(key, text);
    }
    res.writeHead(200, {
      ...commonHeaders(res),
      'Content-Type': formatByName(format).contentType,
      'Content-Length': String(Buffer.byteLength(text)),
      'Cache-Control': 'no-cache',
      Vary: 'Accept, Host',
    });
    res.end(req.method === 'HEAD' ? undefined : text);
  }

  private asset(req: Request, res: Response, name: string): void {
    if (!(name in EDITOR_ASSETS)) throw notFound('No such file of the editor.');
    const key = name as AssetName;
    let file = this.assets.get(key);
    if (!file) this.assets.set(key, (file = editorAsset(key)));
    const headers = {
      ...commonHeaders(res),
      ETag: file.etag,
      'Cache-Control': 'private, max-age=86400',
    };
    if (req.headers['if-none-match'] === file.etag) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, {
      ...headers,
      'Content-Type': file.type,
      'Content-Length': String(file.body.length),
    });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  }

  /**
   * Reads, checks, runs and answers the query, and writes its line of the query log: one for every
   * request a user sent, the ones the protocol refuses (an update, a body of another type) too.
   */
  private async run(req: Request, res: Response, user: string): Promise<void> {
    const started = performance.now();
    let text = '';
    const log = (outcome: string, status: number, rows?: number) => {
      this.deps.service.metrics?.sparqlQuery(outcome, (performance.now() - started) / 1000);
      this.deps.logger.info(
        {
          reqId: res.locals.requestId,
          user,
          query: hashOf(text),
          bytes: Buffer.byteLength(text),
          ms: Math.round(performance.now() - started),
          rows,
          outcome,
          status,
        },
        'sparql query',
      );
    };
    try {
      const request = await readProtocol(req, this.deps.config.sparql.maxBodyBytes);
      text = request.query ?? '';
      if (request.query === undefined)
        throw badRequest(
          'No query: send it as the query parameter (GET or form POST) or as an application/sparql-query body.',
        );
      const answer = await this.ask(
        user,
        {
          text: request.query,
          accept: req.headers.accept,
          defaultGraphs: graphIris(request.defaultGraphs, 'default-graph-uri'),
          namedGraphs: graphIris(request.namedGraphs, 'named-graph-uri'),
          base: endpointUrl(req),
          maxRows: this.deps.config.sparql.maxRows,
          maxBytes: this.deps.config.sparql.maxResultBytes,
        },
        res,
      );
      sendAnswer(res, answer, req.method === 'HEAD', this.deps.config);
      log(answer.cut ? `cut at ${answer.cut}` : 'answered', 200, answer.rows);
    } catch (error) {
      const { http, level } = answerOf(error, this.deps.config);
      log(level === 'error' ? 'failed' : outcomeOf(error, http), http.status);
      throw level === 'error' ? error : http;
    }
  }

  /**
   * Runs the query in the store, counting it against the user's queries in flight; stops it when
   * the client goes away before its answer, with a reset or a FIN (Oxigraph cannot cancel a query:
   * its worker is ended).
   */
  private async ask(user: string, query: StaffQuery, res: Response): Promise<StaffAnswer> {
    const { perUser } = this.deps.config.sparql;
    const running = this.inFlight.get(user) ?? 0;
    if (running >= perUser)
      throw tooManyRequests(
        1,
        `You have ${running} queries running or waiting, the most one user may (SPARQL_PER_USER); send the next when one has answered.`,
      );
    this.inFlight.set(user, running + 1);
    const gone = new AbortController();
    const closed = () => {
      if (!res.writableEnded) gone.abort();
    };
    res.once('close', closed);
    // The listener keeps a half-closed connection open (httpAllowHalfOpen, src/process/listen.ts),
    // so a client's FIN does not close the response: a client that closed its socket normally
    // held its worker for SPARQL_TIMEOUT_MS. A FIN before the answer is taken as the client gone.
    const { socket } = res.req;
    socket.once('end', closed);
    if (socket.readableEnded) closed();
    try {
      return await this.deps.staff.query(query, gone.signal);
    } finally {
      res.off('close', closed);
      socket.off('end', closed);
      const left = (this.inFlight.get(user) ?? 1) - 1;
      if (left > 0) this.inFlight.set(user, left);
      else this.inFlight.delete(user);
    }
  }
}

/** `/sparql` when the endpoint is off, or on a listener of its own: 404 saying so. */
export function sparqlElsewhere(config: Config): RequestHandler {
  const message =
    config.sparql.users === undefined
      ? 'The staff SPARQL endpoint is off. To turn it on, make a credentials file (npm run sparql-user -- add NAME, with SPARQL_USERS naming the file) and start the service with SPARQL_USERS set (docs/sparql.md).'
      : 'The staff SPARQL endpoint is not on this listener (SPARQL_LISTEN gives it one of its own).';
  return function sparqlOff() {
    throw notFound(message);
  };
}
