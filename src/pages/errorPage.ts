// The page of an error answered as HTML (404, 406, a deleted ISIL's 410, …): a page of the site,
// in the reader's language, with the header, the lookup box and the way home, what went wrong, the
// documents that do exist, and where an ISIL's past is still read (its TimeMap, its last memento).
import { escapeHtml } from './escape';
import { layout } from './frame';
import { humanDate, keepLanguage, type Language, type PageLanguage } from './language';

/** Where an ISIL's past is read (paths of the Memento routes). */
export interface Past {
  /** The TimeMap of its document. */
  readonly timemap: string;
  /** The memento of that document the last version that had the ISIL served, and its time. */
  readonly latest: string;
  readonly latestTime: Date;
}

export interface ErrorPage {
  readonly status: number;
  /** The service's own words for it (English), shown when the page has none in its language. */
  readonly message: string;
  readonly links: readonly { href: string; label: string; type?: string }[];
  /** What the page can say in either language: an ISIL never known, or no longer served. */
  readonly about?: { readonly kind: 'unknown' | 'deleted'; readonly isil: string };
  readonly past?: Past;
}

type Words = Readonly<Record<Language, string>>;

/** Each status's name, in the pages' languages (RFC 9110 §15 for the English). */
const TITLES: Readonly<Record<number, Words>> = {
  400: { de: 'Fehlerhafte Anfrage', en: 'Bad Request' },
  401: { de: 'Anmeldung nötig', en: 'Unauthorized' },
  403: { de: 'Nicht erlaubt', en: 'Forbidden' },
  404: { de: 'Nicht gefunden', en: 'Not Found' },
  405: { de: 'Methode nicht erlaubt', en: 'Method Not Allowed' },
  406: { de: 'Kein passendes Format', en: 'Not Acceptable' },
  410: { de: 'Nicht mehr vorhanden', en: 'Gone' },
  412: { de: 'Vorbedingung nicht erfüllt', en: 'Precondition Failed' },
  413: { de: 'Anfrage zu groß', en: 'Content Too Large' },
  415: { de: 'Nicht unterstützter Inhaltstyp', en: 'Unsupported Media Type' },
  416: { de: 'Bereich nicht erfüllbar', en: 'Range Not Satisfiable' },
  429: { de: 'Zu viele Anfragen', en: 'Too Many Requests' },
  500: { de: 'Interner Fehler', en: 'Internal Server Error' },
  503: { de: 'Dienst nicht verfügbar', en: 'Service Unavailable' },
  505: { de: 'HTTP-Version nicht unterstützt', en: 'HTTP Version Not Supported' },
};

/** A status's name in `lang`; a status without one of its own is named by its class. */
export function statusTitle(status: number, lang: Language): string {
  const own = TITLES[status];
  if (own) return own[lang];
  if (status >= 500) return lang === 'de' ? 'Fehler des Dienstes' : 'Server Error';
  return lang === 'de' ? 'Fehlerhafte Anfrage' : 'Client Error';
}

/** What the page says went wrong, in its language where it has the words. */
function detail(page: ErrorPage, lang: Language): string {
  const isil = page.about && `<code>${escapeHtml(page.about.isil)}</code>`;
  if (page.about?.kind === 'unknown')
    return lang === 'de'
      ? `Keine Einrichtung hat die ISIL ${isil}.`
      : `No institution has the ISIL ${isil}.`;
  if (page.about?.kind === 'deleted')
    return lang === 'de'
      ? `Die ISIL ${isil} ist nicht mehr in diesen Daten.`
      : `The ISIL ${isil} is no longer in this dataset.`;
  // The service's words are English: marked so, for a screen reader on a German page.
  return lang === 'de'
    ? `<span lang="en">${escapeHtml(page.message)}</span>`
    : escapeHtml(page.message);
}

/** The links to an ISIL's past, for a 410's page (the withdrawn page links them too). */
export function pastLinks(past: Past, language: PageLanguage): string {
  const { lang } = language;
  const date = humanDate(past.latestTime, lang);
  return lang === 'de'
    ? `<p>Frühere Versionen sind weiter lesbar: <a href="${escapeHtml(past.latest)}">die letzte, vom ${date}</a>, und <a href="${escapeHtml(past.timemap)}" type="application/link-format">die Liste aller Versionen (TimeMap)</a>.</p>`
    : `<p>Its past versions are still readable: <a href="${escapeHtml(past.latest)}">the last, of ${date}</a>, and <a href="${escapeHtml(past.timemap)}" type="application/link-format">the list of every version (TimeMap)</a>.</p>`;
}

/** `self`: the request's path and query without `lang`, which the language switch links to. */
export function errorPage(page: ErrorPage, language: PageLanguage, self: string): string {
  const { lang } = language;
  const de = lang === 'de';
  const title = statusTitle(page.status, lang);
  const links = page.links.length
    ? `<ul>${page.links.map((l) => `<li><a href="${escapeHtml(l.href)}"${l.type ? ` type="${escapeHtml(l.type)}"` : ''}>${escapeHtml(l.label)}</a></li>`).join('')}</ul>\n`
    : '';
  const body = `<h1>${title} <small>(${page.status})</small></h1>
<p>${detail(page, lang)}</p>
${links}${page.past ? `${pastLinks(page.past, language)}\n` : ''}<p><a href="${escapeHtml(keepLanguage('/', language))}">${de ? 'Zur Startseite' : 'Home page'}</a> · <a href="${escapeHtml(keepLanguage('/search', language))}">${de ? 'Suche' : 'Search'}</a></p>`;
  return layout({ language, title: `${title} (${page.status})`, body, self });
}
