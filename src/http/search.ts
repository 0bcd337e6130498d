// Search, `GET /search` (HTML, JSON, CSV, GeoJSON or JSON Lines: negotiated, or named by
// `format=`), and autocomplete, `GET /search/suggest` (JSON), over the index of the dataset version
// served (src/search/). Until the first index is built both answer 503 with Retry-After; a bad
// parameter, or a fielded query that cannot be read, is 400 saying which and where.
import type { Request, RequestHandler, Response } from 'express';
import type { InstitutionType, FlatRecord } from '../record/flatRecord';
import {
  CSV_FIELDS,
  FIELD_NAMES,
  institutionFields,
  isField,
  type FieldContext,
  type FieldName,
} from '../record/fields';
import { parseQuery, QuerySyntaxError } from '../search/query';
import { ExportSlots, requestFieldContext, searchExport } from './searchExport';
import type { SearchAnswer, SearchRequest } from '../search/searchIndex';
import { negotiateAmong } from '../util/accept';
import { askerOf, cacheControl, DATASET_VERSION, queryOf, searching, type RouteDeps } from './deps';
import { badRequest, notAcceptable } from './errors';
import { pageLanguage } from '../pages/language';
import { type ParsedSearch, searchPage } from '../pages/searchPage';
import { pageHeaders } from './pageHeaders';
import { made, sendMade, type Made } from './respond';

export const SUGGEST_PATH = '/search/suggest';

const MAX_QUERY = 200;
const PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;
/** A CSV is for taking the results away: it may hold more a page. */
const MAX_CSV_SIZE = 10_000;
const MAX_OFFSET = 100_000;
const MAX_RADIUS_KM = 2_000;
const TYPES: readonly string[] = ['library', 'archive', 'museum', 'other', 'unknown'];

type Output = 'html' | 'json' | 'csv' | 'geojson' | 'jsonl';
const OUTPUTS: readonly Output[] = ['html', 'json', 'csv', 'geojson', 'jsonl'];
const OFFERS = [
  { name: 'html' as const, mediaType: 'text/html', aliases: ['application/xhtml+xml'] },
  { name: 'json' as const, mediaType: 'application/json', aliases: [] },
  { name: 'csv' as const, mediaType: 'text/csv', aliases: [] },
  { name: 'geojson' as const, mediaType: 'application/geo+json', aliases: [] },
  { name: 'jsonl' as const, mediaType: 'application/x-ndjson', aliases: ['application/jsonl'] },
];
const CONTENT_TYPE: Readonly<Record<Output, string>> = {
  html: 'text/html;charset=utf-8',
  json: 'application/json;charset=utf-8',
  csv: 'text/csv;charset=utf-8;header=present',
  geojson: 'application/geo+json',
  jsonl: 'application/x-ndjson',
};

/** The `fields=` of a CSV or JSON Lines: known fields, each once, in the order given. */
export function fieldList(
  params: URLSearchParams,
  output: Output,
  fallback: readonly FieldName[],
): readonly FieldName[] {
  const text = one(params, 'fields');
  if (text === undefined) return fallback;
  if (output !== 'csv' && output !== 'jsonl')
    throw badRequest('fields applies to format=csv and format=jsonl.');
  const names = text.split(',').map((n) => n.trim());
  const unknown = names.filter((n) => !isField(n));
  if (unknown.length || names.length === 0)
    throw badRequest(
      `fields names ${unknown.length ? `unknown fields (${unknown.slice(0, 5).join(', ')})` : 'none'}; the fields are ${FIELD_NAMES.join(', ')}.`,
    );
  if (new Set(names).size !== names.length) throw badRequest('fields names a field twice.');
  return names as FieldName[];
}

function one(params: URLSearchParams, name: string): string | undefined {
  const all = params.getAll(name);
  if (all.length > 1) throw badRequest(`The parameter ${name} is given more than once.`);
  return all[0];
}

function numberList(text: string, count: number, name: string): number[] {
  const parts = text.split(',').map((p) => p.trim());
  const numbers = parts.map(Number);
  if (
    parts.length !== count ||
    parts.some((p) => p === '') ||
    numbers.some((n) => !Number.isFinite(n))
  )
    throw badRequest(`${name} is ${count} numbers separated by commas.`);
  return numbers;
}

function integer(
  text: string | undefined,
  name: string,
  min: number,
  max: number,
  fallback: number,
): number {
  if (text === undefined || text === '') return fallback;
  if (!/^\d{1,7}$/.test(text) || Number(text) < min || Number(text) > max)
    throw badRequest(`${name} is a whole number from ${min} to ${max}.`);
  return Number(text);
}

