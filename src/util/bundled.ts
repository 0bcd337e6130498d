// The bundled dataset: the agency's real data, served when no snapshot exists (docs/data.md, "The
// bundled dataset"). Its files are third-party (data/sources.json), fetched into data/third-party/.
import path from 'node:path';
import { PROJECT_ROOT } from './paths';
import { thirdPartyIntact, thirdPartyPath } from './thirdParty';

/**
 * Its files, in this order, since an ISIL held by two sources of equal weight goes to the later:
 * the name list and the redirect list first, then the full records from the oldest to the newest,
 * then the links source (Wikidata's ISIL lookup) and the positions source, which compete with none.
 */
export const BUNDLED_NAMES: readonly string[] = [
  'data/real/lobid-organisations_isil-sigel-name_2023-11.tsv',
  'data/real/isil-redirects_lobid-resources.tsv',
  'data/real/zdb-lds_DE-1a_2021-12.rdf',
  'data/real/isil-directory_picaplus-xml_2013_9-records.xml',
  'data/real/isil-directory_pica-plain_8-records.dat',
  // Links to Wikidata and the GND: served beside the descriptions, never instead of them.
  'data/real/wikidata_isil-lookup_2023-09.tsv',
  // Wikidata's positions of museums, joined through those links: for the map and geo search only.
  'data/real/wikidata_museums-de_2020-10.geojson',
];

/** The bundled dataset's files where `npm run fetch-data` puts them. */
export const BUNDLED_DATASET: readonly string[] = BUNDLED_NAMES.map(thirdPartyPath);

/** The files of the bundled dataset that are not there intact (missing, or not their SHA-256). */
export const bundledMissing = (): string[] =>
  BUNDLED_NAMES.filter((name) => !thirdPartyIntact(name));

/**
 * Where the demonstration dataset is written when the bundled files are missing and cannot be
 * fetched: generated institutions, plainly labelled, so that `npm start` serves something.
 */
export const DEMONSTRATION_DATASET = path.join(PROJECT_ROOT, 'data', 'demonstration.nt');
/** How many institutions it has. */
export const DEMONSTRATION_COUNT = 500;

/**
 * Where the bundled sources' version and states are cached, by the sha256 of their bytes: computed
 * at the first start that serves them, read at every later one (a start costs no canonicalisation).
 */
export const STATES_CACHE = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'isil-ld');
