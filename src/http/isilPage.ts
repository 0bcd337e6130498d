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
import { publicOrigin } from './publicOrigin';
import { documentAnswer, sendDocument } from './respond';
import { pageLanguage } from '../pages/language';
import { sendAlternates } from './alternates';
import { negotiateProfile, profileHeaders, VARY_PROFILE } from './profile';

export function page({ service, config }: RouteDeps): RequestHandler {
  const cache = cacheControl(config);
  const at = { prefix: DIRECTORY_PATH, suffix: '', cacheControl: cache };
  const html = formatByName('html');
  const policy = pageHeaders(config);
  return function page(req, res) {
    const documents = currentDocuments(service);
    const language = pageLanguage(queryOf(req), req.headers['accept-language']);
    const institution = find(req, documents, pathBelow(req), at);
    const profile = negotiateProfile(req, config.baseIri);
    if (profile === 'alt') return sendAlternates(req, res, institution.isil, config.baseIri, html);
    const base = publicOrigin(req);
    const cached = documents.cached(base, institution, 'html', language, profile);
    if (cached) return sendDocument(req, res, cached);
    const answer = documentAnswer(
      {
        'Content-Type': html.contentType,
        'Content-Language': language.lang,
        Link: linkHeader(base, institution.isil, html, { baseIri: config.baseIri, name: profile }),
        'Cache-Control': cache,
        [DATASET_VERSION]: documents.dataset.version,
        ...profileHeaders(config.baseIri, profile),
        ...policy,
      },
      html,
      `Accept-Encoding, Accept-Language, ${VARY_PROFILE}`,
    );
    return documents
      .get(base, institution, 'html', answer, language, profile)
      .then((document) => sendDocument(req, res, document));
  };
}