/** The search asked for by the query string; a parameter out of its range is a 400. */
export function searchRequest(params: URLSearchParams, output: Output): ParsedSearch {
  const q = one(params, 'q') ?? '';
  if (q.length > MAX_QUERY) throw badRequest(`q is at most ${MAX_QUERY} characters.`);
  const fielded = parseQuery(q);
  const type = one(params, 'type');
  if (type !== undefined && !TYPES.includes(type))
    throw badRequest(`type is one of ${TYPES.join(', ')}.`);
  const country = one(params, 'country');
  if (country !== undefined && !/^[A-Za-z0-9]{1,8}$/.test(country))
    throw badRequest('country is an ISIL prefix: letters and digits, up to 8.');
  const city = one(params, 'city');
  if (city !== undefined && city.length > MAX_QUERY)
    throw badRequest(`city is at most ${MAX_QUERY} characters.`);
  let near: SearchRequest['near'];
  const nearText = one(params, 'near');
  if (nearText !== undefined) {
    const [lat, lon] = numberList(nearText, 2, 'near (latitude,longitude)');
    if (Math.abs(lat!) > 90 || Math.abs(lon!) > 180)
      throw badRequest('near is a latitude (±90) and a longitude (±180).');
    const radius = one(params, 'radius');
    const radiusKm = radius === undefined ? 25 : Number(radius);
    if (!Number.isFinite(radiusKm) || radiusKm <= 0 || radiusKm > MAX_RADIUS_KM)
      throw badRequest(`radius is a distance in km, above 0 and at most ${MAX_RADIUS_KM}.`);
    near = { lat: lat!, lon: lon!, radiusKm };
  } else if (one(params, 'radius') !== undefined) throw badRequest('radius goes with near.');
  let bbox: SearchRequest['bbox'];
  const bboxText = one(params, 'bbox');
  if (bboxText !== undefined) {
    const [w, s, e, n] = numberList(bboxText, 4, 'bbox (west,south,east,north)');
    if ([w, e].some((x) => Math.abs(x!) > 180) || [s, n].some((y) => Math.abs(y!) > 90) || s! > n!)
      throw badRequest('bbox is west,south,east,north in degrees, south below north.');
    bbox = [w!, s!, e!, n!];
  }
  const sort = one(params, 'sort') ?? (near ? 'distance' : 'relevance');
  if (sort !== 'relevance' && sort !== 'distance')
    throw badRequest('sort is relevance or distance.');
  if (sort === 'distance' && !near) throw badRequest('sort=distance needs near.');
  const size = integer(
    one(params, 'size'),
    'size',
    1,
    output === 'csv' ? MAX_CSV_SIZE : MAX_PAGE_SIZE,
    PAGE_SIZE,
  );
  const page = integer(one(params, 'page'), 'page', 1, Math.floor(MAX_OFFSET / size) + 1, 1);
  return {
    q,
    ...(fielded ? { fielded } : {}),
    ...(city !== undefined ? { city } : {}),
    ...(country !== undefined ? { country } : {}),
    ...(type !== undefined ? { type: type as InstitutionType | 'unknown' } : {}),
    ...(near ? { near } : {}),
    ...(bbox ? { bbox } : {}),
    sort,
    page,
    size,
    offset: (page - 1) * size,
    limit: size,
  };
}

/** A hit's keys: fields (src/record/fields.ts), so that each has the value it has in every format. */
const HIT_FIELDS: readonly FieldName[] = [
  'isil',
  'uri',
  'page',
  'name',
  'otherNames',
  'sigel',
  'city',
  'postcode',
  'type',
  'lat',
  'lon',
];

function hitJson(entry: FlatRecord, context: FieldContext, extra: Record<string, unknown> = {}) {
  return { ...institutionFields(entry, context, HIT_FIELDS), ...extra };
}

/** A search answer: validators of its bytes; the words of an HTML page follow Accept-Language. */
function send(
  req: Request,
  res: Response,
  deps: RouteDeps,
  type: string,
  body: Made,
  version: string,
  extra: Record<string, string> = {},
  status = 200,
): void {
  sendMade(
    req,
    res,
    body,
    {
      'Content-Type': type,
      'Cache-Control': cacheControl(deps.config),
      Vary: 'Accept, Accept-Language',
      [DATASET_VERSION]: version,
      ...extra,
    },
    undefined,
    status,
  );
}

function searchJson(
  context: FieldContext,
  params: URLSearchParams,
  request: ReturnType<typeof searchRequest>,
  answer: SearchAnswer,
  version: string,
): string {
  const body = JSON.stringify({
    query: Object.fromEntries([...params].filter(([k]) => k !== 'format' && k !== 'lang')),
    total: answer.total,
    page: request.page,
    size: request.size,
    version,
    hits: answer.hits.map((h) =>
      hitJson(h.entry, context, {
        score: Math.round(h.score * 1000) / 1000,
        ...(h.distanceKm !== undefined ? { distanceKm: Math.round(h.distanceKm * 100) / 100 } : {}),
      }),
    ),
    facets: answer.facets,
  });
  return `${body}\n`;
}

