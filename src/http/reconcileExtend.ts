// Reconciliation's data extension (W3C Reconciliation API 0.2): the property proposals
// (`/reconcile/properties`) and `extend` queries, `{"ids": [ISIL, …], "properties": [{"id": …}]}`,
// answered with each ISIL's values (src/search/extend.ts) from the index of the version served, and
// a withdrawn ISIL's successor from the dataset.
import { EXTEND_PROPERTIES, extendMeta, extendValues, isExtendProperty } from '../search/extend';
import type { ExtendValue, Successor } from '../search/extend';
import { ORGANIZATION, TYPES } from '../search/candidates';
import type { Asker } from '../search/searchQueue';
import { currentDocuments, searching, type RouteDeps } from './deps';
import { badRequest } from './errors';
import { RECONCILE_PATH } from '../rdf/iris';
import { fieldContext } from './searchExport';

export const PROPERTIES_PATH = 'properties';

/** ISILs in one extend query at most (OpenRefine sends 10 rows at a time). */
const MAX_IDS = 500;
const MAX_PROPERTIES = EXTEND_PROPERTIES.length;
/** Proposals at most, and by default: all of them. */
const MAX_PROPOSALS = EXTEND_PROPERTIES.length;

const ORGANIZATION_TYPE = TYPES.find((t) => t.id === ORGANIZATION)!;

/** The manifest's `extend`: where the proposals are. */
export function extendManifest(service: string) {
  return { propose_properties: { service_url: service, service_path: `/${PROPERTIES_PATH}` } };
}

/** The proposals for a type (every type of the service has the same properties). */
export function proposals(params: URLSearchParams) {
  const type = params.get('type') ?? ORGANIZATION;
  const limitText = params.get('limit');
  const limit = limitText === null ? MAX_PROPOSALS : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1) throw badRequest('limit is a whole number from 1.');
  return {
    type,
    limit,
    properties: EXTEND_PROPERTIES.slice(0, limit).map(({ id, name, description }) => ({
      id,
      name,
      description,
    })),
  };
}

interface ExtendQuery {
  readonly ids: readonly string[];
  readonly properties: readonly string[];
}

/** An extend query as JSON, checked (data-extension-query.json), its properties known. */
export function parseExtend(text: string): ExtendQuery {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('extend is not JSON.');
  }
  const q = parsed as { ids?: unknown; properties?: unknown };
  if (!q || typeof q !== 'object' || !Array.isArray(q.ids) || !Array.isArray(q.properties))
    throw badRequest('extend is {"ids": [...], "properties": [{"id": ...}]}.');
  if (!q.ids.every((id) => typeof id === 'string' && id.length <= 64))
    throw badRequest('extend: ids are ISILs, as strings.');
  if (q.ids.length > MAX_IDS) throw badRequest(`extend takes at most ${MAX_IDS} ids.`);
  const properties = q.properties.map((p) => (p as { id?: unknown } | null)?.id);
  if (!properties.every((id): id is string => typeof id === 'string'))
    throw badRequest('extend: properties are {"id": ...}.');
  if (properties.length > MAX_PROPERTIES)
    throw badRequest(`extend takes at most ${MAX_PROPERTIES} properties.`);
  const unknown = properties.filter((id) => !isExtendProperty(id));
  if (unknown.length)
    throw badRequest(
      `extend: no property ${unknown[0]}; the properties are ${EXTEND_PROPERTIES.map((p) => p.id).join(', ')}.`,
    );
  // A row holds one list of values per property, and `meta` one entry per column: a property
  // asked twice has no answer the response schema could tell apart.
  const repeated = properties.find((id, i) => properties.indexOf(id) !== i);
  if (repeated !== undefined)
    throw badRequest(`extend: the property ${repeated} is asked more than once; ask each once.`);
  return { ids: q.ids as string[], properties };
}

/** The successor of a withdrawn ISIL, when a live institution took it over. */
function successorOf(deps: RouteDeps, isil: string): Successor | undefined {
  const found = currentDocuments(deps.service).dataset.exact(isil);
  if (found?.kind !== 'withdrawn' || found.withdrawn.successor.kind !== 'live') return undefined;
  const { institution } = found.withdrawn.successor;
  return { isil: institution.isil, name: institution.name ?? institution.isil };
}

/** The answer to an extend query (data-extension-response.json), and the version it is from. */
export async function extend(
  deps: RouteDeps,
  query: ExtendQuery,
  /** The origin asked (publicOrigin): the service's and the pages' URLs are on it. */
  base: string,
  asker: Asker,
): Promise<{ version: string; answer: unknown }> {
  const found = await searching(deps.service, (index) => index.entries(query.ids, asker));
  const context = fieldContext(deps.config, base);
  const service = `${base}${RECONCILE_PATH}`;
  const rows = Object.create(null) as Record<string, Record<string, ExtendValue[]>>;
  query.ids.forEach((id, i) => {
    const entry = found.value[i] ?? undefined;
    const successor =
      entry || !query.properties.includes('successor') ? undefined : successorOf(deps, id);
    const row = Object.create(null) as Record<string, ExtendValue[]>;
    for (const property of query.properties)
      row[property] = extendValues(property, entry, successor, context);
    rows[id] = row;
  });
  const organization = { id: ORGANIZATION_TYPE.id, name: ORGANIZATION_TYPE.name };
  return {
    version: found.version,
    answer: { meta: extendMeta(query.properties, service, organization), rows },
  };
}
