// The reconciliation service, `/reconcile`: the W3C Entity Reconciliation community
// group's API, version 0.2, as OpenRefine speaks it. `GET /reconcile` is the service manifest;
// queries come as `queries=<JSON>` by GET or form POST and get candidates with scores and `match`
// (src/search/candidates.ts); `suggest/entity`, `suggest/type` and `suggest/property` complete what
// is typed; `preview?id=` is a small page for OpenRefine's pop-up; `view` is the institution's
// page. The data extension (src/http/reconcileExtend.ts): `extend=<JSON>` by GET or form POST, and
// the property proposals at `properties`. JSONP (`callback=`) for the clients that still ask for it.
import type { Request, RequestHandler, Response } from 'express';
import { RECONCILE_PATH, RESOURCE_PATH } from '../rdf/iris';
import {
  ORGANIZATION,
  PROPERTIES,
  TYPES,
  type Candidate,
  type ReconcileQuery,
} from '../search/candidates';
import type { FlatRecord } from '../record/flatRecord';
import { escapeHtml } from '../pages/escape';
import { requestBody } from './body';
import type { Asker } from '../search/searchQueue';
import {
  askerOf,
  cacheControl,
  DATASET_VERSION,
  pathBelow,
  queryOf,
  searching,
  type RouteDeps,
} from './deps';
import {
  ALLOW,
  ALLOW_WITH_POST,
  badRequest,
  methodNotAllowed,
  NO_STORE,
  notFound,
  serviceUnavailable,
  tooManyRequests,
  unsupportedMediaType,
} from './errors';
import { institutionPage } from '../pages/pageUrl';
import { commonHeaders, formPostPreflight } from './middleware';
import { pageHeaders } from './pageHeaders';
import { publicOrigin } from './publicOrigin';
import { ICON_LINK } from '../pages/frame';
import { extend, extendManifest, parseExtend, proposals, PROPERTIES_PATH } from './reconcileExtend';

const MAX_BODY = 1024 * 1024;
/** Queries in one batch at most (OpenRefine sends 10 by default). */
const MAX_QUERIES = 100;
const MAX_QUERY = 500;
/** A batch of at most this many queries is small: never refused for the big ones running. */
const SMALL_BATCH = 10;
/** Big batches answered at once, one a client; past either, 503 or 429 with Retry-After. */
const MAX_BIG_BATCHES = 4;
const CALLBACK = /^[A-Za-z_$][\w$.]{0,63}$/;