export function search(deps: RouteDeps): RequestHandler {
  const slots = new ExportSlots(deps.exportStallMs);
  return async function search(req, res) {
    const params = queryOf(req);
    const format = one(params, 'format');
    let output: Output | undefined;
    if (format !== undefined) {
      if (!OUTPUTS.includes(format as Output)) throw badRequest(`format is ${OUTPUTS.join(', ')}.`);
      output = format as Output;
    } else output = negotiateAmong(req.headers.accept, OFFERS)?.name;
    if (!output)
      throw notAcceptable(
        'Search answers in HTML, JSON (application/json), CSV (text/csv), GeoJSON (application/geo+json) or JSON Lines (application/x-ndjson).',
      );
    let request: ParsedSearch;
    try {
      request = searchRequest(params, output);
    } catch (error) {
      if (!(error instanceof QuerySyntaxError)) throw error;
      if (output !== 'html') throw badRequest(error.message);
      return queryErrorPage(req, res, deps, params, error);
    }
    const asker = askerOf(req);
    const fields = fieldList(params, output, output === 'csv' ? CSV_FIELDS : FIELD_NAMES);
    const context = requestFieldContext(req, deps.config);
    // A CSV without a page is every match, as the results page's download link asks it.
    const paged = params.has('page') || params.has('size');
    if (output === 'geojson' || output === 'jsonl' || (output === 'csv' && !paged))
      return searchExport(req, res, deps, slots, {
        request,
        format: output,
        fields,
        context,
        asker,
      });
    // A page of a CSV, made in the index's thread: up to 10,000 rows, too many to copy and write here.
    if (output === 'csv') {
      const { version, value } = await searching(deps.service, (index) =>
        index.csv(request, { context, fields }, asker),
      );
      return send(req, res, deps, CONTENT_TYPE.csv, value, version, {
        'Content-Disposition': 'inline; filename="isil-search.csv"',
      });
    }
    const { version, value: answer } = await searching(deps.service, (index) =>
      index.search(request, asker),
    );
    if (output === 'json')
      return send(
        req,
        res,
        deps,
        CONTENT_TYPE.json,
        made(searchJson(context, params, request, answer, version)),
        version,
      );
    const language = pageLanguage(params, req.headers['accept-language']);
    send(
      req,
      res,
      deps,
      CONTENT_TYPE.html,
      made(searchPage(deps.config, params, request, answer, language)),
      version,
      {
        'Content-Language': language.lang,
        ...pageHeaders(deps.config),
      },
    );
  };
}

/**
 * A query that cannot be read, on the page: 400, the query kept in the box and the error shown,
 * rather than a bare error page.
 */
async function queryErrorPage(
  req: Request,
  res: Response,
  deps: RouteDeps,
  params: URLSearchParams,
  error: QuerySyntaxError,
): Promise<void> {
  const { version } = await searching(deps.service, (index) => index.built());
  const language = pageLanguage(params, req.headers['accept-language']);
  const q = params.get('q') ?? '';
  const request = { q, page: 1, size: PAGE_SIZE, offset: 0, limit: PAGE_SIZE };
  const empty = { total: 0, hits: [], facets: { city: [], country: [], type: [] } };
  const page = searchPage(deps.config, params, request, empty, language, error.message);
  const headers = { 'Content-Language': language.lang, ...pageHeaders(deps.config) };
  send(req, res, deps, CONTENT_TYPE.html, made(page), version, headers, 400);
}

/** Autocomplete answers kept per index, the most recently asked: people type the same prefixes. */
const SUGGESTIONS_KEPT = 5000;

export function suggest(deps: RouteDeps): RequestHandler {
  // The bodies answered from the index of `keptFor`, the most recently asked last.
  let keptFor: string | undefined;
  const kept = new Map<string, string>();
  return async function suggest(req, res) {
    const params = queryOf(req);
    const q = one(params, 'q') ?? '';
    if (q.length > MAX_QUERY) throw badRequest(`q is at most ${MAX_QUERY} characters.`);
    const limit = integer(one(params, 'limit'), 'limit', 1, 10, 10);
    const context = requestFieldContext(req, deps.config);
    // The pages in a body are absolute on the origin asked: a body is kept for its origin.
    const key = `${limit}\u0000${context.pagePattern}\u0000${q}`;
    let version = deps.service.search.version;
    let body = version !== undefined && version === keptFor ? kept.get(key) : undefined;
    if (body === undefined) {
      const asker = askerOf(req);
      const found = await searching(deps.service, (index) => index.suggest(q, limit, asker));
      version = found.version;
      body = `${JSON.stringify({ query: q, suggestions: found.value.map((e) => hitJson(e, context)) })}\n`;
      if (keptFor !== version) {
        kept.clear();
        keptFor = version;
      }
      if (kept.size >= SUGGESTIONS_KEPT) kept.delete(kept.keys().next().value!);
    } else kept.delete(key);
    kept.set(key, body);
    send(req, res, deps, CONTENT_TYPE.json, made(body), version!);
  };
}
