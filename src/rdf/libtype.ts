// The agency's institution types as lobid's vocabulary names them (http://purl.org/lobid/libtype,
// the terms the converter publishes as dcterms:type from 035E $f), with their labels:
// those of the vocabulary's SKOS file (hbz/lobid-vocabs, libtype.ttl, CC0; its English labels of
// n86 and n87 are written `skos:PrefLabel` there), and `n85`, which the agency's records use and
// the file lacks, as lobid's own records label it
// (the third-party data/real/lobid-organisations_jsonld-bulk_same-8-records.jsonl). A type not known here is
// shown by its term.

export const LIBTYPE = 'http://purl.org/lobid/libtype#';

export interface LibType {
  readonly de: string;
  readonly en: string;
  /** The kind the search's facet and the page's schema.org type take it for. */
  readonly kind: 'library' | 'archive' | 'museum' | 'other';
}

/** [code, German label, English label, kind]. */
const TYPES: readonly [string, string, string, LibType['kind']][] = [
  ['11', 'Nationalbibliothek', 'National Library', 'library'],
  ['15', 'Zentrale Fachbibliothek', 'Central Subject Library', 'library'],
  ['21', 'Regionalbibliothek', 'Regional Library', 'library'],
  ['33', 'Öffentliche Bibliothek', 'Public Library', 'library'],
  ['34', 'Mediathek', 'Media Library', 'library'],
  [
    '36',
    'Öffentliche Bibliothek für besondere Benutzergruppen',
    'Public Library for Special User Groups',
    'library',
  ],
  ['39', 'Fahrbibliothek', 'Mobile Library', 'library'],
  ['51', 'Archiv (staatlich)', 'Archive (State)', 'archive'],
  ['52', 'Archiv (kommunal)', 'Archive (municipal)', 'archive'],
  ['53', 'Archiv (kirchlich)', 'Archive (Church)', 'archive'],
  ['54', 'Archiv (Herrschafts-/Familienarchiv)', 'Archive ((Noble) Families)', 'archive'],
  ['55', 'Archiv (Wirtschaft)', 'Archive (Enterprise)', 'archive'],
  [
    '56',
    'Archiv (Parlament, Partei, Stiftung oder Verband)',
    'Archive (Parliament, Party, Foundation or Federation)',
    'archive',
  ],
  ['57', 'Archiv (Medienarchiv)', 'Archive (Media)', 'archive'],
  ['58', 'Archiv (Hochschule, Wissenschaft)', 'Archive (University, Academia)', 'archive'],
  ['59', 'Archiv (Sonstiges)', 'Archive (Miscellaneous)', 'archive'],
  ['60', 'Zentrale Universitätsbibliothek', 'Central University Library', 'library'],
  [
    '65',
    'Abteilungsbibliothek, Fachbereichsbibliothek, Institutsbibliothek (Universität)',
    "University's Departement Library, Faculty Library, Institute Library",
    'library',
  ],
  [
    '70',
    'Zentrale Hochschulbibliothek, nicht Universität',
    'Central Academic Library, not University',
    'library',
  ],
  [
    '73',
    'Abteilungsbibliothek, Fachbereichsbibliothek (Hochschule, nicht Universität)',
    "College's Departement Library, Faculty Library (not University)",
    'library',
  ],
  ['81', 'Wissenschaftliche Spezialbibliothek', 'Academic Special Library', 'library'],
  [
    '82',
    'Einrichtung der Denkmalpflege',
    'Institution for Preservation of Historical Monuments',
    'other',
  ],
  ['84', 'Forschungseinrichtung', 'Research Institution', 'other'],
  ['85', 'Sammlung', 'Collection', 'other'],
  ['86', 'Museum (nicht Museumsbibliothek)', 'Museum (not Museum Library)', 'museum'],
  ['87', 'Verlag', 'Publisher', 'other'],
  ['88', 'Sonstige Einrichtung', 'Other Organization', 'other'],
  ['89', 'Paket elektronischer Ressourcen', 'Collection of Electronic Resources', 'other'],
  ['91', 'Fachstelle für Bibliotheken', 'State Public Library Office', 'other'],
  ['94', 'Regionaler Zentralkatalog / Leihverkehrszentrale', 'Regional Catalogue', 'other'],
  ['95', 'Virtuelle Bibliothek / Portal', 'Virtual Library / Portal', 'other'],
  ['96', 'Verbundsystem/ -kataloge', 'Union Catalogue', 'other'],
  ['98', 'Serviceeinrichtung', 'Service Institution', 'other'],
];

export const LIBTYPES: ReadonlyMap<string, LibType> = new Map(
  TYPES.map(([code, de, en, kind]) => [`${LIBTYPE}n${code}`, { de, en, kind }]),
);
