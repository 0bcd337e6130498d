// The dumps, `GET /dumps/` (the list: HTML or JSON, with each file's size and SHA-256) and
// `GET /dumps/<file>` (the file, with Last-Modified, a strong ETag, its SHA-256, and ranges, so a
// download that broke off goes on where it stopped). Made in the background (src/documents/versionDumps.ts).
import fs from 'node:fs';
import type { Request, RequestHandler, Response } from 'express';
import { preconditionFailed, rangeApplies } from './conditional';
import type { DumpFile, DumpSet, DumpState } from '../documents/versionDumps';
import { escapeHtml } from '../pages/escape';
import { negotiateAmong } from '../util/accept';
import { pathBelow, queryOf, type RouteDeps } from './deps';
import {
  notAcceptable,
  notFound,
  preconditionFailed as status412,
  rangeNotSatisfiable,
} from './errors';
import { layout } from '../pages/frame';
import { humanDate, humanNumber, pageLanguage, type PageLanguage } from '../pages/language';
import { pageHeaders } from './pageHeaders';
import { commonHeaders } from './middleware';
import { publicOrigin } from './publicOrigin';

export const DUMPS_PATH = '/dumps/';

const OFFERS = [
  { name: 'html' as const, mediaType: 'text/html', aliases: [] },
  { name: 'json' as const, mediaType: 'application/json', aliases: [] },
];

const LABEL = {
  nt: 'N-Triples (gzip)',
  jsonl: 'JSON-LD lines (gzip)',
  csv: 'CSV',
  history: 'History, JSON lines (gzip)',
  changes: 'JSON lines (gzip)',
  'changes-nt': 'N-Triples (gzip)',
} as const;

/** What the changes of a change file are, in the list's language (and VoID's labels). */
const PERIOD = {
  version: { de: 'Änderungen dieser Version', en: 'Changes of this version' },
  '1d': { de: 'Änderungen des letzten Tages', en: 'Changes of the last day' },
  '7d': { de: 'Änderungen der letzten 7 Tage', en: 'Changes of the last 7 days' },
  '31d': { de: 'Änderungen der letzten 31 Tage', en: 'Changes of the last 31 days' },
} as const;

export const labelOf = (f: DumpFile, lang: 'de' | 'en'): string =>
  f.period ? `${PERIOD[f.period][lang]}, ${LABEL[f.format]}` : LABEL[f.format];

function listing(sets: readonly DumpSet[], base: string) {
  return sets.map((set) => ({
    ...set,
    files: set.files.map((f) => ({ ...f, url: `${base}${DUMPS_PATH}${f.name}` })),
  }));
}

/** What the list says of the current version's dumps, as `/readyz` reports them (`dumps`). */
const STATE = {
  making: {
    de: 'Die Abzüge der aktuellen Version werden gerade erstellt.',
    en: 'The dumps of the current version are being made.',
  },
  failed: {
    de: 'Die Abzüge der aktuellen Version konnten nicht erstellt werden; frühestens eine Minute danach versucht der Dienst es erneut, sobald diese Liste abgerufen wird.',
    en: 'Making the dumps of the current version failed; the service tries again a minute later at the earliest, when this list is asked for.',
  },
  idle: {
    de: 'Die Abzüge der aktuellen Version sind noch nicht begonnen.',
    en: 'The dumps of the current version have not been started yet.',
  },
} as const;

/** What the list says of a set made of the demonstration data (the JSON marks it `demonstration`). */
const DEMONSTRATION = {
  de: {
    label: 'Demonstrationsdaten',
    note: 'Erzeugte Einrichtungen, nicht die Daten der ISIL-Agentur: Sobald die echten Daten bedient werden, werden diese Abzüge nicht mehr angeboten.',
  },
  en: {
    label: 'demonstration data',
    note: "Generated institutions, not the ISIL agency's data: once the real data is served, these dumps are no longer offered.",
  },
} as const;

function listPage(sets: readonly DumpSet[], state: DumpState, language: PageLanguage): string {
  const { lang } = language;
  const de = lang === 'de';
  const rows = sets
    .map(
      (
        set,
      ) => `<section><h2>${humanDate(new Date(set.created), lang)} · ${de ? 'Version' : 'version'} <code>${escapeHtml(set.version)}</code>${set.demonstration ? ` · ${DEMONSTRATION[lang].label}` : ''}</h2>
${set.demonstration ? `<p class="notice">${DEMONSTRATION[lang].note}</p>\n` : ''}<p>${humanNumber(set.institutions, lang)} ${de ? 'Einrichtungen' : 'institutions'}, ${humanNumber(set.triples, lang)} ${de ? 'Tripel' : 'triples'}</p>
<ul>${set.files.map((f) => `<li><a href="${escapeHtml(DUMPS_PATH + f.name)}" type="${escapeHtml(f.mediaType)}" download>${labelOf(f, lang)}</a>: ${humanNumber(f.bytes, lang)} Bytes, SHA-256 <code>${f.sha256}</code></li>`).join('')}</ul></section>`,
    )
    .join('\n');
  const said = state === 'ready' || state === 'off' ? '' : `<p>${STATE[state][lang]}</p>\n`;
  return layout({
    language,
    title: de ? 'Gesamtabzüge' : 'Full dumps',
    self: DUMPS_PATH,
    body: `<h1>${de ? 'Gesamtabzüge' : 'Full dumps'}</h1>
<p>${de ? 'Alle Einrichtungen jeder Datenversion, unter CC0 1.0.' : 'Every institution of each dataset version, under CC0 1.0.'}</p>
${said}${rows}`,
  });
}

