// The page of a withdrawn ISIL whose successor cannot be followed (410, contract §5): in
// German or English, what the institution was, that its ISIL was withdrawn, the successor the data
// names and why it is not followed, when the record last changed, and where its past is read.
import type { Withdrawn } from '../store/dataset';
import { pastLinks, type Past } from './errorPage';
import { escapeHtml } from './escape';
import { layout } from './frame';
import { humanDate, keepLanguage, type PageLanguage } from './language';

export function withdrawnPage(withdrawn: Withdrawn, language: PageLanguage, past?: Past): string {
  const de = language.lang === 'de';
  const { isil, name, successor, modified } = withdrawn;
  const named = (other: string) =>
    `<a href="${escapeHtml(keepLanguage(`/isil/${other}`, language))}"><code>${escapeHtml(other)}</code></a>`;
  const why =
    successor.kind === 'unknown'
      ? de
        ? `Als Nachfolger ist ${escapeHtml(successor.named)} genannt; diese Einrichtung ist nicht in diesen Daten.`
        : `Its successor is named as ${escapeHtml(successor.named)}, which is not in this dataset.`
      : successor.kind === 'withdrawn'
        ? de
          ? `Ihr Nachfolger ${named(successor.named)} wurde ebenfalls zurückgezogen; kein aktiver Nachfolger folgt.`
          : `Its successor ${named(successor.named)} was withdrawn as well; no live successor follows.`
        : de
          ? 'Kein Nachfolger ist bekannt.'
          : 'No successor is known.';
  const body = `<h1>${de ? `ISIL ${escapeHtml(isil)} zurückgezogen` : `ISIL ${escapeHtml(isil)} withdrawn`}</h1>
${name ? `<p>${de ? 'Die Einrichtung' : 'The institution'} <strong lang="de">${escapeHtml(name)}</strong> ${de ? 'trug diese ISIL.' : 'had this ISIL.'}</p>` : ''}
<p>${why}</p>
${modified ? `<p>${de ? 'Datensatz zuletzt geändert am' : 'Record last changed on'} ${humanDate(modified, language.lang)}.</p>` : ''}
${past ? `${pastLinks(past, language)}\n` : ''}<p><a href="${escapeHtml(keepLanguage('/', language))}">${de ? 'Zur Startseite' : 'Home page'}</a> · <a href="${escapeHtml(keepLanguage('/search', language))}">${de ? 'Suche' : 'Search'}</a></p>`;
  return layout({
    language,
    title: de ? `ISIL ${isil} zurückgezogen` : `ISIL ${isil} withdrawn`,
    body,
    self: `/isil/${isil}`,
  });
}
