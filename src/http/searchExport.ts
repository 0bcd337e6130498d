// Bulk answers of `/search`: every match as JSON Lines (`format=jsonl`), as a GeoJSON
// FeatureCollection (`format=geojson`) or as CSV (`format=csv` without a page), streamed as the
// client reads them, a chunk at a time from the index's thread (src/search/exports.ts), in the
// dataset version the export started in, gzip when asked. At most `MAX_EXPORTS` run at once;
// past them, 503 with Retry-After; a client that stops reading loses its slot (`EXPORT_STALL_MS`).
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import accepts from 'accepts';
import type { Request, Response } from 'express';
import type { ExportFormat } from '../search/exports';
import type { FieldContext, FieldName } from '../record/fields';
import type { Config } from '../config/config';
import type { SearchRequest } from '../search/searchIndex';
import type { Asker } from '../search/searchQueue';
import { notModified } from './conditional';
import { cacheControl, DATASET_VERSION, queryOf, searching, type RouteDeps } from './deps';
import { NO_STORE, serviceUnavailable } from './errors';
import { institutionPage } from '../pages/pageUrl';
import { commonHeaders } from './middleware';
import { publicOrigin } from './publicOrigin';

const CONTENT_TYPE: Readonly<Record<ExportFormat, string>> = {
  geojson: 'application/geo+json',
  jsonl: 'application/x-ndjson',
  csv: 'text/csv;charset=utf-8;header=present',
};

/**
 * Where the fields module finds an institution's URI (under BASE_IRI) and page (on `base`, the
 * origin asked: src/record/fields.ts).
 */
export function fieldContext(config: Config, base: string): FieldContext {
  return {
    baseIri: config.baseIri,
    pagePattern: institutionPage(config, '{isil}', { base }),
  };
}

/** The fields' context of a request: its pages absolute on the origin it asked. */
export const requestFieldContext = (req: Request, config: Config): FieldContext =>
  fieldContext(config, publicOrigin(req));

/** Bulk exports answered at once: each holds its matches and a version's index. */
export const MAX_EXPORTS = 4;

/**
 * How long an export waits for a client that reads nothing more (its buffers full) before it ends
 * the answer and gives its slot up: else four clients that never read held every slot for as long
 * as they stayed connected.
 */
export const EXPORT_STALL_MS = 30_000;

/** An export whose client read nothing for `EXPORT_STALL_MS`: its answer is cut short. */
export class ExportStalled extends Error {
  override name = 'ExportStalled';
  constructor(ms: number) {
    super(`The client read nothing of a bulk export for ${ms} ms.`);
  }
}

/** The exports running, counted across the requests of one route table, and their write deadline. */
export class ExportSlots {
  running = 0;
  constructor(readonly stallMs = EXPORT_STALL_MS) {}
}

export interface ExportAsked {
  readonly request: SearchRequest;
  readonly format: ExportFormat;
  readonly fields: readonly FieldName[];
  readonly context: FieldContext;
  readonly asker: Asker;
}

/**
 * A validator of what the answer is made of: the version, the query, the pages' origin (`page`)
 * and the content coding.
 */
function etagOf(version: string, params: URLSearchParams, format: string, coding: string): string {
  const query = [...params]
    .filter(([k]) => k !== 'lang')
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join('&');
  const hash = createHash('sha256').update(`${version}\0${format}\0${query}\0${coding}`);
  return `W/"${hash.digest('base64url').slice(0, 27)}"`;
}

/**
 * Writes `text`, waiting while the client reads slower than the index writes, at most `stallMs`
 * for the buffers to drain.
 */
async function write(
  out: Writable,
  text: string,
  signal: AbortSignal | undefined,
  stallMs: number,
): Promise<void> {
  if (text === '' || out.write(text)) return;
  const stop = new AbortController();
  const leave = () => stop.abort(signal?.reason);
  if (signal?.aborted) leave();
  signal?.addEventListener('abort', leave, { once: true });
  const timer = setTimeout(() => stop.abort(new ExportStalled(stallMs)), stallMs);
  try {
    await once(out, 'drain', { signal: stop.signal });
  } catch (error) {
    if (stop.signal.reason instanceof ExportStalled) throw stop.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', leave);
  }
}

export async function searchExport(
  req: Request,
  res: Response,
  deps: RouteDeps,
  slots: ExportSlots,
  asked: ExportAsked,
): Promise<void> {
  if (slots.running >= MAX_EXPORTS)
    throw serviceUnavailable(
      5,
      `At most ${MAX_EXPORTS} bulk exports run at once; try again shortly.`,
      NO_STORE,
    );
  slots.running++;
  // The asker (its abort signal) stays here: only plain data crosses to the index's thread.
  const { asker, format, request, fields, context } = asked;
  let open: number | undefined;
  let gzipped: Writable | undefined;
  try {
    const spec = { request, format, fields, context };
    const started = await searching(deps.service, (s) => s.exportStart(spec, asker));
    open = started.value.id;
    const gzip = accepts(req).encoding(['gzip', 'identity']) === 'gzip';
    const etag = etagOf(
      started.version,
      queryOf(req),
      `${format}\0${context.pagePattern}`,
      gzip ? 'gzip' : 'identity',
    );
    const headers = {
      ...commonHeaders(res),
      'Content-Type': CONTENT_TYPE[format],
      'Cache-Control': cacheControl(deps.config),
      Vary: 'Accept, Accept-Encoding',
      [DATASET_VERSION]: started.version,
      ETag: etag,
      'Content-Disposition': `inline; filename="isil-search.${format}"`,
    };
    if (notModified({ 'if-none-match': req.headers['if-none-match'] }, etag, new Date(0))) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, ...(gzip ? { 'Content-Encoding': 'gzip' } : {}) });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    if (gzip) (gzipped = createGzip()).pipe(res);
    const out: Writable = gzipped ?? res;
    if (format === 'csv') await write(out, `${fields.join(',')}\r\n`, asker.signal, slots.stallMs);
    if (format === 'geojson')
      await write(
        out,
        `{"type":"FeatureCollection","total":${started.value.total},"withoutCoordinates":${started.value.withoutCoordinates},"features":[\n`,
        asker.signal,
        slots.stallMs,
      );
    for (;;) {
      const id: number = open;
      const { value: chunk } = await searching(deps.service, (s) => s.exportNext(id, asker));
      await write(out, chunk.text, asker.signal, slots.stallMs);
      if (chunk.done) break;
    }
    open = undefined;
    if (format === 'geojson') await write(out, '\n]}\n', asker.signal, slots.stallMs);
    out.end();
  } catch (error) {
    // Once the answer has begun, an error can only cut it short: the client sees it unfinished.
    if (!res.headersSent) throw error;
    gzipped?.destroy();
    res.destroy(error as Error);
  } finally {
    slots.running--;
    if (open !== undefined) void deps.service.search.exportEnd(open);
  }
}
