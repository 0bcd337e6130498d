// The dumps, `GET /dumps/` (the list: HTML or JSON, with each file's size and SHA-256) and
// `GET /dumps/<file>` (the file, with Last-Modified, a strong ETag, its SHA-256, and ranges, so a
// download that broke off goes on where it stopped). Made in the background (src/serving/dumps.ts).
import type { RequestHandler } from 'express';
import type { DumpSet } from '../serving/dumps';
import { escapeHtml } from '../serving/page';
import { negotiateAmong } from '../util/accept';
import { pathBelow, queryOf, type RouteDeps } from './deps';
import { HttpError, notFound } from './errors';
import { layout } from '../serving/html/layout';
import { humanDate, humanNumber, pageLanguage } from '../serving/html/language';
import { commonHeaders } from './middleware';

export const DUMPS_PATH = '/dumps/';

const OFFERS = [
  { name: 'html' as const, mediaType: 'text/html', aliases: [] },
  { name: 'json' as const, mediaType: 'application/json', aliases: [] },
];

const LABEL = { nt: 'N-Triples (gzip)', jsonl: 'JSON-LD lines (gzip)', csv: 'CSV' } as const;

function listing(sets: readonly DumpSet[], base: string) {
  return sets.map((set) => ({
    ...set,
    files: set.files.map((f) => ({ ...f, url: `${base}${DUMPS_PATH}${f.name}` })),
  }));
}

export function dumps(deps: RouteDeps): RequestHandler {
  const { service, config } = deps;
  return function dumps(req, res) {
    const name = pathBelow(req);
    if (config.dumpsDir === '') throw notFound('This service makes no dumps (DUMPS_DIR is empty).');
    // A folder it cannot use is the operator's to mend (the log says why): nothing to list.
    if (service.dumps.unusable) throw notFound('No dumps are available from this service now.');
    if (name === '') {
      void service.dumps.ensure();
      const sets = service.dumps.list();
      const output = negotiateAmong(req.headers.accept, OFFERS)?.name;
      if (!output)
        throw new HttpError(406, 'The list of dumps is HTML or JSON (application/json).');
      const params = queryOf(req);
      const language = pageLanguage(params, req.headers['accept-language']);
      const de = language.lang === 'de';
      let body: string;
      if (output === 'json') body = `${JSON.stringify({ dumps: listing(sets, config.baseIri) })}\n`;
      else {
        const rows = sets
          .map(
            (
              set,
            ) => `<section><h2>${humanDate(new Date(set.created), language.lang)} · ${de ? 'Version' : 'version'} <code>${escapeHtml(set.version)}</code></h2>
<p>${humanNumber(set.institutions, language.lang)} ${de ? 'Einrichtungen' : 'institutions'}, ${humanNumber(set.triples, language.lang)} ${de ? 'Tripel' : 'triples'}</p>
<ul>${set.files.map((f) => `<li><a href="${escapeHtml(DUMPS_PATH + f.name)}" type="${escapeHtml(f.mediaType)}" download>${LABEL[f.format]}</a>: ${humanNumber(f.bytes, language.lang)} Bytes, SHA-256 <code>${f.sha256}</code></li>`).join('')}</ul></section>`,
          )
          .join('\n');
        body = layout({
          language,
          title: de ? 'Gesamtabzüge' : 'Full dumps',
          self: DUMPS_PATH,
          body: `<h1>${de ? 'Gesamtabzüge' : 'Full dumps'}</h1>
<p>${de ? 'Alle Einrichtungen jeder Datenversion, unter CC0 1.0.' : 'Every institution of each dataset version, under CC0 1.0.'}</p>
${rows || `<p>${de ? 'Die Abzüge der aktuellen Version werden gerade erstellt.' : 'The dumps of the current version are being made.'}</p>`}`,
        });
      }
      const type = output === 'json' ? 'application/json;charset=utf-8' : 'text/html;charset=utf-8';
      res.writeHead(200, {
        ...commonHeaders(res),
        'Content-Type': type,
        'Content-Length': String(Buffer.byteLength(body)),
        'Cache-Control': 'public, max-age=60',
        Vary: 'Accept, Accept-Language',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    const found = service.dumps.file(name);
    if (!found) throw notFound(`No dump is named ${name.slice(0, 100)}.`);
    res.set({
      ...commonHeaders(res),
      'Content-Type': found.file.format === 'csv' ? found.file.mediaType : 'application/gzip',
      ETag: `"${found.file.sha256}"`,
      'Cache-Control': 'public, max-age=86400, immutable',
      'Content-Disposition': `attachment; filename="${found.file.name}"`,
      Digest: `sha-256=${Buffer.from(found.file.sha256, 'hex').toString('base64')}`,
    });
    res.sendFile(
      found.path,
      { etag: false, lastModified: true, acceptRanges: true, dotfiles: 'deny' },
      (error: (Error & { status?: number; headers?: Record<string, string> }) | undefined) => {
        if (!error || res.headersSent) return;
        // A range past the end is 416 with the size (RFC 9110 §15.5.17); a file gone, 404.
        if (error.headers) res.set(error.headers);
        res.status(error.status === 416 ? 416 : 404).end();
      },
    );
  };
}