/** The JSON answer, or JSONP when a well-formed `callback` is named. */
function sendJson(
  req: Request,
  res: Response,
  deps: RouteDeps,
  value: unknown,
  params: URLSearchParams,
  extra: Record<string, string> = {},
): void {
  const callback = params.get('callback');
  if (callback !== null && !CALLBACK.test(callback))
    throw badRequest('callback is a JavaScript name.');
  const json = JSON.stringify(value);
  const body = callback === null ? `${json}\n` : `/**/${callback}(${json});\n`;
  res.writeHead(200, {
    ...commonHeaders(res),
    'Content-Type':
      callback === null ? 'application/json;charset=utf-8' : 'text/javascript;charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': req.method === 'POST' ? 'no-store' : cacheControl(deps.config),
    'X-Content-Type-Options': 'nosniff',
    ...extra,
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function viewUrl(deps: RouteDeps, base: string): string {
  return institutionPage(deps.config, '{{id}}', { direct: true, base });
}

/**
 * The service manifest: its identifiers under BASE_IRI, the URLs a client calls (view, preview,
 * suggest, extend) on `base`, the origin it was asked on.
 */
export function manifest(deps: RouteDeps, base: string) {
  const service = `${base}${RECONCILE_PATH}`;
  return {
    versions: ['0.2'],
    name: 'ISIL Linked Data: libraries, archives and museums by ISIL',
    identifierSpace: `${deps.config.baseIri}${RESOURCE_PATH}`,
    schemaSpace: 'http://xmlns.com/foaf/0.1/',
    defaultTypes: TYPES.filter((t) => t.id === ORGANIZATION).map(({ id, name }) => ({ id, name })),
    view: { url: viewUrl(deps, base) },
    preview: { url: `${service}/preview?id={{id}}`, width: 420, height: 140 },
    suggest: {
      entity: { service_url: service, service_path: '/suggest/entity' },
      type: { service_url: service, service_path: '/suggest/type' },
      property: { service_url: service, service_path: '/suggest/property' },
    },
    extend: extendManifest(service),
  };
}

/**
 * A batch of queries as JSON, checked: each an object with a query string (or properties). A Map,
 * since the keys are the client's: `__proto__` is a key like any other.
 */
export function parseQueries(text: string): Map<string, ReconcileQuery> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('queries is not JSON.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw badRequest('queries is a JSON object of queries by key ({"q0": {"query": "..."}}).');
  const entries = Object.entries(parsed as Record<string, unknown>);
  if (entries.length > MAX_QUERIES)
    throw badRequest(`A batch holds at most ${MAX_QUERIES} queries.`);
  const queries = new Map<string, ReconcileQuery>();
  for (const [key, value] of entries) {
    if (!value || typeof value !== 'object') throw badRequest(`Query ${key} is not an object.`);
    const q = value as Record<string, unknown>;
    const query = q.query ?? '';
    if (typeof query !== 'string' || query.length > MAX_QUERY)
      throw badRequest(`Query ${key}: query is a string of at most ${MAX_QUERY} characters.`);
    if (
      q.limit !== undefined &&
      (typeof q.limit !== 'number' || !Number.isInteger(q.limit) || q.limit < 1)
    )
      throw badRequest(`Query ${key}: limit is a whole number from 1.`);
    const type = q.type;
    if (
      type !== undefined &&
      typeof type !== 'string' &&
      !(Array.isArray(type) && type.every((t) => typeof t === 'string'))
    )
      throw badRequest(`Query ${key}: type is a type id or a list of them.`);
    const properties = q.properties;
    if (
      properties !== undefined &&
      (!Array.isArray(properties) ||
        properties.length > 20 ||
        !properties.every(
          (p) => p && typeof p === 'object' && typeof (p as { pid?: unknown }).pid === 'string',
        ))
    )
      throw badRequest(`Query ${key}: properties is a list of {"pid": ..., "v": ...}.`);
    // The API's schema: a query string, or a property or more to match by.
    if (q.query === undefined && !(Array.isArray(properties) && properties.length > 0))
      throw badRequest(`Query ${key} has neither a query nor properties.`);
    queries.set(key, {
      query,
      ...(type !== undefined ? { type: type as string | string[] } : {}),
      ...(q.limit !== undefined ? { limit: q.limit as number } : {}),
      ...(properties ? { properties: properties as { pid: string; v: unknown }[] } : {}),
    });
  }
  return queries;
}

/** The `queries` and `extend` of a GET, or of a form POST's body. */
async function formOf(req: Request, params: URLSearchParams): Promise<URLSearchParams> {
  if (req.method !== 'POST') return params;
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded')
    throw unsupportedMediaType(
      'Reconciliation queries are POSTed as a form (application/x-www-form-urlencoded) with queries=<JSON>.',
    );
  const body = (await requestBody(req, MAX_BODY)).toString('utf8');
  return new URLSearchParams(body);
}

function preview(deps: RouteDeps, base: string, entry: FlatRecord | undefined, id: string): string {
  if (!entry) throw notFound(`No institution has the ISIL ${id}.`);
  const place = [entry.postcodes[0], entry.cities[0]].filter(Boolean).join(' ');
  const page = viewUrl(deps, base).replace('{{id}}', encodeURIComponent(entry.isil));
  return `<!DOCTYPE html><html lang="de"><head><meta charset="utf-8"><title>${escapeHtml(entry.name)}</title><link rel="stylesheet" href="/assets/preview.css">${ICON_LINK}</head><body>
<p><a href="${escapeHtml(page)}" target="_blank" rel="noopener"><strong>${escapeHtml(entry.name)}</strong></a><br>ISIL ${escapeHtml(entry.isil)}${entry.sigel ? ` · Sigel ${escapeHtml(entry.sigel)}` : ''}${place ? `<br>${escapeHtml(place)}` : ''}</p>
</body></html>
`;
}

/** The answers of a batch by the client's keys: an object without prototype, for `__proto__`. */
type Results = Record<string, { result: readonly Candidate[] }>;

/**
 * The batches being answered. The index's thread answers a query in a few milliseconds, a batch of
 * 100 in a good part of a second: a batch asks one query at a time, in its client's turn in the
 * search queue (src/search/searchQueue.ts), so that other clients' questions are answered between
 * its queries. A client has one big batch at a time (429 for another), and at most
 * `MAX_BIG_BATCHES` run (503 past them); small batches, as OpenRefine's ten, are never refused for
 * the big ones.
 */
class Batches {
  private readonly big = new Set<string>();

  async run(
    deps: RouteDeps,
    queries: ReadonlyMap<string, ReconcileQuery>,
    asker: Asker,
  ): Promise<{ version: string; results: Results }> {
    const isBig = queries.size > SMALL_BATCH;
    if (isBig && this.big.has(asker.client))
      throw tooManyRequests(
        1,
        'Your previous batch is still being answered; send the next once it is.',
        NO_STORE,
      );
    if (isBig && this.big.size >= MAX_BIG_BATCHES)
      throw serviceUnavailable(
        1,
        'Reconciliation is busy with other batches; try again shortly.',
        NO_STORE,
      );
    if (isBig) this.big.add(asker.client);
    try {
      const results = Object.create(null) as Results;
      let version = '';
      for (const [key, query] of queries) {
        const answer = await searching(deps.service, (index) => index.reconcile(query, asker));
        results[key] = { result: answer.value };
        version = answer.version;
      }
      // An empty batch: answered as the index served now would.
      if (version === '') version = (await searching(deps.service, (i) => i.built())).version;
      return { version, results };
    } finally {
      if (isBig) this.big.delete(asker.client);
    }
  }
}

export function reconciliation(deps: RouteDeps): RequestHandler {
  const batches = new Batches();
  return async function reconciliation(req, res) {
    if (req.method === 'OPTIONS') return formPostPreflight(res);
    const below = pathBelow(req);
    if (req.method !== 'GET' && req.method !== 'HEAD' && !(req.method === 'POST' && below === ''))
      throw methodNotAllowed(
        below === '' ? ALLOW_WITH_POST : ALLOW,
        `Reconciliation answers ${below === '' ? ALLOW_WITH_POST : ALLOW}.`,
      );
    const params = queryOf(req);
    const base = publicOrigin(req);
    switch (below) {
      case '': {
        const form = await formOf(req, params);
        const extendText = form.get('extend');
        if (extendText !== null) {
          const query = parseExtend(extendText);
          const { version, answer } = await extend(deps, query, base, askerOf(req));
          return sendJson(req, res, deps, answer, params, { [DATASET_VERSION]: version });
        }
        const text = form.get('queries') ?? undefined;
        if (text === undefined) return sendJson(req, res, deps, manifest(deps, base), params);
        const queries = parseQueries(text);
        const { version, results } = await batches.run(deps, queries, askerOf(req));
        return sendJson(req, res, deps, results, params, { [DATASET_VERSION]: version });
      }
      case 'suggest/entity': {
        const prefix = params.get('prefix') ?? '';
        if (prefix.length > MAX_QUERY)
          throw badRequest(`prefix is at most ${MAX_QUERY} characters.`);
        const asker = askerOf(req);
        const found = await searching(deps.service, (index) => index.suggest(prefix, 10, asker));
        const result = found.value.map((e) => ({
          id: e.isil,
          name: e.name,
          description: [e.isil, e.cities[0]].filter(Boolean).join(', '),
        }));
        return sendJson(req, res, deps, { result }, params, { [DATASET_VERSION]: found.version });
      }
      case 'suggest/type': {
        const prefix = (params.get('prefix') ?? '').toLowerCase();
        const result = TYPES.filter((t) => t.name.toLowerCase().startsWith(prefix)).map(
          ({ id, name }) => ({ id, name }),
        );
        return sendJson(req, res, deps, { result }, params);
      }
      case 'suggest/property': {
        const prefix = (params.get('prefix') ?? '').toLowerCase();
        const result = PROPERTIES.filter(
          (p) => p.id.startsWith(prefix) || p.name.toLowerCase().startsWith(prefix),
        ).map(({ id, name }) => ({ id, name }));
        return sendJson(req, res, deps, { result }, params);
      }
      case PROPERTIES_PATH:
        return sendJson(req, res, deps, proposals(params), params);
      case 'preview': {
        const id = params.get('id');
        if (!id || id.length > 64) throw badRequest('preview takes the ISIL as id=.');
        const asker = askerOf(req);
        const found = await searching(deps.service, (index) => index.entry(id, asker));
        const body = preview(deps, base, found.value, id);
        res.writeHead(200, {
          ...commonHeaders(res),
          'Content-Type': 'text/html;charset=utf-8',
          ...pageHeaders(deps.config),
          'Content-Length': String(Buffer.byteLength(body)),
          'Cache-Control': cacheControl(deps.config),
        });
        res.end(req.method === 'HEAD' ? undefined : body);
        return;
      }
      default:
        throw notFound(`Nothing is published at ${RECONCILE_PATH}/${below.slice(0, 64)}.`);
    }
  };
}
