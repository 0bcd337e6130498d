// `GET /feed` and `/feed/<page>`: the change feed, a Linked Data Event Stream of the served
// version's history (docs/history.md, "Following the change feed"), in TriG, JSON-LD, Turtle,
// N-Quads or N-Triples by `Accept` (`Vary: Accept`). A page that will never change is sent
// immutable (RFC 8246); a page retention dropped is 410; too many renders at once are 429.
import type { RequestHandler } from 'express';
import { FEED_FORMATS, FEED_PATH } from '../serving/feed';
import { FeedPages, IMMUTABLE } from '../serving/feedPages';
import { RendersBusy } from '../serving/renderQueue';
import { cacheControl, currentDocuments, pathBelow, type RouteDeps } from './deps';
import { notAcceptable, removed, notFound, tooManyRequests } from './errors';
import { CORS } from './middleware';
import { negotiateAmong } from './negotiate';
import { publicOrigin } from './publicOrigin';
import { sendDocument } from './respond';

export { FEED_PATH };

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
        `This page of the change feed was dropped with its version (the history keeps ${deps.config.historyKeepVersions} versions); the feed starts at ${FEED_PATH}.`,
      );
    const format = negotiateAmong(req.headers.accept, FEED_FORMATS);
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
