// Negotiation by profile (W3C dx-prof-conneg): the HTTP realisation (`Accept-Profile`, answered
// with `Content-Profile` and a `Link` rel="profile") and the query-string one (`_profile`,
// `_mediatype`), with `_profile=alt` for the list of what a resource is served in.
import type { Request } from 'express';
import { FORMATS, type Format } from '../rdf/formats';
import { PROFILES, profileIri, type ProfileName } from '../rdf/profiles';
import { notAcceptable } from './errors';

/** What a request asks for: a profile, or the list of profiles and formats (`alt`). */
export type ProfileChoice = ProfileName | 'alt';

/** The header every answer a profile decides names in `Vary`. */
export const VARY_PROFILE = 'Accept-Profile';

/** One entry of `Accept-Profile` or `_profile`: an `<IRI>` or a token, with its q-value. */
const ENTRY = /^\s*(?:<([^>]*)>|([^\s;<>,]+))\s*((?:;[^;]*)*)$/;

/** The entries of a list, split at commas outside `<…>`. */
function entries(text: string): string[] {
  return text.match(/(?:<[^>]*>|[^,<])+/g) ?? [];
}

/** The profile an entry names, by token or by its IRI under `baseIri`; `undefined` if none. */
function named(baseIri: string, entry: string): { choice: ProfileChoice | undefined; q: number } {
  const match = ENTRY.exec(entry);
  if (!match) return { choice: undefined, q: 0 };
  const q = /;\s*q\s*=\s*([0-9.]+)/i.exec(match[3] ?? '')?.[1];
  const weight = q === undefined ? 1 : Number(q);
  const asked = match[1] ?? match[2]!;
  if (asked === 'alt' && match[2] !== undefined) return { choice: 'alt', q: weight };
  const choice = PROFILES.find((p) => asked === p || asked === profileIri(baseIri, p));
  return { choice, q: Number.isFinite(weight) ? weight : 0 };
}

/** The 406 for a request whose profiles are none this service serves, listing those it does. */
function unserved(baseIri: string) {
  return notAcceptable(
    'None of the profiles asked for is served. Served (Accept-Profile or _profile):',
    PROFILES.map((p) => ({ href: profileIri(baseIri, p), label: p })),
    // Cached a minute like every 406: a shared cache must not give it to a request without the
    // profile that made it.
    { Vary: `Accept, Accept-Language, ${VARY_PROFILE}` },
  );
}

/**
 * The profile a request asks for: `_profile` wins over `Accept-Profile`; in a list the highest q
 * wins, the client's order breaking ties; neither: the default (`zdb`). A list that names no
 * served profile with q > 0 is a 406 listing those served.
 */
export function negotiateProfile(req: Request, baseIri: string): ProfileChoice {
  // Node joins repeated headers it does not know with commas: one string.
  const header = req.headers['accept-profile'] as string | undefined;
  if (header === undefined && !req.url.includes('_profile=')) return 'zdb';
  const asked = queryParameter(req, '_profile') ?? header;
  if (asked === undefined || asked.trim() === '') return 'zdb';
  let best: { choice: ProfileChoice; q: number } | undefined;
  for (const entry of entries(asked)) {
    const { choice, q } = named(baseIri, entry);
    if (choice !== undefined && q > 0 && (best === undefined || q > best.q)) best = { choice, q };
  }
  if (!best) throw unserved(baseIri);
  return best.choice;
}

/** `_mediatype`: the format it names (a media type or an alias), to stand for `Accept`. */
export function mediaTypeParameter(req: Request): string | undefined {
  if (!req.url.includes('_mediatype=')) return undefined;
  const asked = queryParameter(req, '_mediatype')?.trim().toLowerCase();
  if (!asked) return undefined;
  const format = FORMATS.find((f) => f.mediaType === asked || f.aliases.includes(asked));
  // Unknown: an Accept no document matches, so that the 406 lists them all.
  return format ? format.mediaType : asked;
}

function queryParameter(req: Request, name: string): string | undefined {
  const at = req.url.indexOf('?');
  return at < 0 ? undefined : (new URLSearchParams(req.url.slice(at + 1)).get(name) ?? undefined);
}

/** The headers that say which profile a document conforms to (dx-prof-conneg §7.2). */
export function profileHeaders(baseIri: string, profile: ProfileName): Record<string, string> {
  return { 'Content-Profile': `<${profileIri(baseIri, profile)}>` };
}

/** The `Link` entries of a document in `profile`: its profile, and the same format in the others. */
export function profileLinks(
  baseIri: string,
  profile: ProfileName,
  documentUrl: string,
  format: Format,
): string[] {
  return [
    `<${profileIri(baseIri, profile)}>; rel="profile"`,
    ...PROFILES.filter((p) => p !== profile).map(
      (p) =>
        `<${documentUrl}${p === 'zdb' ? '' : `?_profile=${p}`}>; rel="alternate"; type="${format.mediaType}"; profile="${profileIri(baseIri, p)}"`,
    ),
  ];
}
