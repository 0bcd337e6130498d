// The home page, `GET /`: in German or English (`lang`, else Accept-Language), the
// lookup box with autocomplete, what the service is, its counts, an example institution that has
// an address, and the ways in for machines (VoID, dumps, sitemap, reconciliation).
import { FEED_PATH } from '../rdf/iris';
import { OAI_PATH } from './oai';
import type { RequestHandler } from 'express';
import { CONTEXT_PATH } from '../rdf/context';
import { RESOURCE_PATH } from '../rdf/iris';
import type { Dataset, Institution } from '../store/dataset';
import type { FlatRecord } from '../record/flatRecord';
import { escapeHtml } from '../pages/escape';
import { cacheControl, currentDocuments, DATASET_VERSION, queryOf, type RouteDeps } from './deps';
import { layout } from '../pages/frame';
import { humanNumber, keepLanguage, pageLanguage, type PageLanguage } from '../pages/language';
import { TEXT } from '../pages/words';
import { institutionPage } from '../pages/pageUrl';
import { pageHeaders } from './pageHeaders';
import { made, sendMade, type Made } from './respond';

/** The institution shown as the example, with its place as the search index has it. */
interface Example {
  readonly isil: string;
  readonly name: string;
  readonly place: string;
}

const placeOf = (entry: FlatRecord | undefined): string =>
  entry ? [entry.postcodes[0], entry.cities[0]].filter(Boolean).join(' ') : '';

/**
 * An institution to show as the example: DE-1a where the data has it, else one with an address and
 * coordinates once the search index can name one, else the first.
 */
async function example(deps: RouteDeps, dataset: Dataset): Promise<Example | undefined> {
  const search = deps.service.search;
  const ready = search.version !== undefined;
  const preferred = dataset.lookup('DE-1a' as Institution['isil']);
  const known = async (isil: string) => (ready ? (await search.entry(isil)).value : undefined);
  try {
    if (preferred.kind === 'found') {
      const { isil, name } = preferred.institution;
      return { isil, name: name ?? isil, place: placeOf(await known(isil)) };
    }
    const entry = ready ? (await search.example()).value : undefined;
    if (entry) return { isil: entry.isil, name: entry.name, place: placeOf(entry) };
  } catch {
    // the index's thread failed under the question: the page shows the first institution
  }
  const first = dataset.institutions().next().value;
  return first && { isil: first.isil, name: first.name ?? first.isil, place: '' };
}

function homePage(
  deps: RouteDeps,
  dataset: Dataset,
  language: PageLanguage,
  shown: Example | undefined,
): string {
  const { lang } = language;
  const t = TEXT[lang];
  const page = (isil: string) => keepLanguage(institutionPage(deps.config, isil), language);
  const place = shown?.place ?? '';
  const exampleHtml = shown
    ? `<p>${t.example}: <a href="${escapeHtml(page(shown.isil))}" lang="de">${escapeHtml(shown.name)}</a> (ISIL <code>${escapeHtml(shown.isil)}</code>${place ? `, <span lang="de">${escapeHtml(place)}</span>` : ''}) · <a href="${escapeHtml(RESOURCE_PATH + shown.isil)}">URI</a></p>`
    : '';
  const demonstration = deps.service.demonstration
    ? `<p class="notice" role="status">${t.demonstration}</p>\n`
    : '';
  const body = `<h1>${t.site}</h1>
${demonstration}<p class="lead">${t.tagline}.</p>
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
<li><a href="${FEED_PATH}" type="application/trig">${t.feed}</a></li>
<li><a href="/reconcile">${t.reconcile}</a></li>
<li><a href="${OAI_PATH}?verb=Identify" type="text/xml">${t.oai}</a></li>
<li>JSON-LD context: <a href="${CONTEXT_PATH}">${CONTEXT_PATH}</a></li>
</ul>`;
  return layout({ language, title: t.site, body, self: '/' });
}

export function home(deps: RouteDeps): RequestHandler {
  // The page made once for each dataset version, search index and language (with or without
  // `lang` in its links): not rendered and hashed again for every request.
  const pages = new Map<string, Made>();
  let of: Dataset | undefined;
  return async function home(req, res) {
    const { dataset } = currentDocuments(deps.service);
    void deps.service.search.ensure();
    const language = pageLanguage(queryOf(req), req.headers['accept-language']);
    if (of !== dataset) {
      pages.clear();
      of = dataset;
    }
    const key = `${deps.service.search.version ?? ''} ${language.lang} ${language.explicit}`;
    let page = pages.get(key);
    if (!page) {
      page = made(homePage(deps, dataset, language, await example(deps, dataset)));
      if (of === dataset) pages.set(key, page);
    }
    sendMade(req, res, page, {
      'Content-Type': 'text/html;charset=utf-8',
      ...pageHeaders(deps.config),
      'Content-Language': language.lang,
      'Cache-Control': cacheControl(deps.config),
      Vary: 'Accept-Language',
      [DATASET_VERSION]: dataset.version,
    });
  };
}
