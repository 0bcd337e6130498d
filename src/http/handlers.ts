// The route handlers: each parses what the request names, asks the current dataset, and answers.
import fs from 'node:fs';
import path from 'node:path';
import type { Request, Response } from 'express';
import type { Config } from '../config';
import type { Institution } from '../store/dataset';
import { toRendered, type Documents } from '../serving/documents';
import { escapeHtml } from '../serving/page';
import { QUERY_DIR } from '../util/paths';
import { FORMATS, formatByExtension, formatByName, type Format } from '../rdf/formats';
import { DATA_PATH, DIRECTORY_PATH, documentPath, RESOURCE_PATH } from '../rdf/iris';
import { isilDefect, type Isil } from '../rdf/isil';
import { CONTEXT_PATH, contextDocument } from '../rdf/context';
import { CC0 } from '../rdf/namespaces';
import { negotiate } from './negotiate';
import { SerializationError } from '../rdf/rdfxml';
import type { Service } from '../serving/service';
import {
  cannotWrite,
  Gone,
  gone,
  movedPermanently,
  notAcceptable,
  notFound,
  notReady,
  notWellFormed,
  unknownIsil,
} from './errors';
import { commonHeaders } from './middleware';
import { redirect, sendDocument, type HeaderBuilder } from './respond';

/**
 * The header that names the dataset a document was rendered from (its version, as `/readyz` shows
 * it). Without an `X-` prefix: RFC 6648 §3 advises against it for new fields.
 */
export const DATASET_VERSION = 'Dataset-Version';

/** Where the SHACL shapes of the published model (queries/shapes.ttl) are served. */
export const SHAPES_PATH = '/shapes.ttl';

/** At most this much of a rejected path is echoed in an error body. */
const ECHO_LIMIT = 64;

/**
 * The ISIL a path names. Every ISIL character may stand in a path as it is, so an ISIL is never
 * percent-encoded: a `%` is an encoded slash, NUL, dot or something else that is no part of one.
 */
function isilFromPath(text: string): Isil {
  const echo = text.length > ECHO_LIMIT ? `${text.slice(0, ECHO_LIMIT)}…` : text;
  if (text.includes('%'))
    throw notWellFormed(echo, 'percent-encoded characters are not part of an ISIL');
  const defect = isilDefect(text);
  if (defect !== undefined) throw notWellFormed(echo, defect);
  return text as Isil;
}

/**
 * What `parseurl` parses with `url.parse` rather than by itself: `req.path` is asked then. Node's
 * parser refuses whitespace and raw non-ASCII bytes in a target (400), so in practice this is `#`.
 */
