// The institution page's own words, in German and English, and the names it gives to
// the kinds of institution and to the sites an owl:sameAs leads to.
import { PREFIXES } from '../rdf/namespaces';
import type { Language } from './language';

const { schema } = PREFIXES;

export const DE = {
  otherNames: 'Weitere Namen',
  identifiers: 'Kennungen',
  uri: 'URI',
  formerly: 'Früher',
  type: 'Typ',
  addresses: 'Adressen',
  visiting: 'Besuchsadresse',
  postal: 'Postanschrift',
  address: 'Adresse',
  location: 'Lage',
  map: 'Karte',
  coordinates: 'Koordinaten',
  fromWikidata: 'Position aus Wikidata',
  hours: 'Öffnungszeiten',
  contact: 'Kontakt',
  phone: 'Telefon',
  fax: 'Fax',
  main: 'Hauptanschluss',
  email: 'E-Mail',
  web: 'Im Netz',
  homepage: 'Website',
  catalogue: 'Katalog',
  about: 'Beschreibung',
  related: 'Verbundene Einrichtungen',
  linksOut: 'Anderswo',
  data: 'Daten',
  modified: 'Datensatz zuletzt geändert am',
  versions: 'Versionen',
  allVersions: (count: string) => `Alle ${count} Versionen (TimeMap)`,
  asOf: 'Diese Seite zeigt den Datensatz mit Stand vom',
  current: 'Zum aktuellen Datensatz',
  licence: 'Daten unter',
  types: { library: 'Bibliothek', archive: 'Archiv', museum: 'Museum' } as Record<string, string>,
};

export const PAGE: Readonly<Record<Language, typeof DE>> = {
  de: DE,
  en: {
    otherNames: 'Other names',
    identifiers: 'Identifiers',
    uri: 'URI',
    formerly: 'Formerly',
    type: 'Type',
    addresses: 'Addresses',
    visiting: 'Visiting address',
    postal: 'Postal address',
    address: 'Address',
    location: 'Location',
    map: 'Map',
    coordinates: 'Coordinates',
    fromWikidata: 'position from Wikidata',
    hours: 'Opening hours',
    contact: 'Contact',
    phone: 'Phone',
    fax: 'Fax',
    main: 'main',
    email: 'E-mail',
    web: 'On the web',
    homepage: 'Homepage',
    catalogue: 'Catalogue',
    about: 'About',
    related: 'Related institutions',
    linksOut: 'Elsewhere',
    data: 'Data',
    modified: 'Record last modified on',
    versions: 'Versions',
    allVersions: (count: string) => `All ${count} versions (TimeMap)`,
    asOf: 'This page shows the record as of',
    current: 'See the current record',
    licence: 'Data under',
    types: { library: 'Library', archive: 'Archive', museum: 'Museum' },
  },
};

export const KINDS: Readonly<Record<string, 'library' | 'archive' | 'museum'>> = {
  [`${schema}Library`]: 'library',
  [`${schema}ArchiveOrganization`]: 'archive',
  [`${schema}Museum`]: 'museum',
};

/** The sites a `owl:sameAs` may lead to, by the start of the IRI, with their names. */
export const ELSEWHERE: readonly [string, string][] = [
  ['http://www.wikidata.org/entity/', 'Wikidata'],
  ['https://www.wikidata.org/entity/', 'Wikidata'],
  ['https://d-nb.info/gnd/', 'GND'],
  ['http://d-nb.info/gnd/', 'GND'],
  ['http://lobid.org/organisation', 'lobid'],
  ['https://lobid.org/organisation', 'lobid'],
];
