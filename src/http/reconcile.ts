// The reconciliation service, `/reconcile` (issue 18): the W3C Entity Reconciliation community
// group's API, version 0.2, as OpenRefine speaks it. `GET /reconcile` is the service manifest;
// queries come as `queries=<JSON>` by GET or form POST and get candidates with scores and `match`
// (src/search/reconcile.ts); `suggest/entity`, `suggest/type` and `suggest/property` complete what
// is typed; `preview?id=` is a small page for OpenRefine's pop-up; `view` is the institution's
// page. JSONP (`callback=`) for the clients that still ask for it.
import type { Request, RequestHandler, Response } from 'express';
import { DIRECTORY_PATH, RESOURCE_PATH } from '../rdf/iris';
import {
  ORGANIZATION,
  PROPERTIES,
  reconcile,
  TYPES,
  type ReconcileQuery,
} from '../search/reconcile';
import type { SearchIndex } from '../search/searchIndex';
import { escapeHtml } from '../serving/page';
import { requestBody } from './body';
import {
  cacheControl,
  DATASET_VERSION,
  pathBelow,
  queryOf,
  searchIndex,
  type RouteDeps,
} from './deps';
import { HttpError } from './errors';
import { CORS, commonHeaders } from './middleware';

export const RECONCILE_PATH = '/reconcile';

const METHODS = 'GET, HEAD, POST, OPTIONS';
const MAX_BODY = 1024 * 1024;
/** Queries in one batch at most (OpenRefine sends 10 by default). */
const MAX_QUERIES = 100;
const MAX_QUERY = 500;
/** Batches answered at once; more wait for a 503's Retry-After. */
const MAX_BATCHES = 2;
const CALLBACK = /^[A-Za-z_$][\w$.]{0,63}$/;

const bad = (message: string) => new HttpError(400, message, { 'Cache-Control': 'no-store' });

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
  if (callback !== null && !CALLBACK.test(callback)) throw bad('callback is a JavaScript name.');
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

function viewUrl(deps: RouteDeps): string {
  const base = deps.config.baseIri;
  return deps.config.isilDirectoryUrl === ''
    ? `${base}${DIRECTORY_PATH}{{id}}`
    : `${deps.config.isilDirectoryUrl}${DIRECTORY_PATH}{{id}}`;
}

export function manifest(deps: RouteDeps) {
  const base = deps.config.baseIri;
  const service = `${base}${RECONCILE_PATH}`;
  return {
    versions: ['0.2'],
    name: 'ISIL Linked Data: libraries, archives and museums by ISIL',
    identifierSpace: `${base}${RESOURCE_PATH}`,
    schemaSpace: 'http://xmlns.com/foaf/0.1/',
    defaultTypes: TYPES.filter((t) => t.id === ORGANIZATION).map(({ id, name }) => ({ id, name })),
    view: { url: viewUrl(deps) },
    preview: { url: `${service}/preview?id={{id}}`, width: 420, height: 140 },
    suggest: {
      entity: { service_url: service, service_path: '/suggest/entity' },
      type: { service_url: service, service_path: '/suggest/type' },
      property: { service_url: service, service_path: '/suggest/property' },
    },
  };
}

/** A batch of queries as JSON, checked: each an object with a query string (or properties). */
export function parseQueries(text: string): Record<string, ReconcileQuery> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw bad('queries is not JSON.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw bad('queries is a JSON object of queries by key ({"q0": {"query": "..."}}).');
  const entries = Object.entries(parsed as Record<string, unknown>);
  if (entries.length > MAX_QUERIES) throw bad(`A batch holds at most ${MAX_QUERIES} queries.`);
  const queries: Record<string, ReconcileQuery> = {};
  for (const [key, value] of entries) {
    if (!value || typeof value !== 'object') throw bad(`Query ${key} is not an object.`);
    const q = value as Record<string, unknown>;
    const query = q.query ?? '';
    if (typeof query !== 'string' || query.length > MAX_QUERY)
      throw bad(`Query ${key}: query is a string of at most ${MAX_QUERY} characters.`);
    if (
      q.limit !== undefined &&
      (typeof q.limit !== 'number' || !Number.isInteger(q.limit) || q.limit < 1)
    )
      throw bad(`Query ${key}: limit is a whole number from 1.`);
    const type = q.type;
    if (
      type !== undefined &&
      typeof type !== 'string' &&
      !(Array.isArray(type) && type.every((t) => typeof t === 'string'))
    )
      throw bad(`Query ${key}: type is a type id or a list of them.`);
    const properties = q.properties;
    if (
      properties !== undefined &&
      (!Array.isArray(properties) ||
        properties.length > 20 ||
        !properties.every(
          (p) => p && typeof p === 'object' && typeof (p as { pid?: unknown }).pid === 'string',
        ))
    )
      throw bad(`Query ${key}: properties is a list of {"pid": ..., "v": ...}.`);
    queries[key] = {
      query,
      ...(type !== undefined ? { type: type as string | string[] } : {}),
      ...(q.limit !== undefined ? { limit: q.limit as number } : {}),
      ...(properties ? { properties: properties as { pid: string; v: unknown }[] } : {}),
    };
  }
  return queries;
}

