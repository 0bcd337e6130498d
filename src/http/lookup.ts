// HTTP contract §5: what the path names. A malformed ISIL is 404 with why; another case of a known
// ISIL (live, withdrawn or deleted) is 301 to its canonical spelling; a withdrawn ISIL is 301 to its live successor, else 410
// (as RDF when RDF was asked for, with what the data holds about it); an unknown one is 404.
import type { Request, Response } from 'express';
import type { Format } from '../rdf/formats';
import { CC0 } from '../rdf/namespaces';
import { isilDefect, type Isil } from '../rdf/isil';
import { SerializationError } from '../rdf/rdfxml';
import type { Documents } from '../documents/documents';
import type { Answer } from '../documents/representation';
import type { Institution } from '../store/dataset';
import { DATASET_VERSION } from './deps';
import { gone, Gone, movedPermanently, noLongerServed, notWellFormed, unknownIsil } from './errors';
import type { Past } from '../pages/errorPage';
import { DIRECTORY_PATH, DATA_PATH, documentPath, mementoPath, timemapPath } from '../rdf/iris';
import { timestamp14 } from '../history/model';
import { formatByExtension } from '../rdf/formats';
import { publicOrigin } from './publicOrigin';
import { timeLinks } from './timeLinks';
import { CORS } from './middleware';
import { sendDocument } from './respond';

/** At most this much of a rejected path is echoed in an error body. */
const ECHO_LIMIT = 64;

/**
 * The ISIL a path names. Every ISIL character may stand in a path as it is, so an ISIL is never
 * percent-encoded: a `%` is an encoded slash, NUL, dot or something else that is no part of one.
 */
export function isilFromPath(text: string): Isil {
  const echo = text.length > ECHO_LIMIT ? `${text.slice(0, ECHO_LIMIT)}…` : text;
  if (text.includes('%'))
    throw notWellFormed(echo, 'percent-encoded characters are not part of an ISIL');
  const defect = isilDefect(text);
  if (defect !== undefined) throw notWellFormed(echo, defect);
  return text as Isil;
}

/** Where the answer for an ISIL that is not a plain hit points, and how it may be cached. */
export interface Place {
  /** The URL up to the ISIL, and what follows it (`.ttl`): a 301 keeps both. */
  readonly prefix: string;
  readonly suffix: string;
  readonly cacheControl: string;
}

/**
 * The document whose TimeMap an answer about `isil` at `at` links: the page or the RDF document the
 * path names, else (the 303 resources, the `.html` redirect) the Turtle document.
 */
function pastOf(at: Place, isil: Isil): string {
  if (at.prefix === DIRECTORY_PATH) return `${DIRECTORY_PATH}${isil}`;
  const format = at.prefix === DATA_PATH ? formatByExtension(at.suffix.slice(1)) : undefined;
  return documentPath(isil, format && format.name !== 'html' ? format.ext : 'ttl');
}

/**
 * The institution `text` names, or the answer for an ISIL that is not a plain hit, thrown. A 301
 * goes to the place's URL with the canonical ISIL (or the successor's), and the request's query.
 */
