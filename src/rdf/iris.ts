// The IRIs and paths the service mints for an institution (docs/data-model.md, Identifiers).
import type { Isil } from './isil';

export const RESOURCE_PATH = '/resource/organisations/';
export const DATA_PATH = '/data/organisations/';
export const DIRECTORY_PATH = '/isil/';
/** The graph of the links to the same institutions elsewhere (src/load/place/wikidataSets.ts). */
export const LINKS_PATH = '/data/links';
/** The change feed (docs/history.md): an LDES, its pages below it. */
export const FEED_PATH = '/feed';
/** The Reconciliation API's service (docs/search.md). */
export const RECONCILE_PATH = '/reconcile';

/** The institution, a non-information resource. */
export function institutionIri(baseIri: string, isil: Isil): string {
  return `${baseIri}${RESOURCE_PATH}${isil}`;
}

/** The description of the institution, an information resource. */
export function descriptionIri(baseIri: string, isil: Isil): string {
  return `${baseIri}${DATA_PATH}${isil}`;
}

/**
 * The base an institution IRI was minted under (`institutionIri`, under any base), and its ISIL:
 * `undefined` for an IRI without the path. The path is found from the end: an ISIL may hold a
 * `/`, but at 16 characters at most, not the path.
 */
function splitInstitution(institution: string): { base: string; isil: string } | undefined {
  const at = institution.lastIndexOf(RESOURCE_PATH);
  if (at < 0 || at + RESOURCE_PATH.length === institution.length) return undefined;
  return { base: institution.slice(0, at), isil: institution.slice(at + RESOURCE_PATH.length) };
}

/**
 * The IRI of the description of an institution IRI minted as `institutionIri` mints them (under
 * any base): the name of the graph that holds it. `undefined` for an IRI without the path.
 */
export function descriptionIriOf(institution: string): string | undefined {
  const parts = splitInstitution(institution);
  return parts && `${parts.base}${DATA_PATH}${parts.isil}`;
}

/** The graph of the links to the same institutions elsewhere, under `baseIri`. */
export function linksGraphIri(baseIri: string): string {
  return `${baseIri}${LINKS_PATH}`;
}

/**
 * The links graph of an institution IRI minted as `institutionIri` mints them (under any base), as
 * `descriptionIriOf` finds its description's graph; `undefined` for an IRI without the path.
 */
export function linksGraphOf(institution: string): string | undefined {
  const parts = splitInstitution(institution);
  return parts && `${parts.base}${LINKS_PATH}`;
}

/** The relative path of a document (`/data/organisations/DE-1a.ttl`). */
export function documentPath(isil: string, ext: string): string {
  return `${DATA_PATH}${isil}.${ext}`;
}

/** The ISIL text of an institution IRI minted under `baseIri`, or `undefined`. */
export function isilOfInstitutionIri(baseIri: string, iri: string): string | undefined {
  const prefix = `${baseIri}${RESOURCE_PATH}`;
  return iri.startsWith(prefix) ? iri.slice(prefix.length) : undefined;
}

/** The base under the other scheme: `http://` for `https://`, and the reverse. */
export function otherScheme(baseIri: string): string {
  return baseIri.startsWith('https://')
    ? `http://${baseIri.slice(8)}`
    : `https://${baseIri.slice(7)}`;
}

/**
 * Memento (RFC 7089): the TimeGate, TimeMap and mementos of an original document (`original`: its
 * path, `/data/organisations/DE-1a.ttl` or `/isil/DE-1a`), each under a prefix of its own
 * (docs/history.md, "How a client asks for the past").
 */
export const TIMEGATE_PATH = '/timegate';
export const TIMEMAP_PATH = '/timemap';
export const MEMENTO_PATH = '/memento';

export const timegatePath = (original: string): string => `${TIMEGATE_PATH}${original}`;
export const timemapPath = (original: string): string => `${TIMEMAP_PATH}${original}`;
/** `timestamp`: the memento's datetime as 14 digits, YYYYMMDDhhmmss (UTC). */
export const mementoPath = (timestamp: string, original: string): string =>
  `${MEMENTO_PATH}/${timestamp}${original}`;
