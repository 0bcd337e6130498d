// Memento (RFC 7089, docs/history.md): each document's TimeGate (`/timegate/<document>`, 302 to the
// memento a datetime selects), TimeMap (`/timemap/<document>`, link-format or JSON) and mementos
// (`/memento/<YYYYMMDDhhmmss>/<document>`, the document as that version served it; immutable when
// its bytes can never change: an RDF memento of a logged history),
// read from the history of the dataset served, wherever that history is kept. Every URL they name
// is absolute on the origin asked (publicOrigin); `/timemap/json/<document>` is the JSON TimeMap.
import accepts from 'accepts';
import type { Request, RequestHandler, Response } from 'express';
import {
  httpDate,
  parseHttpDate,
  parseTimestamp14,
  selectMemento,
  timestamp14,
  type HistoryEvent,
} from '../history/model';
import { formatByExtension, formatByName, type Format } from '../rdf/formats';
import {
  DATA_PATH,
  DIRECTORY_PATH,
  documentPath,
  mementoPath,
  timegatePath,
  timemapPath,
} from '../rdf/iris';
import type { Isil } from '../rdf/isil';
import { SerializationError } from '../rdf/rdfxml';
import type { Documents } from '../documents/documents';
import { pageLanguage } from '../pages/language';
import { cacheControl, currentDocuments, pathBelow, queryOf, type RouteDeps } from './deps';
import {
  badRequest,
  cannotWrite,
  movedPermanently,
  notAcceptable,
  notFound,
  unknownIsil,
} from './errors';
import { servesPages } from '../pages/pageUrl';
import { isilFromPath } from './lookup';
import { commonHeaders } from './middleware';
import { pageHeaders } from './pageHeaders';
import { publicOrigin } from './publicOrigin';
import { documentAnswer, sendDocument } from './respond';
import { ownBuffer, Representation } from '../documents/representation';
import { documentLinks } from './resource';
import { LINK_FORMAT, timemapLink } from './timeLinks';

const JSON_TYPE = 'application/json';

/** Below `/timemap/`: the JSON TimeMap of the document that follows, whatever `Accept` says. */
const JSON_TIMEMAP = 'json/';
const jsonTimemapPath = (original: string) =>
  `${timemapPath('/')}${JSON_TIMEMAP}${original.slice(1)}`;

