// A search entry made for a test (src/search/entry.ts): an ISIL and a name, the rest as given.
import type { SearchEntry } from '../../src/search/entry';

export function entry(isil: string, name: string, more: Partial<SearchEntry> = {}): SearchEntry {
  return {
    isil,
    iri: `https://ld.zdb-services.de/resource/organisations/${isil}`,
    name,
    otherNames: [],
    sigel: undefined,
    cities: [],
    postcodes: [],
    type: undefined,
    country: isil.split('-')[0]!,
    lat: undefined,
    lon: undefined,
    modified: undefined,
    ...more,
  };
}
