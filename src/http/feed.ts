// `GET /feed` and `/feed/<page>`: the change feed, a Linked Data Event Stream of the served
// version's history (docs/history.md, "Following the change feed"), in TriG, JSON-LD, Turtle,
// N-Quads or N-Triples by `Accept` (`Vary: Accept`); a browser asking for the root gets a page that
// says what the feed is and how to follow it. A page that will never change is sent immutable
// (RFC 8246); a page retention dropped is 410; too many renders at once are 429.
import type { RequestHandler } from 'express';
import { FEED_FORMATS } from '../documents/feedStatements';
import { FEED_PATH } from '../rdf/iris';
import { feedPage } from '../pages/feedPage';
import { pageLanguage } from '../pages/language';
import { FeedPages, IMMUTABLE } from '../documents/feedPages';
import { RendersBusy } from '../documents/renderQueue';
import { cacheControl, currentDocuments, pathBelow, queryOf, type RouteDeps } from './deps';
import { notAcceptable, removed, notFound, tooManyRequests } from './errors';
import { CORS } from './middleware';
import { negotiateAmong } from './negotiate';
import { pageHeaders } from './pageHeaders';
import { publicOrigin } from './publicOrigin';
import { made, sendDocument, sendMade } from './respond';

/**
 * The root's offers: the feed's formats, then a page for people. Last, so that no `Accept` and
 * the full wildcard still get TriG; a browser names `text/html` above its wildcard.
 */
const ROOT_OFFERS = [
  ...FEED_FORMATS,
  { name: 'html' as const, mediaType: 'text/html', aliases: ['application/xhtml+xml'] },
];

/** Seconds a client told 429 waits: a page renders in well under that. */
const RETRY_AFTER = 1;

export function feed(deps: RouteDeps): RequestHandler {
  const pages = new FeedPages(
    {
      baseIri: deps.config.baseIri,
      // A new version comes no sooner than the root may be cached: looking more often finds nothing.
      pollingInterval: Math.max(deps.config.maxAge, 60),
      keepVersions: deps.config.historyKeepVersions,
    },
    (format, immutable) => ({
      status: 200,
      headers: (document) => ({
        'Content-Type': format.contentType,
        'Cache-Control': immutable ? IMMUTABLE : cacheControl(deps.config),
        ETag: document.etag,
        'Last-Modified': document.lastModified.toUTCString(),
        Vary: 'Accept, Accept-Encoding',
        ...CORS,
        'Content-Length': String(document.body.length),
      }),
    }),
  );
  return async function feed(req, res) {
    const documents = currentDocuments(deps.service);
    const history = documents.dataset.history;
    const id = pathBelow(req);
    const found = pages.find(history, id);
    if (found.kind === 'none') throw notFound('No such page of the change feed.');
    if (found.kind === 'gone')
      throw removed(
        `This page of the change feed was dropped with its version; the feed starts at ${FEED_PATH}.`,
      );
    const offer = negotiateAmong(req.headers.accept, id === '' ? ROOT_OFFERS : FEED_FORMATS);
    if (offer?.name === 'html') {
      const origin = publicOrigin(req);
      const language = pageLanguage(queryOf(req), req.headers['accept-language']);
      const page = made(feedPage(`${origin}${FEED_PATH}`, language));
      return sendMade(req, res, page, {
        'Content-Type': 'text/html;charset=utf-8',
        'Content-Language': language.lang,
        'Cache-Control': cacheControl(deps.config),
        Vary: 'Accept, Accept-Encoding, Accept-Language',
        ...pageHeaders(deps.config),
      });
    }
    const format = offer;
    if (!format)
      throw notAcceptable(
        'None of the change feed formats matches the Accept header. Available:',
        FEED_FORMATS.map((f) => ({ href: req.originalUrl, label: f.mediaType, type: f.mediaType })),
      );
    let answer;
    try {
      // A page of a history derived from the data reads its store: kept until the page is made.
      const origin = publicOrigin(req);
      answer = await documents.hold(() => pages.get(history, id, format, origin));
    } catch (error) {
      if (error instanceof RendersBusy)
        throw tooManyRequests(RETRY_AFTER, 'Too many pages of the change feed are being made.');
      throw error;
    }
    sendDocument(req, res, answer.representation);
  };
}
