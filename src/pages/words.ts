// The pages' own words, in German and English. Values from the data are never here.
import type { Language } from './language';

const de = {
  site: 'ISIL Linked Data',
  tagline: 'Adressdaten von Bibliotheken, Archiven und Museen',
  skip: 'Zum Inhalt springen',
  home: 'Start',
  search: 'Suche',
  searchLabel: 'ISIL, Sigel oder Name',
  searchButton: 'Suchen',
  switchTo: 'English',
  switchLang: 'en',
  results: (n: string) => `${n} Treffer`,
  noResults: 'Keine Einrichtung gefunden.',
  filters: 'Eingrenzen',
  city: 'Ort',
  country: 'ISIL-Präfix / Land',
  type: 'Typ',
  types: {
    library: 'Bibliothek',
    archive: 'Archiv',
    museum: 'Museum',
    other: 'Sonstige',
    unknown: 'Nicht angegeben',
  },
  removeFilter: 'Filter entfernen',
  asQuery: 'Als Suchanfrage',
  queryError: (what: string) => `Die Suchanfrage ist fehlerhaft: ${what}`,
  previous: 'Zurück',
  next: 'Weiter',
  page: (n: number, of: number) => `Seite ${n} von ${of}`,
  distance: (km: string) => `${km} km entfernt`,
  formats: 'Formate',
  download: 'Als CSV herunterladen',
  licence: 'Daten unter',
  about:
    'Dieser Dienst veröffentlicht die Adressdaten der ISIL-Agentur als Linked Data: jede Einrichtung hat einen URI, der je nach Anfrage HTML, RDF/XML, Turtle, JSON-LD oder N-Triples liefert.',
  counts: (institutions: string, withdrawn: string) =>
    `${institutions} Einrichtungen, ${withdrawn} zurückgezogene ISIL.`,
  demonstration:
    'Demonstrationsdaten: Die Einrichtungen hier sind erzeugt, nicht die der ISIL-Agentur. Die echten Daten holt <code>npm run fetch-data</code>; danach bedient ein Neuladen sie.',
  example: 'Zum Beispiel',
  forMachines: 'Für Maschinen',
  dumps: 'Gesamtabzüge',
  void: 'VoID-Beschreibung',
  reconcile: 'Abgleichsdienst (Reconciliation API)',
  sitemap: 'Sitemap',
  feed: 'Änderungen als Linked Data Event Stream',
  oai: 'Ernten über OAI-PMH',
} as const;

type Text = {
  readonly [K in keyof typeof de]: (typeof de)[K] extends (...a: infer A) => string
    ? (...a: A) => string
    : (typeof de)[K] extends object
      ? { readonly [T in keyof (typeof de)[K]]: string }
      : string;
};

const en: Text = {
  site: 'ISIL Linked Data',
  tagline: 'Address data of libraries, archives and museums',
  skip: 'Skip to content',
  home: 'Home',
  search: 'Search',
  searchLabel: 'ISIL, Sigel or name',
  searchButton: 'Search',
  switchTo: 'Deutsch',
  switchLang: 'de',
  results: (n) => `${n} results`,
  noResults: 'No institution found.',
  filters: 'Narrow down',
  city: 'City',
  country: 'ISIL prefix / country',
  type: 'Type',
  types: {
    library: 'Library',
    archive: 'Archive',
    museum: 'Museum',
    other: 'Other',
    unknown: 'Not given',
  },
  removeFilter: 'Remove filter',
  asQuery: 'As a query',
  queryError: (what) => `The query cannot be read: ${what}`,
  previous: 'Previous',
  next: 'Next',
  page: (n, of) => `Page ${n} of ${of}`,
  distance: (km) => `${km} km away`,
  formats: 'Formats',
  download: 'Download as CSV',
  licence: 'Data under',
  about:
    "This service publishes the ISIL agency's address data as Linked Data: every institution has a URI that answers with HTML, RDF/XML, Turtle, JSON-LD or N-Triples, as the client asks.",
  counts: (institutions, withdrawn) =>
    `${institutions} institutions, ${withdrawn} withdrawn ISILs.`,
  demonstration:
    "Demonstration data: the institutions here are generated, not the ISIL agency's. <code>npm run fetch-data</code> fetches the real data; a reload then serves it.",
  example: 'For example',
  forMachines: 'For machines',
  dumps: 'Full dumps',
  void: 'VoID description',
  reconcile: 'Reconciliation service',
  sitemap: 'Sitemap',
  feed: 'Changes as a Linked Data Event Stream',
  oai: 'Harvesting by OAI-PMH',
};

export const TEXT: Readonly<Record<Language, Text>> = { de, en };
