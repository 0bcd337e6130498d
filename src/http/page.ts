// The institution's own page, `GET /isil/<isil>` (served when no ISIL_DIRECTORY_URL is set, in
// place of the agency's directory that `/data/organisations/<isil>.html` points to): HTML with the
// document's validators, as §4 says for every document; in German or English, each
// language a document of its own, with its own ETag.
import type { RequestHandler } from 'express';
import { DIRECTORY_PATH } from '../rdf/iris';
import { formatByName } from '../rdf/formats';
import {
  cacheControl,
  currentDocuments,
  DATASET_VERSION,
  pathBelow,
  queryOf,
  type RouteDeps,
} from './deps';
import { linkHeader } from './data';
import { find } from './lookup';
import { pageHeaders } from './pageHeaders';
import { sendDocument, type HeaderBuilder } from './respond';
import { pageLanguage } from '../serving/html/language';

export function page({ service, config }: RouteDeps): RequestHandler {
  const cache = cacheControl(config);
  const at = { prefix: DIRECTORY_PATH, suffix: '', cacheControl: cache };
  const html = formatByName('html');
  const policy = pageHeaders(config);
  return function page(req, res) {
    const documents = currentDocuments(service);
    const version = documents.dataset.version;
    const language = pageLanguage(queryOf(req), req.headers['accept-language']);
    const headers: HeaderBuilder = (institution, format) => ({
      'Content-Type': format.contentType,
      'Content-Language': language.lang,
      Link: linkHeader(institution!.isil, format),
      'Cache-Control': cache,
      [DATASET_VERSION]: version,
      ...policy,
    });
    const institution = find(req, documents, pathBelow(req), at);
    const cached = documents.cached(institution, 'html', language);
    if (cached) return sendDocument(req, res, cached, headers, institution, html, documents.cache);
    return documents
      .get(institution, 'html', language)
      .then((rendered) =>
        sendDocument(req, res, rendered, headers, institution, html, documents.cache),
      );
  };
}