/** A memento never changes: caches keep it for a year without asking again (RFC 8246). */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** An original resource (RFC 7089's URI-R): a document of an institution, or its page. */
export interface Original {
  readonly isil: Isil;
  readonly format: Format;
  /** Its path: `/data/organisations/DE-1a.ttl`, `/isil/DE-1a`. */
  readonly path: string;
}

/**
 * The original resource a path below `/timegate/`, `/timemap/` or `/memento/<datetime>/` names:
 * an RDF document, or a page where this service serves them.
 */
function originalOf(rest: string, pages: boolean): Original {
  const data = DATA_PATH.slice(1);
  if (rest.startsWith(data)) {
    const name = rest.slice(data.length);
    const dot = name.lastIndexOf('.');
    const format = dot < 0 ? undefined : formatByExtension(name.slice(dot + 1));
    if (format === undefined || format.name === 'html')
      throw notFound(
        'The documents with a past are /data/organisations/<isil>.rdf, .ttl, .jsonld and .nt' +
          (pages ? ', and the pages /isil/<isil>.' : '.'),
      );
    const isil = isilFromPath(name.slice(0, dot));
    return { isil, format, path: documentPath(isil, format.ext) };
  }
  const page = DIRECTORY_PATH.slice(1);
  if (pages && rest.startsWith(page)) {
    const isil = isilFromPath(rest.slice(page.length));
    return { isil, format: formatByName('html'), path: `${DIRECTORY_PATH}${isil}` };
  }
  throw notFound('No such original resource: a document or page of an institution follows.');
}

/**
 * The mementos of the ISIL (oldest first); a 301 to the same URL with its canonical spelling when
 * it is asked in another case (HTTP contract §5, as every route); else 404: never known, or no
 * description kept.
 */
function mementosOf(req: Request, documents: Documents, isil: Isil): readonly HistoryEvent[] {
  const { history } = documents.dataset;
  const mementos = history.mementos(isil);
  if (mementos.length > 0) return mementos;
  if (history.events(isil).length > 0)
    throw notFound(`The history keeps no description of ${isil} to serve.`);
  // The dataset's spelling first (a live ISIL's), else the history's (a deleted one's).
  const found = documents.dataset.lookup(isil);
  const canonical = found.kind === 'other-case' ? found.isil : history.spelling(isil);
  if (canonical === undefined || history.events(canonical).length === 0) throw unknownIsil(isil);
  // The path names the ISIL once, as it was typed (isilFromPath takes no escapes).
  const query = req.originalUrl.indexOf('?');
  const path = query < 0 ? req.originalUrl : req.originalUrl.slice(0, query);
  const at = path.lastIndexOf(isil);
  throw movedPermanently(
    `${publicOrigin(req)}${path.slice(0, at)}${canonical}${req.originalUrl.slice(at + isil.length)}`,
    `The canonical spelling of this ISIL is ${canonical}.`,
  );
}

const mementoOf = (original: Original, event: HistoryEvent) =>
  mementoPath(timestamp14(event.time), original.path);

/**
 * The mementos a `Link` names (RFC 7089 §2.2.1): the first and the last, and with `at` (the memento
 * answered, or the one a TimeGate chose) that one as `memento` and its neighbours as `prev` and
 * `next` (RFC 8288); one link per memento, its relations together (`first prev memento`).
 */
function mementoLinks(
  base: string,
  original: Original,
  mementos: readonly HistoryEvent[],
  at?: HistoryEvent,
): string[] {
  const index = at === undefined ? -1 : mementos.indexOf(at);
  const rels = (i: number) =>
    [
      i === 0 && 'first',
      i === mementos.length - 1 && 'last',
      index >= 0 && i === index - 1 && 'prev',
      index >= 0 && i === index + 1 && 'next',
    ].filter(Boolean);
  // Only the first, the last and the memento's neighbours are named: a walk over every memento
  // cost an ISIL with ten thousand of them more than the rest of the answer.
  const named = [0, index - 1, index, index + 1, mementos.length - 1];
  return [...new Set(named)]
    .filter((i) => i >= 0 && i < mementos.length)
    .sort((a, b) => a - b)
    .flatMap((i) => {
      const relations = rels(i);
      if (relations.length === 0 && i !== index) return [];
      return [
        `<${base}${mementoOf(original, mementos[i]!)}>; rel="${[...relations, 'memento'].join(' ')}"; datetime="${httpDate(mementos[i]!.time)}"`,
      ];
    });
}

/**
 * `GET /timegate/<document>`: 302 to the memento `Accept-Datetime` selects (the latest at or
 * before it, the first before the first, the latest without one); 400 for a malformed one.
 */
export function timegate({ service, config }: RouteDeps): RequestHandler {
  const pages = servesPages(config);
  const cache = cacheControl(config);
  return function timegate(req, res) {
    const documents = currentDocuments(service);
    const original = originalOf(pathBelow(req), pages);
    const asked = req.get('accept-datetime');
    const datetime = asked === undefined ? undefined : parseHttpDate(asked);
    if (asked !== undefined && datetime === undefined)
      throw badRequest(
        'Accept-Datetime is an HTTP-date (RFC 7089 §2.1.1), e.g. Tue, 20 Mar 2001 20:35:00 GMT.',
      );
    const mementos = mementosOf(req, documents, original.isil);
    const chosen = selectMemento(mementos, datetime)!;
    const query = req.originalUrl.indexOf('?');
    const base = publicOrigin(req);
    res.writeHead(302, {
      ...commonHeaders(res),
      // The query is kept: a page's `lang` chooses the memento's language as the page's.
      Location: `${base}${mementoOf(original, chosen)}${query >= 0 ? req.originalUrl.slice(query) : ''}`,
      Vary: 'accept-datetime',
      Link: [
        `<${base}${original.path}>; rel="original"`,
        timemapLink(base, original.path),
        ...mementoLinks(base, original, mementos, chosen),
      ].join(', '),
      'Cache-Control': cache,
      'Content-Length': '0',
    });
    res.end();
  };
}

/** The TimeMap in link-format (RFC 6690), every URI absolute under `base`. */
function linkFormat(original: Original, mementos: readonly HistoryEvent[], base: string): string {
  const first = mementos[0]!;
  const last = mementos.at(-1)!;
  const lines = [
    `<${base}${original.path}>;rel="original"`,
    `<${base}${timemapPath(original.path)}>;rel="self";type="${LINK_FORMAT}";from="${httpDate(first.time)}";until="${httpDate(last.time)}"`,
    `<${base}${jsonTimemapPath(original.path)}>;rel="timemap";type="${JSON_TYPE}"`,
    `<${base}${timegatePath(original.path)}>;rel="timegate"`,
    ...mementos.map((event) => {
      const rel =
        mementos.length === 1
          ? 'first last memento'
          : event === first
            ? 'first memento'
            : event === last
              ? 'last memento'
              : 'memento';
      return `<${base}${mementoOf(original, event)}>;rel="${rel}";datetime="${httpDate(event.time)}"`;
    }),
  ];
  return `${lines.join(',\n')}\n`;
}

/** The TimeMap in the JSON shape Memento aggregators use. */
function timemapJson(original: Original, mementos: readonly HistoryEvent[], base: string): string {
  const item = (event: HistoryEvent) => ({
    datetime: new Date(event.time * 1000).toISOString().replace('.000Z', 'Z'),
    uri: `${base}${mementoOf(original, event)}`,
  });
  return `${JSON.stringify(
    {
      original_uri: `${base}${original.path}`,
      timegate_uri: `${base}${timegatePath(original.path)}`,
      timemap_uri: {
        link_format: `${base}${timemapPath(original.path)}`,
        json_format: `${base}${jsonTimemapPath(original.path)}`,
      },
      mementos: {
        first: item(mementos[0]!),
        last: item(mementos.at(-1)!),
        list: mementos.map(item),
      },
    },
    null,
    2,
  )}\n`;
}

/**
 * `GET /timemap/<document>`: every memento of the document, link-format or JSON by `Accept`;
 * `GET /timemap/json/<document>`: the JSON one, the URL its `json_format` names.
 */
export function timemap({ service, config }: RouteDeps): RequestHandler {
  const pages = servesPages(config);
  const cache = cacheControl(config);
  const answer = (type: string, vary: string) =>
    documentAnswer(
      {
        'Content-Type': type === JSON_TYPE ? JSON_TYPE : `${LINK_FORMAT};charset=utf-8`,
        'Cache-Control': cache,
      },
      // The format chooses no more than the Vary, given here.
      formatByName('nt'),
      vary,
    );
  const negotiated = new Map(
    [LINK_FORMAT, JSON_TYPE].map((type) => [type, answer(type, 'Accept, Accept-Encoding')]),
  );
  const json = answer(JSON_TYPE, 'Accept-Encoding');
  return function timemap(req, res) {
    const documents = currentDocuments(service);
    const rest = pathBelow(req);
    const fixed = rest.startsWith(JSON_TIMEMAP);
    const original = originalOf(fixed ? rest.slice(JSON_TIMEMAP.length) : rest, pages);
    const mementos = mementosOf(req, documents, original.isil);
    const base = publicOrigin(req);
    // No Accept, or a wildcard: the TimeMap's own format.
    const type = fixed
      ? JSON_TYPE
      : req.headers.accept
        ? (accepts(req).type([LINK_FORMAT, JSON_TYPE]) as string | false)
        : LINK_FORMAT;
    if (type === false)
      throw notAcceptable(undefined, [
        { href: `${base}${timemapPath(original.path)}`, label: 'TimeMap', type: LINK_FORMAT },
        {
          href: `${base}${jsonTimemapPath(original.path)}`,
          label: 'TimeMap (JSON)',
          type: JSON_TYPE,
        },
      ]);
    // Made once per version and origin (the documents of a version are dropped with it).
    const key = `${fixed ? 'fixed' : type}\u0000${base}\u0000${original.path}`;
    const timemap = documents.made(key, () => {
      const body =
        type === JSON_TYPE
          ? timemapJson(original, mementos, base)
          : linkFormat(original, mementos, base);
      const modified = new Date(mementos.at(-1)!.time * 1000);
      const bytes = ownBuffer(Buffer.from(body, 'utf8'));
      return new Representation(bytes, modified, fixed ? json : negotiated.get(type)!, type);
    });
    sendDocument(req, res, timemap);
  };
}

/** A memento's own headers: what a current document of its format says, and that it is past. */
function mementoHeaders(
  base: string,
  original: Original,
  mementos: readonly HistoryEvent[],
  event: HistoryEvent,
  page: Readonly<Record<string, string>>,
  lang: string,
  cache: string,
): Record<string, string> {
  const { format, isil } = original;
  return {
    'Content-Type': format.contentType,
    ...(format.name === 'html'
      ? { 'Content-Language': lang, ...page }
      : {
          'Content-Disposition': `inline; filename="${isil.replace(/[/:]/g, '_')}_${timestamp14(event.time)}.${format.ext}"`,
        }),
    'Memento-Datetime': httpDate(event.time),
    Link: [
      `<${base}${original.path}>; rel="original"`,
      `<${base}${timegatePath(original.path)}>; rel="timegate"`,
      timemapLink(base, original.path),
      ...mementoLinks(base, original, mementos, event),
    ].join(', '),
    'Cache-Control': cache,
  };
}

/**
 * `GET /memento/<YYYYMMDDhhmmss>/<document>`: the document as the version of that time served it
 * (200 whatever `Accept-Datetime` says: a memento does not negotiate), cached as documents are.
 */
export function memento({ service, config }: RouteDeps): RequestHandler {
  const pages = servesPages(config);
  const page = pageHeaders(config);
  return function memento(req: Request, res: Response): Promise<void> | void {
    const documents = currentDocuments(service);
    const rest = pathBelow(req);
    const slash = rest.indexOf('/');
    const time = slash < 0 ? undefined : parseTimestamp14(rest.slice(0, slash));
    if (time === undefined)
      throw notFound('A memento is /memento/<YYYYMMDDhhmmss>/<document>, its time in UTC.');
    const original = originalOf(rest.slice(slash + 1), pages);
    const mementos = mementosOf(req, documents, original.isil);
    const event = mementos.find((m) => m.time === time);
    const base = publicOrigin(req);
    if (!event)
      throw notFound(`No memento of ${original.path} has that time: its TimeMap lists them.`, {
        Link: timemapLink(base, original.path),
      });
    const { format } = original;
    const language =
      format.name === 'html'
        ? pageLanguage(queryOf(req), req.headers['accept-language'])
        : undefined;
    const cached = documents.cachedMemento(base, event, format.name, language);
    if (cached) return sendDocument(req, res, cached);
    // A page lists the versions, which grow; a derived history's time may name other data later.
    const immutable = format.name !== 'html' && !documents.dataset.history.derived;
    const cache = immutable ? IMMUTABLE : cacheControl(config);
    const answer = documentAnswer(
      mementoHeaders(base, original, mementos, event, page, language?.lang ?? '', cache),
      format,
    );
    return documents.memento(base, event, format.name, answer, language).then(
      (document) => sendDocument(req, res, document),
      (error: unknown) => {
        if (!(error instanceof SerializationError)) throw error;
        const others = documentLinks(base, original.isil).filter(
          (l) => l.type !== format.mediaType,
        );
        throw cannotWrite(format.label, error.message, others, error);
      },
    );
  };
}
