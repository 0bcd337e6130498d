// The frame of every page for people: the language's words, a skip link, the header with
// the lookup box and the language switch, the footer with the licence; one stylesheet of this host
// (/assets/site.css), readable on a phone and in print. Values from the data are escaped by the
// caller (escapeHtml); everything here is the service's own text.
import { CC0 } from '../rdf/namespaces';
import { escapeHtml } from './escape';
import { keepLanguage, type PageLanguage } from './language';
import { TEXT } from './words';

/** The pages' icon (/assets/favicon.svg, drawn for this service), linked from every page's head. */
export const ICON_LINK = '<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">';

export interface Layout {
  readonly language: PageLanguage;
  readonly title: string;
  /** The `lang` of the title when it is a value from the data (German source data: `de`). */
  readonly titleLang?: string;
  readonly body: string;
  /** More for the head (alternates, JSON-LD). */
  readonly head?: string;
  /** This page's path and query, without `lang`: the language switch links to it. */
  readonly self: string;
  /** The lookup box's value. */
  readonly query?: string;
  readonly scripts?: readonly string[];
}

export function layout(page: Layout): string {
  const { lang } = page.language;
  const t = TEXT[lang];
  const other = t.switchLang;
  const switchHref = `${page.self}${page.self.includes('?') ? '&' : '?'}lang=${other}`;
  const home = keepLanguage('/', page.language);
  const search = keepLanguage('/search', page.language);
  const scripts = (page.scripts ?? [])
    .map((src) => `<script src="${escapeHtml(src)}" defer></script>`)
    .join('\n');
  return `<!DOCTYPE html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title${page.titleLang ? ` lang="${page.titleLang}"` : ''}>${escapeHtml(page.title)}</title>
<link rel="stylesheet" href="/assets/site.css">
${ICON_LINK}
<link rel="license" href="${CC0}">
<link rel="alternate" type="text/turtle" title="VoID" href="/.well-known/void">
<link rel="search" href="/search">
${page.head ?? ''}
${scripts}
</head>
<body>
<a class="skip" href="#main">${t.skip}</a>
<header class="site">
<a class="brand" href="${escapeHtml(home)}">${t.site}</a>
<form class="lookup" role="search" action="/search" method="get">
<label for="lookup-q" class="visually-hidden">${t.searchLabel}</label>
<input id="lookup-q" name="q" type="search" role="combobox" autocomplete="off" placeholder="${t.searchLabel}" value="${escapeHtml(page.query ?? '')}" data-suggest="/search/suggest" aria-autocomplete="list" aria-controls="lookup-list" aria-expanded="false">
${page.language.explicit ? `<input type="hidden" name="lang" value="${lang}">` : ''}
<button type="submit">${t.searchButton}</button>
<ul id="lookup-list" class="suggestions" role="listbox" hidden></ul>
</form>
<nav aria-label="${lang === 'de' ? 'Sprache' : 'Language'}"><a href="${escapeHtml(search)}">${t.search}</a> · <a href="${escapeHtml(switchHref)}" hreflang="${other}" lang="${other}" rel="alternate">${t.switchTo}</a></nav>
</header>
<main id="main">
${page.body}
</main>
<footer class="site">
<p>${t.licence} <a rel="license" href="${CC0}">CC0 1.0</a> · <a href="/.well-known/void">${t.void}</a> · <a href="/dumps/">${t.dumps}</a> · <a href="/reconcile">${t.reconcile}</a></p>
</footer>
<script src="/assets/suggest.js" defer></script>
</body>
</html>
`;
}
