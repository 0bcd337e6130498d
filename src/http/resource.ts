// HTTP contract §2: `GET /resource/organisations/<isil>` answers 303 See Other to the document of
// the format `Accept` chooses, or 406 listing every document; §5 for ISILs that are no plain hit.
import type { Request, RequestHandler, Response } from 'express';
import { FORMATS } from '../rdf/formats';
import { documentPath, RESOURCE_PATH, timegatePath } from '../rdf/iris';
import type { Isil } from '../rdf/isil';
import { cacheControl, currentDocuments, pathBelow, type RouteDeps } from './deps';
import { notAcceptable } from './errors';
import { findOrGone } from './lookup';
import { negotiate } from './negotiate';
import { redirect, RedirectHeaders } from './respond';
import { servesPages } from '../pages/pageUrl';
import { publicOrigin } from './publicOrigin';
import { originalPath } from './timeLinks';
import { sendAlternates, withProfile } from './alternates';
import { mediaTypeParameter, negotiateProfile, VARY_PROFILE } from './profile';

/** The institution's documents under `base`, for the body of a 406. */
export const documentLinks = (base: string, isil: Isil) =>
  FORMATS.map((f) => ({
    href: `${base}${documentPath(isil, f.ext)}`,
    label: f.label,
    type: f.mediaType,
  }));

/**
 * The headers of a 303 to documents cached for `cacheControl`: made once by each route. The
 * answer depends on `Accept-Datetime` too (a request with one is sent to a TimeGate).
 */
export const seeOtherHeaders = (cacheControl: string) =>
  new RedirectHeaders({
    Vary: `Accept, Accept-Datetime, ${VARY_PROFILE}`,
    'Cache-Control': cacheControl,
  });

/**
 * 303 to the negotiated document of `isil`, or 406 listing them all. With `Accept-Datetime`, an
 * intermediate resource (RFC 7089 §4.5.3): 303 to the TimeGate of that document (of the page,
 * where this service serves them: `pages`), never a memento itself.
 */
export function seeOther(
  req: Request,
  res: Response,
  isil: Isil,
  headers: RedirectHeaders,
  pages: boolean,
  baseIri: string,
): void {
  const base = publicOrigin(req);
  const format = negotiate(mediaTypeParameter(req) ?? req.headers.accept);
  if (!format) throw notAcceptable(undefined, documentLinks(base, isil));
  // The profile asked for is carried to the document (dx-prof-conneg): in its query string.
  const profile = negotiateProfile(req, baseIri);
  if (profile === 'alt') return sendAlternates(req, res, isil, baseIri, format);
  const document = documentPath(isil, format.ext);
  const past = req.headers['accept-datetime'] !== undefined && (format.name !== 'html' || pages);
  redirect(
    res,
    303,
    withProfile(`${base}${past ? timegatePath(originalPath(isil, format)) : document}`, profile),
    headers,
  );
}

export function resource({ service, config }: RouteDeps): RequestHandler {
  const at = { prefix: RESOURCE_PATH, suffix: '', cacheControl: cacheControl(config) };
  const headers = seeOtherHeaders(at.cacheControl);
  const pages = servesPages(config);
  return function resource(req, res) {
    const documents = currentDocuments(service);
    const accepted = () => negotiate(req.headers.accept);
    const found = findOrGone(req, res, documents, pathBelow(req), at, accepted);
    if (found instanceof Promise) return found;
    seeOther(req, res, found.isil, headers, pages, config.baseIri);
  };
}
