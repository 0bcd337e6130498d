// The home page, `GET /` (issue 18): in German or English (`lang`, else Accept-Language), the
// lookup box with autocomplete, what the service is, its counts, an example institution that has
// an address, and the ways in for machines (VoID, dumps, sitemap, reconciliation).
import type { RequestHandler } from 'express';
import { CONTEXT_PATH } from '../rdf/context';
import { DIRECTORY_PATH, RESOURCE_PATH } from '../rdf/iris';
import type { Dataset, Institution } from '../store/dataset';
import type { SearchIndex } from '../search/searchIndex';
import { escapeHtml } from '../serving/page';
import { cacheControl, currentDocuments, DATASET_VERSION, queryOf, type RouteDeps } from './deps';
import { layout } from '../serving/html/layout';
import {
  humanNumber,
  keepLanguage,
  pageLanguage,
  type PageLanguage,
} from '../serving/html/language';
import { TEXT } from '../serving/html/text';
import { made, sendMade, type Made } from './respond';

/** An institution to show as the example: one with an address and coordinates when there is one. */
function example(dataset: Dataset, index: SearchIndex | undefined): Institution | undefined {
  const preferred = dataset.lookup('DE-1a' as Institution['isil']);
  if (preferred.kind === 'found') return preferred.institution;
  for (const institution of dataset.institutions()) {
    const entry = index?.entry(institution.isil);
    if (entry && entry.cities.length > 0 && entry.lat !== undefined) return institution;
  }
  return dataset.institutions().next().value;
}

function homePage(deps: RouteDeps, dataset: Dataset, language: PageLanguage): string {
  const { lang } = language;
  const t = TEXT[lang];
  const shown = example(dataset, deps.service.search.current);
  const page = (isil: string) =>
    keepLanguage(
      deps.config.isilDirectoryUrl === '' ? `${DIRECTORY_PATH}${isil}` : `${RESOURCE_PATH}${isil}`,
      language,
    );
  const entry = shown ? deps.service.search.current?.entry(shown.isil) : undefined;
  const place = entry ? [entry.postcodes[0], entry.cities[0]].filter(Boolean).join(' ') : '';
  const exampleHtml = shown
    ? `<p>${t.example}: <a href="${escapeHtml(page(shown.isil))}" lang="de">${escapeHtml(shown.name ?? shown.isil)}</a> (ISIL <code>${escapeHtml(shown.isil)}</code>${place ? `, <span lang="de">${escapeHtml(place)}</span>` : ''}) · <a href="${escapeHtml(RESOURCE_PATH + shown.isil)}">URI</a></p>`
    : '';
  const body = `<h1>${t.site}</h1>
<p class="lead">${t.tagline}.</p>
<form class="big-lookup" role="search" action="/search" method="get">
<label for="home-q">${t.searchLabel}</label>
<div class="lookup"><input id="home-q" name="q" type="search" role="combobox" autocomplete="off" data-suggest="/search/suggest" aria-autocomplete="list" aria-controls="home-list" aria-expanded="false">
${language.explicit ? `<input type="hidden" name="lang" value="${lang}">` : ''}<button type="submit">${t.searchButton}</button>
<ul id="home-list" class="suggestions" role="listbox" hidden></ul></div>
</form>
<p>${t.about}</p>
<p>${t.counts(humanNumber(dataset.institutionCount, lang), humanNumber(dataset.withdrawnCount, lang))}</p>
${exampleHtml}
<h2>${t.forMachines}</h2>
<ul>
<li><a href="/.well-known/void" type="text/turtle">${t.void}</a></li>
<li><a href="/dumps/">${t.dumps}</a></li>
<li><a href="/sitemap.xml">${t.sitemap}</a></li>
<li><a href="/reconcile">${t.reconcile}</a></li>
<li>JSON-LD context: <a href="${CONTEXT_PATH}">${CONTEXT_PATH}</a></li>
</ul>`;
  return layout({ language, title: t.site, body, self: '/' });
}

export function home(deps: RouteDeps): RequestHandler {
  // The page made once for each dataset version, search index and language (with or without
  // `lang` in its links): not rendered and hashed again for every request.
  const pages = new Map<string, Made>();
  let of: Dataset | undefined;
  return function home(req, res) {
    const { dataset } = currentDocuments(deps.service);
    void deps.service.search.ensure();
    const language = pageLanguage(queryOf(req), req.headers['accept-language']);
    if (of !== dataset) {
      pages.clear();
      of = dataset;
    }
    const key = `${deps.service.search.current?.version ?? ''} ${language.lang} ${language.explicit}`;
    let page = pages.get(key);
    if (!page) pages.set(key, (page = made(homePage(deps, dataset, language))));
    sendMade(req, res, page, {
      'Content-Type': 'text/html;charset=utf-8',
      'Content-Language': language.lang,
      'Cache-Control': cacheControl(deps.config),
      Vary: 'Accept-Language',
      [DATASET_VERSION]: dataset.version,
    });
  };
}
