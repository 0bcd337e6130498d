// The page of a code list or of one code: the scheme's title, and each code with its German and
// English label (both, whatever the page's language: the labels are what a reader compares).
import { VOCAB_PATH, type CodeLists, type Scheme } from '../rdf/codeLists';
import { escapeHtml } from './escape';
import { keepLanguage, type PageLanguage } from './language';
import { layout } from './frame';

const WORDS = {
  de: { lists: 'Codelisten der ISIL-Agentur', code: 'Code', field: 'PICA+-Feld', in: 'in' },
  en: { lists: 'Code lists of the ISIL agency', code: 'Code', field: 'PICA+ field', in: 'in' },
} as const;

export function vocabPage(
  lists: CodeLists,
  scheme: Scheme,
  code: string | undefined,
  language: PageLanguage,
): string {
  const { lang } = language;
  const w = WORDS[lang];
  const href = (path: string) => escapeHtml(keepLanguage(`${VOCAB_PATH}/${path}.html`, language));
  const concept = code === undefined ? undefined : scheme.concepts.get(code);
  const rows = [...scheme.concepts.values()]
    .filter((c) => !concept || c === concept)
    .map(
      (c) =>
        `<tr><th scope="row"><a href="${href(`${scheme.name}/${c.code}`)}">${escapeHtml(c.code)}</a></th>` +
        `<td lang="de">${escapeHtml(c.de)}</td><td lang="en">${escapeHtml(c.en)}</td></tr>`,
    )
    .join('\n');
  const others = lists.schemes
    .map((s) => `<li><a href="${href(s.name)}">${escapeHtml(s.title[lang])}</a></li>`)
    .join('');
  const title = concept ? `${concept[lang]} (${concept.code})` : scheme.title[lang];
  const self = `${VOCAB_PATH}/${concept ? `${scheme.name}/${concept.code}` : scheme.name}.html`;
  const body = `<h1>${escapeHtml(title)}</h1>
${concept ? `<p>${w.in} <a href="${href(scheme.name)}">${escapeHtml(scheme.title[lang])}</a></p>` : ''}
<p><code>${escapeHtml(concept?.iri ?? scheme.iri)}</code> · ${w.field} 035E $${scheme.subfield}</p>
<table class="codes">
<thead><tr><th scope="col">${w.code}</th><th scope="col" lang="de">Deutsch</th><th scope="col" lang="en">English</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
<nav aria-label="${w.lists}"><h2>${w.lists}</h2><ul>${others}</ul></nav>`;
  return layout({ language, title, body, self });
}