const UNUSUAL_TARGET = /[#\s\u00a0\ufeff]/;

/**
 * The path below the route's mount point, without the query and without its leading `/`: what
 * `req.path` gives, without parsing the URL a second time (the router parsed it before `byPrefix`
 * cut the prefix off). A target in absolute form (through a mount), or one that `parseurl` would
 * hand to `url.parse`, is read through `req.path`.
 */
function rest(req: Request): string {
  const url = req.url;
  // `url.parse` finds no path at all in `x://h`: what a mount leaves of `x://h/data/organisations`.
  if (url.charCodeAt(0) !== 0x2f || UNUSUAL_TARGET.test(url)) return (req.path ?? '/').slice(1);
  const query = url.indexOf('?');
  return query < 0 ? url.slice(1) : url.slice(1, query);
}

/** The `Link` header of a document: the licence, and every other format as alternate. */
function linkHeader(isil: string, self: Format): string {
  const alternates = FORMATS.filter((f) => f !== self).map(
    (f) => `<${documentPath(isil, f.ext)}>; rel="alternate"; type="${f.mediaType}"`,
  );
  return [`<${CC0}>; rel="license"`, ...alternates].join(', ');
}

export function handlers(service: Service, config: Config) {
  const cacheControl = `public, max-age=${config.maxAge}`;

  /** The documents of the dataset being served: taken once, so a request sees one dataset. */
  const current = (): Documents => {
    const documents = service.current;
    if (!documents) throw notReady();
    return documents;
  };

  /**
   * The institution, or the answer for an ISIL that is not a plain hit (contract §5). A 301 goes
   * to `prefix` + the canonical ISIL (or the successor's) + `suffix`, with the request's query: a
   * withdrawn ISIL's successor is answered at the URL of the same kind as the one asked for.
   */
  const find = (
    req: Request,
    documents: Documents,
    text: string,
    prefix: string,
    suffix = '',
  ): Institution => {
    // A path that is exactly an ISIL of the dataset is well-formed: every one passed `isilDefect`
    // when it was loaded. So a hit is taken as it is, and only a miss is checked (and told why it
    // is not well-formed) before it is looked up in another case.
    const hit = documents.dataset.exact(text);
    const isil = hit ? (text as Isil) : isilFromPath(text);
    const found = hit ?? documents.dataset.lookup(isil);
    if (found.kind === 'found') return found.institution;
    const moved = (to: Isil, why: string) => {
      const query = req.originalUrl.indexOf('?');
      const location = `${prefix}${to}${suffix}${query >= 0 ? req.originalUrl.slice(query) : ''}`;
      return movedPermanently(location, why, { 'Cache-Control': cacheControl });
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
        );
      }
      throw gone(withdrawn, { 'Cache-Control': cacheControl });
    }
    throw unknownIsil(isil);
  };

  /** The headers of a 303 and of the 302 to the directory beside Location: made once. */
  const seeOtherHeaders = { Vary: 'Accept', 'Cache-Control': cacheControl } as const;
  const directoryHeaders = { 'Content-Type': 'text/html', 'Cache-Control': cacheControl } as const;

  /** The institution's documents, for the body of a 406. */
  const documentLinks = (isil: Isil) =>
    FORMATS.map((f) => ({ href: documentPath(isil, f.ext), label: f.label, type: f.mediaType }));

  /** 303 to the negotiated document (contract §2), or 406 listing them all. */
  const seeOther = (req: Request, res: Response, isil: Isil): void => {
    const format = negotiate(req.headers.accept);
    if (!format) throw notAcceptable(documentLinks(isil));
    redirect(res, 303, documentPath(isil, format.ext), seeOtherHeaders);
  };

  /**
   * The 410 of a withdrawn ISIL asked for as RDF (contract §5): what the dataset holds about it,
   * its `dcterms:isReplacedBy` among it, in that format, so that an RDF client sees the successor
   * the data names. A description the format cannot carry gets the short error body instead.
   */
  const goneAs = (
    res: Response,
    documents: Documents,
    error: Gone,
    format: Format,
  ): Promise<void> => {
    const { isil, iri, name } = error.withdrawn;
    const withdrawn: Institution = { isil, iri, name, modified: undefined };
    // Known not to be writable in this format: the short body at once, no render again.
    if (documents.failed(withdrawn, format.name)) return Promise.reject(error);
    return documents.get(withdrawn, format.name).then(
      ({ body }) => {
        res.writeHead(410, {
          ...commonHeaders(res),
          'Content-Type': format.contentType,
          'Content-Length': String(body.length),
          Link: `<${CC0}>; rel="license"`,
          Vary: 'Accept',
          [DATASET_VERSION]: documents.dataset.version,
          ...error.headers,
        });
        res.end(body);
      },
      (failure: unknown) => {
        if (failure instanceof SerializationError) throw error;
        throw failure;
      },
    );
  };

  /**
   * The institution `find` finds; a withdrawn ISIL asked for as RDF (`format`, by extension or by
   * `Accept`) is answered 410 in that format, and `undefined` returned with the answer's promise.
   */
  const findOrGone = (
    req: Request,
    res: Response,
    documents: Documents,
    text: string,
    prefix: string,
    /** The format asked for: called only for a withdrawn ISIL (negotiation costs on a hit). */
    formatOf: () => Format | undefined,
    suffix = '',
  ): Institution | Promise<void> => {
    try {
      return find(req, documents, text, prefix, suffix);
    } catch (error) {
      if (!(error instanceof Gone)) throw error;
      const format = formatOf();
      if (format === undefined || format.name === 'html') throw error;
      return goneAs(res, documents, error, format);
    }
  };
  const accepted = (req: Request) => () => negotiate(req.headers.accept);

  /**
   * The headers of each kind of document of one dataset, made once per cached document: the
   * dataset's version is among them, so showing it costs nothing per request.
   */
  const headerBuilders = (documents: Documents) => {
    const version = documents.dataset.version;
    const documentHeaders: HeaderBuilder = (institution, format) => ({
      'Content-Type': format.contentType,
      'Content-Location': documentPath(institution!.isil, format.ext),
      'Content-Disposition': `inline; filename="${institution!.isil.replace(/[/:]/g, '_')}.${format.ext}"`,
      Link: linkHeader(institution!.isil, format),
      'Cache-Control': cacheControl,
      [DATASET_VERSION]: version,
    });
    const pageHeaders: HeaderBuilder = (institution, format) => ({
      'Content-Type': format.contentType,
      Link: linkHeader(institution!.isil, format),
      'Cache-Control': cacheControl,
      [DATASET_VERSION]: version,
    });
    return { documents, documentHeaders, pageHeaders };
  };
  /** The builders of the dataset served last; a swapped-in dataset gets its own on first use. */
  let builders: ReturnType<typeof headerBuilders> | undefined;
  const buildersOf = (documents: Documents) =>
    builders?.documents === documents ? builders : (builders = headerBuilders(documents));
  const contextHeaders: HeaderBuilder = () => ({
    'Content-Type': 'application/ld+json',
    'Cache-Control': cacheControl,
    Link: `<${CC0}>; rel="license"`,
  });
  const html = formatByName('html');
  const jsonld = formatByName('jsonld');

  const contextRendered = toRendered(Buffer.from(contextDocument()), new Date());

  const ttl = formatByName('ttl');
  const shapesHeaders: HeaderBuilder = () => ({
    'Content-Type': ttl.contentType,
    'Cache-Control': cacheControl,
  });
  // Read once when the app is built, as the query templates are at start; Last-Modified is the
  // file's, so a client revalidates exactly when the shapes changed.
  const shapesFile = path.join(QUERY_DIR, 'shapes.ttl');
  const shapesRendered = toRendered(fs.readFileSync(shapesFile), fs.statSync(shapesFile).mtime);

  return {
    healthz(_req: Request, res: Response): void {
      res.set({ ...commonHeaders(res), 'Cache-Control': 'no-store' });
      res.json({ status: 'alive' });
    },

    readyz(_req: Request, res: Response): void {
      res.set({ ...commonHeaders(res), 'Cache-Control': 'no-store' });
      const documents = service.current;
      // The last reload's outcome, accepted or refused with why: a refused one leaves the data
      // served as it was, so the service stays ready and the operator reads here what happened.
      const lastReload = service.lastReload ?? null;
      if (!documents) {
        res.status(503).json({ status: 'loading', lastReload });
        return;
      }
      const { dataset } = documents;
      res.json({
        status: 'ready',
        institutions: dataset.institutionCount,
        withdrawn: dataset.withdrawnCount,
        triples: dataset.tripleCount,
        version: dataset.version,
        loadedAt: dataset.loadedAt.toISOString(),
        lastReload,
      });
    },

    context(req: Request, res: Response): void {
      sendDocument(req, res, contextRendered, contextHeaders, undefined, jsonld);
    },

    /** GET /shapes.ttl: the SHACL shapes the loader validates every institution against. */
    shapes(req: Request, res: Response): void {
      sendDocument(req, res, shapesRendered, shapesHeaders, undefined, ttl);
    },

    home(_req: Request, res: Response): void {
      const { dataset } = current();
      const example = dataset.institutions().next().value;
      const link = example
        ? `<p>For example: <a href="${escapeHtml(RESOURCE_PATH + example.isil)}">${escapeHtml(example.name ?? example.isil)}</a>.</p>`
        : '';
      res.set({ ...commonHeaders(res), 'Cache-Control': cacheControl });
      res
        .type('html')
        .send(
          `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>ISIL Linked Data</title></head><body><h1>ISIL Linked Data</h1><p>The address data of ${dataset.institutionCount} libraries, archives and museums, identified by ISIL, as Linked Data (FOAF and vCard) under <a rel="license" href="${CC0}">CC0 1.0</a>.</p>${link}<p>JSON-LD context: <a href="${CONTEXT_PATH}">${CONTEXT_PATH}</a>.</p></body></html>\n`,
        );
    },

    /** GET /resource/organisations/<isil>: 303. */
    resource(req: Request, res: Response): Promise<void> | void {
      const documents = current();
      const found = findOrGone(req, res, documents, rest(req), RESOURCE_PATH, accepted(req));
      if (found instanceof Promise) return found;
      seeOther(req, res, found.isil);
    },

    /**
     * GET /data/organisations/<isil>[.ext]: 303 without extension, 302 for .html, else 200. A cached
     * document is answered synchronously; only a render returns a promise (Express 5 awaits it).
     */
    data(req: Request, res: Response): Promise<void> | void {
      const documents = current();
      const { documentHeaders } = buildersOf(documents);
      const path = rest(req);
      const dot = path.lastIndexOf('.');
      if (dot < 0) {
        const found = findOrGone(req, res, documents, path, DATA_PATH, accepted(req));
        if (found instanceof Promise) return found;
        seeOther(req, res, found.isil);
        return;
      }
      const format = formatByExtension(path.slice(dot + 1));
      if (!format) {
        // A malformed ISIL is told before an unknown extension (contract §5: both are 404).
        isilFromPath(path.slice(0, dot));
        throw notFound(
          `No document of that kind: the extensions are ${FORMATS.map((f) => `.${f.ext}`).join(', ')}.`,
        );
      }
      const found = findOrGone(
        req,
        res,
        documents,
        path.slice(0, dot),
        DATA_PATH,
        () => format,
        `.${format.ext}`,
      );
      if (found instanceof Promise) return found;
      const institution = found;
      if (format.name === 'html') {
        redirect(
          res,
          302,
          `${config.isilDirectoryUrl}${DIRECTORY_PATH}${institution.isil}`,
          directoryHeaders,
        );
        return;
      }
      const cached = documents.cached(institution, format.name);
      if (cached)
        return sendDocument(
          req,
          res,
          cached,
          documentHeaders,
          institution,
          format,
          documents.cache,
        );
      const others = () =>
        documentLinks(institution.isil).filter((l) => l.type !== format.mediaType);
      // Known to fail: answered at once, and the log told only the first time.
      const failed = documents.failed(institution, format.name);
      if (failed) throw cannotWrite(format.label, failed.message, others());
      return documents.get(institution, format.name).then(
        (rendered) =>
          sendDocument(req, res, rendered, documentHeaders, institution, format, documents.cache),
        (error: unknown) => {
          if (!(error instanceof SerializationError)) throw error;
          throw cannotWrite(format.label, error.message, others(), error);
        },
      );
    },

    /** GET /isil/<isil>: the institution's page (a cached one answered synchronously). */
    page(req: Request, res: Response): Promise<void> | void {
      const documents = current();
      const { pageHeaders } = buildersOf(documents);
      const institution = find(req, documents, rest(req), DIRECTORY_PATH);
      const cached = documents.cached(institution, 'html');
      if (cached)
        return sendDocument(req, res, cached, pageHeaders, institution, html, documents.cache);
      return documents
        .get(institution, 'html')
        .then((rendered) =>
          sendDocument(req, res, rendered, pageHeaders, institution, html, documents.cache),
        );
    },
  };
}
