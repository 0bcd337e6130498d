// The agency's institution types as lobid's vocabulary names them (http://purl.org/lobid/libtype,
// the terms the converter publishes as dcterms:type from 035E $f; issue 18). The labels are those
// lobid gives in its own records (fixtures/real/lobid-organisations_jsonld-bulk_same-8-records.jsonl):
// a type whose label is not known here is shown by its term.

export const LIBTYPE = 'http://purl.org/lobid/libtype#';

export interface LibType {
  readonly de: string;
  readonly en: string;
  /** The kind the search's facet and the page's schema.org type take it for. */
  readonly kind: 'library' | 'archive' | 'museum' | 'other';
}

export const LIBTYPES: ReadonlyMap<string, LibType> = new Map([
  [`${LIBTYPE}n11`, { de: 'Nationalbibliothek', en: 'National Library', kind: 'library' }],
  [
    `${LIBTYPE}n15`,
    { de: 'Zentrale Fachbibliothek', en: 'Central Subject Library', kind: 'library' },
  ],
  [
    `${LIBTYPE}n60`,
    { de: 'Zentrale Universitätsbibliothek', en: 'Central University Library', kind: 'library' },
  ],
  [
    `${LIBTYPE}n81`,
    { de: 'Wissenschaftliche Spezialbibliothek', en: 'Academic Special Library', kind: 'library' },
  ],
  [`${LIBTYPE}n85`, { de: 'Sammlung', en: 'Collection', kind: 'other' }],
  [
    `${LIBTYPE}n89`,
    {
      de: 'Paket elektronischer Ressourcen',
      en: 'Collection of Electronic Resources',
      kind: 'other',
    },
  ],
]);
