// HTTP contract §2: `GET /resource/organisations/<isil>` answers 303 See Other to the document of
// the format `Accept` chooses, or 406 listing every document; §5 for ISILs that are no plain hit.
import type { Request, RequestHandler, Response } from 'express';
import { FORMATS } from '../rdf/formats';
import { documentPath, RESOURCE_PATH } from '../rdf/iris';
import type { Isil } from '../rdf/isil';
import { cacheControl, currentDocuments, pathBelow, type RouteDeps } from './deps';
import { notAcceptable } from './errors';
import { findOrGone } from './lookup';
import { negotiate } from './negotiate';
import { redirect, RedirectHeaders } from './respond';

/** The institution's documents, for the body of a 406. */
export const documentLinks = (isil: Isil) =>
  FORMATS.map((f) => ({ href: documentPath(isil, f.ext), label: f.label, type: f.mediaType }));

/** The headers of a 303 to documents cached for `cacheControl`: made once by each route. */
export const seeOtherHeaders = (cacheControl: string) =>
  new RedirectHeaders({ Vary: 'Accept', 'Cache-Control': cacheControl });

/** 303 to the negotiated document of `isil`, or 406 listing them all. */
export function seeOther(req: Request, res: Response, isil: Isil, headers: RedirectHeaders): void {
  const format = negotiate(req.headers.accept);
  if (!format) throw notAcceptable(undefined, documentLinks(isil));
  redirect(res, 303, documentPath(isil, format.ext), headers);
}

export function resource({ service, config }: RouteDeps): RequestHandler {
  const at = { prefix: RESOURCE_PATH, suffix: '', cacheControl: cacheControl(config) };
  const headers = seeOtherHeaders(at.cacheControl);
  return function resource(req, res) {
    const documents = currentDocuments(service);
    const accepted = () => negotiate(req.headers.accept);
    const found = findOrGone(req, res, documents, pathBelow(req), at, accepted);
    if (found instanceof Promise) return found;
    seeOther(req, res, found.isil, headers);
  };
}