/** `GET /dumps/`: the sets there are, and the state of the current version's, as HTML or JSON. */
function list(req: Request, res: Response, deps: RouteDeps): void {
  const { service, config } = deps;
  void service.dumps.ensure();
  const sets = service.dumps.list();
  const state = service.dumps.state;
  const output = negotiateAmong(req.headers.accept, OFFERS)?.name;
  if (!output) throw notAcceptable('The list of dumps is HTML or JSON (application/json).');
  const language = pageLanguage(queryOf(req), req.headers['accept-language']);
  const body =
    output === 'json'
      ? `${JSON.stringify({ status: state, dumps: listing(sets, publicOrigin(req)) })}\n`
      : listPage(sets, state, language);
  res.writeHead(200, {
    ...commonHeaders(res),
    ...(output === 'json'
      ? { 'Content-Type': 'application/json;charset=utf-8' }
      : { 'Content-Type': 'text/html;charset=utf-8', ...pageHeaders(config) }),
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'public, max-age=60',
    Vary: 'Accept, Accept-Language',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

export function dumps(deps: RouteDeps): RequestHandler {
  const { service, config } = deps;
  return async function dumps(req, res, next) {
    const name = pathBelow(req);
    if (config.dumpsDir === '') throw notFound('This service makes no dumps (DUMPS_DIR is empty).');
    // A folder it cannot use is the operator's to mend (the log says why): nothing to list.
    if (service.dumps.unusable) throw notFound('No dumps are available from this service now.');
    if (name === '') return list(req, res, deps);
    const found = service.dumps.file(name);
    if (!found) throw notFound(`No dump is named ${name.slice(0, 100)}.`);
    const etag = `"${found.file.sha256}"`;
    const stat = await fs.promises.stat(found.path).catch(() => undefined);
    if (!stat) throw notFound(`The dump ${found.file.name} is no longer kept.`);
    // The preconditions and If-Range as RFC 9110 §13.2.2 and §13.1.5 have them (strong
    // comparison): `send` compares weakly, and a failed precondition there became our 404.
    if (preconditionFailed(req.headers, etag, stat.mtime))
      throw status412(`The dump ${found.file.name} does not meet the request's precondition.`, {
        ETag: etag,
      });
    if (!rangeApplies(req.headers, etag, stat.mtime)) delete req.headers.range;
    const own = {
      'Content-Type': found.file.format === 'csv' ? found.file.mediaType : 'application/gzip',
      ETag: etag,
      'Cache-Control': 'public, max-age=86400, immutable',
      'Content-Disposition': `attachment; filename="${found.file.name}"`,
      Digest: `sha-256=${Buffer.from(found.file.sha256, 'hex').toString('base64')}`,
    };
    res.set({ ...commonHeaders(res), ...own });
    // The path is one the dumps made, not the request's: a DUMPS_DIR below a dot folder
    // (`~/.local/…`) is served ('deny' looks at every part of the absolute path).
    res.sendFile(
      found.path,
      { etag: false, lastModified: true, acceptRanges: true, dotfiles: 'allow' },
      (error: (Error & { status?: number; headers?: Record<string, string> }) | undefined) => {
        if (!error || res.headersSent) return;
        // The error is answered as every other, with a short body: none of the file's headers.
        for (const header of [
          ...Object.keys(own),
          'Last-Modified',
          'Accept-Ranges',
          'Content-Range',
        ])
          res.removeHeader(header);
        next(
          error.status === 416
            ? // A range past the end is 416 with the size (RFC 9110 §15.5.17).
              rangeNotSatisfiable(
                `The range asked for is not within the dump's ${found.file.bytes} bytes.`,
                {
                  'Content-Range': `bytes */${found.file.bytes}`,
                },
              )
            : error.status === 412
              ? status412(`The dump ${found.file.name} does not meet the request's precondition.`)
              : notFound(`The dump ${found.file.name} is no longer kept.`),
        );
      },
    );
  };
}