export function find(req: Request, documents: Documents, text: string, at: Place): Institution {
  // A path that is exactly an ISIL of the dataset is well-formed: every one passed `isilDefect`
  // when it was loaded. So a hit is taken as it is, and only a miss is checked (and told why it
  // is not well-formed) before it is looked up in another case.
  const hit = documents.dataset.exact(text);
  const isil = hit ? (text as Isil) : isilFromPath(text);
  const found = hit ?? documents.dataset.lookup(isil);
  if (found.kind === 'found') return found.institution;
  const { history } = documents.dataset;
  const base = publicOrigin(req);
  // An ISIL with a past links its TimeGate and TimeMap (RFC 7089) from the answers that say it
  // moved or went: its past is still there to ask.
  const past = (of: Isil): Record<string, string> =>
    history.mementos(of).length > 0 ? { Link: timeLinks(base, pastOf(at, of)) } : {};
  // The same TimeMap, and the newest memento, for the pages of a 410 to link.
  const pastLinks = (of: Isil): Past | undefined => {
    const latest = history.mementos(of).at(-1);
    const original = pastOf(at, of);
    return latest
      ? {
          timemap: timemapPath(original),
          latest: mementoPath(timestamp14(latest.time), original),
          latestTime: new Date(latest.time * 1000),
        }
      : undefined;
  };
  const moved = (to: Isil, why: string, from?: Isil) => {
    const query = req.originalUrl.indexOf('?');
    const location = `${base}${at.prefix}${to}${at.suffix}${query >= 0 ? req.originalUrl.slice(query) : ''}`;
    return movedPermanently(location, why, {
      'Cache-Control': at.cacheControl,
      ...(from === undefined ? {} : past(from)),
    });
  };
  if (found.kind === 'other-case')
    throw moved(found.isil, `The canonical spelling of this ISIL is ${found.isil}.`);
  if (found.kind === 'withdrawn') {
    const { withdrawn } = found;
    if (withdrawn.successor.kind === 'live') {
      const successor = withdrawn.successor.institution.isil;
      throw moved(
        successor,
        `The ISIL ${withdrawn.isil} was withdrawn; ${successor} replaces it.`,
        withdrawn.isil,
      );
    }
    throw gone(
      withdrawn,
      { 'Cache-Control': at.cacheControl, ...past(withdrawn.isil) },
      pastLinks(withdrawn.isil),
    );
  }
  if (history.events(isil).length > 0)
    throw noLongerServed(
      isil,
      { 'Cache-Control': at.cacheControl, ...past(isil) },
      pastLinks(isil),
    );
  // A deleted ISIL in another case is redirected as a live one is: to the spelling its past has.
  const spelling = history.spelling(isil);
  if (spelling !== undefined)
    throw moved(spelling as Isil, `The canonical spelling of this ISIL is ${spelling}.`);
  throw unknownIsil(isil);
}

/**
 * `find`, where a withdrawn ISIL asked for as RDF (`formatOf`: by extension or by `Accept`, asked
 * only for a withdrawn ISIL) is answered 410 in that format: the institution, or the promise of
 * that answer.
 */
export function findOrGone(
  req: Request,
  res: Response,
  documents: Documents,
  text: string,
  at: Place,
  formatOf: () => Format | undefined,
): Institution | Promise<void> {
  try {
    return find(req, documents, text, at);
  } catch (error) {
    if (!(error instanceof Gone)) throw error;
    const format = formatOf();
    if (format === undefined || format.name === 'html') throw error;
    return goneAs(req, res, documents, error, format);
  }
}

/**
 * The 410 of a withdrawn ISIL asked for as RDF: what the dataset holds about it, its
 * `dcterms:isReplacedBy` among it, in that format, so that an RDF client sees the successor the
 * data names. A description the format cannot carry gets the short error body instead.
 */
function goneAs(
  req: Request,
  res: Response,
  documents: Documents,
  error: Gone,
  format: Format,
): Promise<void> {
  const { isil, iri, name } = error.withdrawn;
  const withdrawn: Institution = { isil, iri, name, modified: undefined };
  // Known not to be writable in this format: the short body at once, no render again.
  if (documents.failed(withdrawn, format.name)) return Promise.reject(error);
  const answer = goneAnswer(documents, error, format);
  return documents.get(publicOrigin(req), withdrawn, format.name, answer).then(
    (document) => sendDocument(req, res, document),
    (failure: unknown) => {
      if (failure instanceof SerializationError) throw error;
      throw failure;
    },
  );
}

/** The 410's headers: no validators, `Vary: Accept` (the format was negotiated or named). */
const goneAnswer = (documents: Documents, error: Gone, format: Format): Answer => ({
  status: 410,
  headers: (document) => ({
    'X-Request-Id': '',
    ...CORS,
    'Content-Type': format.contentType,
    'Content-Length': String(document.body.length),
    Vary: 'Accept',
    [DATASET_VERSION]: documents.dataset.version,
    ...error.headers,
    // The licence, and the TimeGate and TimeMap where the ISIL has a past.
    Link: [`<${CC0}>; rel="license"`, ...(error.headers.Link ? [error.headers.Link] : [])].join(
      ', ',
    ),
  }),
});
