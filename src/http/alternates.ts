// `_profile=alt` (dx-prof-conneg §7.1, the alternate-profiles list): every representation of an
// institution's description, each format in each profile, as Turtle or as an HTML page, and
// the same list in `Link` headers with `type` and `profile`.
import type { Request, Response } from 'express';
import { FORMATS, type Format } from '../rdf/formats';
import { documentPath, institutionIri } from '../rdf/iris';
import type { Isil } from '../rdf/isil';
import { PROFILES, profileIri, type ProfileName } from '../rdf/profiles';
import { escapeHtml } from '../pages/escape';
import { CORS } from './middleware';
import { VARY_PROFILE } from './profile';
import { publicOrigin } from './publicOrigin';

/** The Alternate Representations Data Model of dx-prof-conneg. */
const ALTR = 'http://www.w3.org/ns/dx/connegp/altr#';
const DCTERMS = 'http://purl.org/dc/terms/';
const PROF = 'http://www.w3.org/ns/dx/prof/';

/** `url` asking for `profile` in its query string: unchanged for the default profile. */
export function withProfile(url: string, profile: ProfileName): string {
  if (profile === 'zdb') return url;
  return `${url}${url.includes('?') ? '&' : '?'}_profile=${profile}`;
}

interface Alternate {
  readonly url: string;
  readonly format: Format;
  readonly profile: ProfileName;
}

function alternatesOf(base: string, isil: Isil): Alternate[] {
  return PROFILES.flatMap((profile) =>
    FORMATS.map((format) => ({
      url: withProfile(`${base}${documentPath(isil, format.ext)}`, profile),
      format,
      profile,
    })),
  );
}

function turtle(baseIri: string, isil: Isil, alternates: readonly Alternate[]): string {
  const resource = institutionIri(baseIri, isil);
  const lines = [
    `@prefix altr: <${ALTR}> .`,
    `@prefix dct: <${DCTERMS}> .`,
    `@prefix prof: <${PROF}> .`,
    '',
    `<${resource}> altr:hasDefaultRepresentation <${alternates[0]!.url}> ;`,
    `  altr:hasRepresentation ${alternates.map((a) => `<${a.url}>`).join(' , ')} .`,
    ...alternates.map(
      (a) =>
        `<${a.url}> dct:conformsTo <${profileIri(baseIri, a.profile)}> ; dct:format "${a.format.mediaType}" .`,
    ),
    ...PROFILES.map((p) => `<${profileIri(baseIri, p)}> a prof:Profile ; prof:hasToken "${p}" .`),
  ];
  return `${lines.join('\n')}\n`;
}

function page(isil: Isil, baseIri: string, alternates: readonly Alternate[]): string {
  const rows = alternates
    .map(
      (a) =>
        `<tr><td><a href="${escapeHtml(a.url)}">${escapeHtml(a.url)}</a></td><td>${a.format.label}</td><td><a href="${escapeHtml(profileIri(baseIri, a.profile))}">${a.profile}</a></td></tr>`,
    )
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Representations of ${escapeHtml(isil)}</title></head>
<body><h1>Representations of ${escapeHtml(isil)}</h1>
<table><thead><tr><th>URL</th><th>Format</th><th>Profile</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>
`;
}

/** Answers the list of `isil`'s representations: HTML when the document asked for is, else Turtle. */
export function sendAlternates(
  req: Request,
  res: Response,
  isil: Isil,
  baseIri: string,
  asked: Format,
): void {
  const alternates = alternatesOf(publicOrigin(req), isil);
  const html = asked.name === 'html';
  const body = html ? page(isil, baseIri, alternates) : turtle(baseIri, isil, alternates);
  res.writeHead(200, {
    'Content-Type': html ? 'text/html;charset=utf-8' : 'text/turtle;charset=UTF-8',
    'Content-Length': String(Buffer.byteLength(body)),
    Link: alternates
      .map(
        (a) =>
          `<${a.url}>; rel="alternate"; type="${a.format.mediaType}"; profile="${profileIri(baseIri, a.profile)}"`,
      )
      .join(', '),
    Vary: `Accept, ${VARY_PROFILE}`,
    'X-Request-Id': res.locals.requestId as string,
    ...CORS,
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
