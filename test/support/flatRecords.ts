// A flat record made for a test (src/record/flatRecord.ts): an ISIL and a name, the rest as given.
import type { FlatRecord } from '../../src/record/flatRecord';

export function entry(isil: string, name: string, more: Partial<FlatRecord> = {}): FlatRecord {
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
