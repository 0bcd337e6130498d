// Where the project's own files are, whether it runs from src/ (tsx) or from dist/ (compiled).
import fs from 'node:fs';
import path from 'node:path';

function findRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'queries')))
      return dir;
    if (path.dirname(dir) === dir)
      throw new Error(`no project root (package.json and queries/) above ${start}`);
  }
}

export const PROJECT_ROOT = findRoot(__dirname);
export const QUERY_DIR = path.join(PROJECT_ROOT, 'queries');
/** The real DE-1a document of the original service (December 2021). */
export const BUNDLED_DIR = path.join(PROJECT_ROOT, 'fixtures', 'bundled');
const REAL_DIR = path.join(PROJECT_ROOT, 'fixtures', 'real');

/**
 * The sources served when no snapshot exists: the agency's real data (docs/data.md, "The bundled
 * dataset"). In this order, since an ISIL held by two sources of equal weight goes to the later:
 * the name list and the redirect list first, then the full records from the oldest to the newest,
 * then the links source (Wikidata's ISIL lookup), which competes with none of them.
 */
export const BUNDLED_DATASET: readonly string[] = [
  path.join(REAL_DIR, 'lobid-organisations_isil-sigel-name_2023-11.tsv'),
  path.join(REAL_DIR, 'isil-redirects_lobid-resources.tsv'),
  path.join(BUNDLED_DIR, 'zdb-lds_DE-1a_2021-12.rdf'),
  path.join(REAL_DIR, 'isil-directory_picaplus-xml_2013_9-records.xml'),
  path.join(REAL_DIR, 'isil-directory_pica-plain_8-records.dat'),
  // Links to Wikidata and the GND: served beside the descriptions, never instead of them.
  path.join(REAL_DIR, 'wikidata_isil-lookup_2023-09.tsv'),
];
