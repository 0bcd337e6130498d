// HTTP contract §3 and §4: `GET /data/organisations/<isil>.<ext>` answers the document in that
// format (200, with its validators, content codings, Link and Content-Location; 304 when they
// match), `.html` 302 to the directory page, no extension 303 as /resource does; §5 for ISILs that
// are no plain hit, 404 for an unknown extension.
import type { Request, RequestHandler, Response } from 'express';
import { FORMATS, formatByExtension, type Format } from '../rdf/formats';
import { DATA_PATH, documentPath } from '../rdf/iris';
import { CC0 } from '../rdf/namespaces';
import { SerializationError } from '../rdf/rdfxml';
import type { Documents } from '../documents/documents';
import type { Answer } from '../documents/representation';
import type { Institution } from '../store/dataset';
import { cacheControl, currentDocuments, DATASET_VERSION, pathBelow, type RouteDeps } from './deps';
import { cannotWrite, notFound } from './errors';
import { institutionPage, servesPages } from '../pages/pageUrl';
import { findOrGone, isilFromPath, type Place } from './lookup';
import { negotiate } from './negotiate';
import { documentAnswer, redirect, RedirectHeaders, sendDocument } from './respond';
import { documentLinks, seeOther, seeOtherHeaders } from './resource';
import { publicOrigin } from './publicOrigin';
import type { ProfileName } from '../rdf/profiles';
import { sendAlternates, withProfile } from './alternates';
import {
  mediaTypeParameter,
  negotiateProfile,
  profileHeaders,
  profileLinks,
  VARY_PROFILE,
} from './profile';
import { originalPath, timeLinks } from './timeLinks';

/**
 * The `Link` header of a document: the licence, every other format as alternate, and its TimeGate
 * and TimeMap (RFC 7089: the document, or the page, is an original resource), under `base`.
 */
export function linkHeader(
  base: string,
  isil: string,
  self: Format,
  profile?: { readonly baseIri: string; readonly name: ProfileName },
): string {
  const alternates = FORMATS.filter((f) => f !== self).map(
    (f) => `<${base}${documentPath(isil, f.ext)}>; rel="alternate"; type="${f.mediaType}"`,
  );
  const profiles = profile
    ? profileLinks(profile.baseIri, profile.name, `${base}${documentPath(isil, self.ext)}`, self)
    : [];
  return [
    `<${CC0}>; rel="license"`,
    ...alternates,
    ...profiles,
    timeLinks(base, originalPath(isil, self)),
  ].join(', ');
}

/** How a document of `documents`' dataset is answered: its headers, made once per render. */
function answerOf(
  base: string,
  documents: Documents,
  institution: Institution,
  format: Format,
  cacheControl: string,
  profile: ProfileName,
): Answer {
  const { isil } = institution;
  const { baseIri } = documents.dataset;
  const query = profile === 'zdb' ? '' : `?_profile=${profile}`;
  return documentAnswer(
    {
      'Content-Type': format.contentType,
      'Content-Location': `${documentPath(isil, format.ext)}${query}`,
      'Content-Disposition': `inline; filename="${isil.replace(/[/:]/g, '_')}${profile === 'zdb' ? '' : `.${profile}`}.${format.ext}"`,
      Link: linkHeader(base, isil, format, { baseIri, name: profile }),
      'Cache-Control': cacheControl,
      [DATASET_VERSION]: documents.dataset.version,
      ...profileHeaders(baseIri, profile),
    },
    format,
    `Accept-Encoding, ${VARY_PROFILE}`,
  );
}

/** The document of `institution` in `format`: from the cache, or rendered now. */
function sendFormat(
  req: Request,
  res: Response,
  documents: Documents,
  institution: Institution,
  format: Format,
  cacheControl: string,
  profile: ProfileName,
): Promise<void> | void {
  const base = publicOrigin(req);
  const cached = documents.cached(base, institution, format.name, undefined, profile);
  // A cached document is answered synchronously; only a render returns a promise.
  if (cached) return sendDocument(req, res, cached);
  const others = () =>
    documentLinks(base, institution.isil).filter((l) => l.type !== format.mediaType);
  // Known to fail: answered at once, and the log told only the first time.
  const failed = documents.failed(institution, format.name, profile);
  if (failed) throw cannotWrite(format.label, failed.message, others());
  const answer = answerOf(base, documents, institution, format, cacheControl, profile);
  return documents.get(base, institution, format.name, answer, undefined, profile).then(
    (document) => sendDocument(req, res, document),
    (error: unknown) => {
      if (!(error instanceof SerializationError)) throw error;
      throw cannotWrite(format.label, error.message, others(), error);
    },
  );
}

export function data({ service, config }: RouteDeps): RequestHandler {
  const cache = cacheControl(config);
  const bare: Place = { prefix: DATA_PATH, suffix: '', cacheControl: cache };
  const directory = new RedirectHeaders({ 'Content-Type': 'text/html', 'Cache-Control': cache });
  const seeOtherDocument = seeOtherHeaders(cache);
  const places = new Map(FORMATS.map((f) => [f, { ...bare, suffix: `.${f.ext}` }]));
  return function data(req, res) {
    const documents = currentDocuments(service);
    const path = pathBelow(req);
    const dot = path.lastIndexOf('.');
    if (dot < 0) {
      const accepted = () => negotiate(mediaTypeParameter(req) ?? req.headers.accept);
      const found = findOrGone(req, res, documents, path, bare, accepted);
      if (found instanceof Promise) return found;
      return seeOther(req, res, found.isil, seeOtherDocument, servesPages(config), config.baseIri);
    }
    const format = formatByExtension(path.slice(dot + 1));
    if (!format) {
      // A malformed ISIL is told before an unknown extension (contract §5: both are 404).
      isilFromPath(path.slice(0, dot));
      const extensions = FORMATS.map((f) => `.${f.ext}`).join(', ');
      throw notFound(`No document of that kind: the extensions are ${extensions}.`);
    }
    const found = findOrGone(
      req,
      res,
      documents,
      path.slice(0, dot),
      places.get(format)!,
      () => format,
    );
    if (found instanceof Promise) return found;
    const profile = negotiateProfile(req, config.baseIri);
    if (profile === 'alt') return sendAlternates(req, res, found.isil, config.baseIri, format);
    if (format.name === 'html') {
      const page = institutionPage(config, found.isil, { direct: true, base: publicOrigin(req) });
      return redirect(res, 302, withProfile(page, profile), directory);
    }
    return sendFormat(req, res, documents, found, format, cache, profile);
  };
}