/** The `queries` of a GET, or of a form POST's body. */
async function queriesOf(req: Request, params: URLSearchParams): Promise<string | undefined> {
  if (req.method !== 'POST') return params.get('queries') ?? undefined;
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded')
    throw new HttpError(
      415,
      'Reconciliation queries are POSTed as a form (application/x-www-form-urlencoded) with queries=<JSON>.',
    );
  const body = (await requestBody(req, MAX_BODY)).toString('utf8');
  return new URLSearchParams(body).get('queries') ?? undefined;
}

function preview(deps: RouteDeps, index: SearchIndex, id: string): string {
  const entry = index.entry(id);
  if (!entry) throw new HttpError(404, `No institution has the ISIL ${id}.`);
  const place = [entry.postcodes[0], entry.cities[0]].filter(Boolean).join(' ');
  const page = viewUrl(deps).replace('{{id}}', encodeURIComponent(entry.isil));
  return `<!DOCTYPE html><html lang="de"><head><meta charset="utf-8"><title>${escapeHtml(entry.name)}</title></head><body style="font:14px/1.4 system-ui,sans-serif;margin:.5rem">
<p><a href="${escapeHtml(page)}" target="_blank" rel="noopener"><strong>${escapeHtml(entry.name)}</strong></a><br>ISIL ${escapeHtml(entry.isil)}${entry.sigel ? ` · Sigel ${escapeHtml(entry.sigel)}` : ''}${place ? `<br>${escapeHtml(place)}` : ''}</p>
</body></html>
`;
}

/** The CORS preflight: a browser's page may POST queries here (Content-Type: a form). */
function preflight(res: Response): void {
  res.writeHead(204, {
    ...commonHeaders(res),
    ...CORS,
    'Access-Control-Allow-Methods': METHODS,
    'Access-Control-Allow-Headers': 'Accept, Content-Type',
    'Access-Control-Max-Age': '86400',
    Allow: METHODS,
  });
  res.end();
}

/**
 * The batches being answered. A query takes a few milliseconds of the event loop, a batch of 100
 * a good part of a second: the loop turns between queries, so documents are answered meanwhile,
 * and past `MAX_BATCHES` at once a client is told to come back (503), so that a flood of batches
 * holds no more of the process than that.
 */
class Batches {
  private running = 0;

  async run(
    queries: Readonly<Record<string, ReconcileQuery>>,
    index: SearchIndex,
  ): Promise<Record<string, { result: ReturnType<typeof reconcile> }>> {
    if (this.running >= MAX_BATCHES)
      throw new HttpError(503, 'Reconciliation is busy with other batches; try again shortly.', {
        'Retry-After': '1',
        'Cache-Control': 'no-store',
      });
    this.running++;
    try {
      const results: Record<string, { result: ReturnType<typeof reconcile> }> = {};
      for (const [key, query] of Object.entries(queries)) {
        results[key] = { result: reconcile(index, query) };
        await new Promise((resolve) => setImmediate(resolve));
      }
      return results;
    } finally {
      this.running--;
    }
  }
}

export function reconciliation(deps: RouteDeps): RequestHandler {
  const batches = new Batches();
  return async function reconciliation(req, res) {
    if (req.method === 'OPTIONS') return preflight(res);
    const below = pathBelow(req);
    if (req.method !== 'GET' && req.method !== 'HEAD' && !(req.method === 'POST' && below === ''))
      throw new HttpError(
        405,
        `Reconciliation answers ${below === '' ? METHODS : 'GET, HEAD, OPTIONS'}.`,
        {
          Allow: below === '' ? METHODS : 'GET, HEAD, OPTIONS',
        },
      );
    const params = queryOf(req);
    switch (below) {
      case '': {
        const text = await queriesOf(req, params);
        if (text === undefined) return sendJson(req, res, deps, manifest(deps), params);
        const queries = parseQueries(text);
        const index = searchIndex(deps.service);
        const results = await batches.run(queries, index);
        return sendJson(req, res, deps, results, params, { [DATASET_VERSION]: index.version });
      }
      case 'suggest/entity': {
        const prefix = params.get('prefix') ?? '';
        if (prefix.length > MAX_QUERY) throw bad(`prefix is at most ${MAX_QUERY} characters.`);
        const index = searchIndex(deps.service);
        const result = index.suggest(prefix, 10).map((e) => ({
          id: e.isil,
          name: e.name,
          description: [e.isil, e.cities[0]].filter(Boolean).join(', '),
        }));
        return sendJson(req, res, deps, { result }, params, { [DATASET_VERSION]: index.version });
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
      case 'preview': {
        const id = params.get('id');
        if (!id || id.length > 64) throw bad('preview takes the ISIL as id=.');
        const body = preview(deps, searchIndex(deps.service), id);
        res.writeHead(200, {
          ...commonHeaders(res),
          'Content-Type': 'text/html;charset=utf-8',
          'Content-Length': String(Buffer.byteLength(body)),
          'Cache-Control': cacheControl(deps.config),
        });
        res.end(req.method === 'HEAD' ? undefined : body);
        return;
      }
      default:
        throw new HttpError(
          404,
          `Nothing is published at ${RECONCILE_PATH}/${below.slice(0, 64)}.`,
        );
    }
  };
}
