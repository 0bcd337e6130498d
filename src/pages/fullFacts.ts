// The section an institution's page shows in the `full` profile: what the agency's record holds
// beyond the `zdb` model (docs/data-model.md, "The full profile"), in German or English.
import type { Term } from 'n3';
import { PREFIXES } from '../rdf/namespaces';
import { TERMS } from '../rdf/profiles';
import { escapeHtml } from './escape';
import type { Graph } from './graph';

const { dc, dcterms, schema } = PREFIXES;

type Lang = 'de' | 'en';

/** Each property shown, with its label in both languages, in the order shown. */
const ROWS: readonly (readonly [string, string, string])[] = [
  [`${schema}alternateName`, 'Weitere Namen', 'Other names'],
  [`${dc}identifier`, 'Kennungen', 'Identifiers'],
  [`${schema}parentOrganization`, 'Übergeordnete Einrichtung', 'Parent institution'],
  [`${dcterms}replaces`, 'Vorgänger', 'Predecessors'],
  [`${dcterms}isReplacedBy`, 'Nachfolger', 'Successor'],
  [`${TERMS}formerSigel`, 'Frühere Sigel', 'Former Sigel'],
  [`${TERMS}formerIdentifier`, 'Frühere Kennungen', 'Former identifiers'],
  [`${schema}memberOf`, 'Verbünde und Leihverkehr', 'Networks and interlibrary loan'],
  [`${TERMS}interlibraryLoanCentreName`, 'Fernleihzentrale', 'Interlibrary-loan centre'],
  [`${TERMS}interlibraryLoanSystem`, 'Fernleihsystem', 'Interlibrary-loan system'],
  [`${TERMS}sruEndpoint`, 'SRU', 'SRU'],
  [`${TERMS}openUrlResolver`, 'OpenURL', 'OpenURL'],
  [`${TERMS}paiaEndpoint`, 'PAIA', 'PAIA'],
  [`${TERMS}daiaEndpoint`, 'DAIA', 'DAIA'],
  [`${TERMS}status`, 'Status', 'Status'],
  [`${TERMS}institutionType`, 'Typ (Code)', 'Type (code)'],
  [`${TERMS}funder`, 'Unterhaltsträger', 'Funder'],
  [`${TERMS}stockSize`, 'Bestandsgröße', 'Stock size'],
  [`${TERMS}sector`, 'Sparte', 'Sector'],
  [`${TERMS}libraryNumber`, 'Bibliotheksnummer', 'Library number'],
  [`${TERMS}cataloguingNetwork`, 'Katalogisierungsverbund', 'Cataloguing network'],
  [`${TERMS}holdingsLicence`, 'Lizenz der Bestandsdaten', 'Licence of the holdings data'],
  [`${TERMS}collectionSubject`, 'Sammelschwerpunkte', 'Collection subjects'],
  [`${TERMS}specialCollection`, 'Sondersammelgebiete', 'Special collections'],
];

const DAYS: Record<string, readonly [string, string]> = {
  Monday: ['Mo', 'Mon'],
  Tuesday: ['Di', 'Tue'],
  Wednesday: ['Mi', 'Wed'],
  Thursday: ['Do', 'Thu'],
  Friday: ['Fr', 'Fri'],
  Saturday: ['Sa', 'Sat'],
  Sunday: ['So', 'Sun'],
};

function shown(g: Graph, term: Term): string {
  if (term.termType === 'NamedNode') {
    const href = escapeHtml(term.value);
    return `<a href="${href}">${href}</a>`;
  }
  if (term.termType === 'BlankNode') {
    const name = g.firstTerm(term, `${schema}name`)?.value ?? '';
    const kind = g.firstTerm(term, `${TERMS}networkKind`)?.value;
    return `${escapeHtml(name)}${kind ? ` <small>(${escapeHtml(kind)})</small>` : ''}`;
  }
  return escapeHtml(term.value);
}

/** The opening hours as read from the record's text, or the note that they could not be. */
function hoursRead(g: Graph, r: string, lang: Lang): string {
  const text = g.firstTerm(r, `${TERMS}openingHoursText`)?.value;
  if (text === undefined) return '';
  if (g.firstTerm(r, `${TERMS}openingHoursUnparsed`))
    return lang === 'de'
      ? 'Öffnungszeiten: nicht maschinell lesbar'
      : 'Opening hours: could not be read';
  const rules = g
    .objects(r, `${schema}openingHoursSpecification`)
    .filter((spec) => g.firstTerm(spec, `${schema}opens`))
    .map((spec) => {
      // In the week's order: a graph's triples have none.
      const order = Object.keys(DAYS);
      const days = g
        .objects(spec, `${schema}dayOfWeek`)
        .map((d) => d.value.slice(schema.length))
        .sort((x, y) => order.indexOf(x) - order.indexOf(y))
        .map((d) => DAYS[d]?.[lang === 'de' ? 0 : 1] ?? d);
      const time = (p: string) => g.firstTerm(spec, `${schema}${p}`)?.value.slice(0, 5) ?? '';
      return `${escapeHtml(days.join(', '))} ${time('opens')}–${time('closes')}`;
    });
  return rules.join('; ');
}

/** The section's list, empty when the description holds none of these properties. */
export function fullFacts(g: Graph, r: string, lang: Lang): string {
  const rows: string[] = [];
  for (const [property, de, en] of ROWS) {
    const values = g.objects(r, property).map((o) => shown(g, o));
    if (values.length > 0)
      rows.push(`<dt>${lang === 'de' ? de : en}</dt><dd>${values.join(' · ')}</dd>`);
  }
  const hours = hoursRead(g, r, lang);
  if (hours)
    rows.push(`<dt>${lang === 'de' ? 'Öffnungszeiten' : 'Opening hours'}</dt><dd>${hours}</dd>`);
  return rows.length > 0 ? `<dl class="facts full">${rows.join('')}</dl>` : '';
}
