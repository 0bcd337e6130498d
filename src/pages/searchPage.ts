// The search page for people: the results with their place and kind, facets as links
// that narrow the search (and a link that widens it again), the chosen facets as the fielded query
// that says the same (so a person learns the syntax), paging, and the same search as CSV. A query
// that cannot be read is shown with its error, the query kept in the box.
import type { SearchAnswer, SearchRequest } from '../search/searchIndex';
import { escapeHtml } from './escape';
import type { Config } from '../config/config';
import { institutionPage } from './pageUrl';
import { layout } from './frame';
import { humanNumber, keepLanguage, type PageLanguage } from './language';
import { TEXT } from './words';
import { fieldedFacet, usesSyntax } from '../search/query';

const FACETS = ['type', 'country', 'city'] as const;

/** The chosen facets written into the query: `q city:Bonn`, or undefined when none is chosen. */
export function fieldedForm(q: string, params: URLSearchParams): string | undefined {
  const chosen = FACETS.flatMap((name) => {
    const value = params.get(name);
    return value ? [fieldedFacet(name, value)] : [];
  });
  if (chosen.length === 0) return undefined;
  const typed = q.trim();
  const head = typed && usesSyntax(typed) ? `(${typed})` : typed;
  return [head, ...chosen].filter(Boolean).join(' ');
}

const NO_FACETS = { city: undefined, country: undefined, type: undefined };

/** The line that shows the chosen facets as a fielded query, linked to that search. */
const asQueryLine = (label: string, fielded: string, href: string) =>
  `<p class="fielded">${label}: <a href="${escapeHtml(href)}"><code>${escapeHtml(fielded)}</code></a></p>`;

/** The hits, each with its identifiers, place, kind and distance. */
function hitList(config: Config, answer: SearchAnswer, language: PageLanguage): string {
  const t = TEXT[language.lang];
  return answer.hits
    .map(({ entry, distanceKm }) => {
      const meta = [
        `ISIL ${escapeHtml(entry.isil)}`,
        ...(entry.sigel ? [`Sigel ${escapeHtml(entry.sigel)}`] : []),
        ...(entry.cities.length
          ? [
              `<span lang="de">${escapeHtml([entry.postcodes[0], entry.cities[0]].filter(Boolean).join(' '))}</span>`,
            ]
          : []),
        ...(entry.type ? [t.types[entry.type]] : []),
        ...(distanceKm !== undefined ? [t.distance(distanceKm.toFixed(1))] : []),
      ];
      return `<li><a href="${escapeHtml(keepLanguage(institutionPage(config, entry.isil), language))}" lang="de">${escapeHtml(entry.name)}</a><div class="meta">${meta.join(' · ')}</div></li>`;
    })
    .join('\n');
}

export const SEARCH_PATH = '/search';

/** A search as its page asks it: the request, and which page of hits of what size. */
export type ParsedSearch = SearchRequest & { page: number; size: number };

export function searchPage(
  config: Config,
  params: URLSearchParams,
  request: ParsedSearch,
  answer: SearchAnswer,
  language: PageLanguage,
  error?: string,
): string {
  const { lang } = language;
  const t = TEXT[lang];
  /** This search with `changes` applied (a filter set or removed, another page). */
  const withParams = (changes: Record<string, string | undefined>, keepLang = true): string => {
    const next = new URLSearchParams();
    for (const [k, v] of params)
      if (k !== 'lang' && !(k in changes) && k !== 'page') next.append(k, v);
    for (const [k, v] of Object.entries(changes)) if (v !== undefined) next.set(k, v);
    const path = `${SEARCH_PATH}${next.size ? `?${next}` : ''}`;
    return keepLang ? keepLanguage(path, language) : path;
  };
  const facet = (
    title: string,
    name: 'city' | 'country' | 'type',
    label: (v: string) => string,
  ) => {
    const chosen = params.get(name);
    const items = chosen
      ? [
          `<li><strong>${escapeHtml(label(chosen))}</strong> (<a href="${escapeHtml(withParams({ [name]: undefined }))}">${t.removeFilter}</a>)</li>`,
        ]
      : answer.facets[name].map(
          (f) =>
            `<li><a href="${escapeHtml(withParams({ [name]: f.value }))}">${escapeHtml(label(f.value))}</a> (${humanNumber(f.count, lang)})</li>`,
        );
    return items.length ? `<section><h2>${title}</h2><ul>${items.join('')}</ul></section>` : '';
  };
  const hits = hitList(config, answer, language);
  const pages = Math.max(1, Math.ceil(answer.total / request.size));
  const pager =
    pages > 1
      ? `<nav class="pager" aria-label="${t.page(request.page, pages)}">${request.page > 1 ? `<a rel="prev" href="${escapeHtml(withParams({ page: String(request.page - 1) }))}">${t.previous}</a>` : ''}<span>${t.page(request.page, pages)}</span>${request.page < pages ? `<a rel="next" href="${escapeHtml(withParams({ page: String(request.page + 1) }))}">${t.next}</a>` : ''}</nav>`
      : '';
  // Every match, not the page shown: no `page` (withParams drops it) and no `size`.
  const csv = withParams({ format: 'csv', size: undefined }, false);
  const fielded = fieldedForm(request.q, params);
  const asQuery = fielded
    ? asQueryLine(t.asQuery, fielded, withParams({ q: fielded, ...NO_FACETS }))
    : '';
  const status = error
    ? `<p class="error" role="alert">${escapeHtml(t.queryError(error))}</p>`
    : `<p>${t.results(humanNumber(answer.total, lang))} · <a href="${escapeHtml(csv)}" type="text/csv">${t.download}</a></p>`;
  const body = `<h1>${t.search}${request.q ? `: <q lang="de">${escapeHtml(request.q)}</q>` : ''}</h1>
${status}
${asQuery}
<div class="layout">
<aside class="facets" aria-label="${t.filters}">
${facet(t.type, 'type', (v) => t.types[v as keyof typeof t.types] ?? v)}
${facet(t.country, 'country', (v) => v)}
${facet(t.city, 'city', (v) => v)}
</aside>
<div>
${answer.total === 0 ? `<p>${t.noResults}</p>` : `<ol class="hits" start="${request.offset! + 1}">\n${hits}\n</ol>`}
${pager}
</div>
</div>`;
  const self = withParams({ page: request.page > 1 ? String(request.page) : undefined }, false);
  return layout({
    language,
    title: `${t.search}${request.q ? `: ${request.q}` : ''} – ${t.site}`,
    body,
    self,
    query: request.q,
    head: `<link rel="alternate" type="application/json" href="${escapeHtml(withParams({ format: 'json' }, false))}">\n<link rel="alternate" type="text/csv" href="${escapeHtml(csv)}">\n<meta name="robots" content="noindex, follow">`,
  });
}
