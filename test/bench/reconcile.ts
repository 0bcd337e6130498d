// The reconciliation step of `npm run bench`: 200 names that are not the agency's own,
// Wikidata's labels of German institutions of the bundled dataset (wikidata_isil-lookup_2023-09.tsv,
// where the label differs from the agency's name; every k-th in ISIL order), each reconciled with
// no property, as a person pasting a column of names would. Prints how many get the right ISIL at
// the top (goal: 80% or more) and how many are matched automatically to a wrong one (goal: 0);
// then the same over every such label (3,723), of which the 200 are a sample.
// Run alone: `npx tsx test/bench/reconcile.ts`.
import fs from 'node:fs';
import path from 'node:path';
import { loadSources } from '../../src/load/loadSources';
import { words } from '../../src/search/fold';
import { reconcile } from '../../src/search/candidates';
import type { FlatRecord } from '../../src/record/flatRecord';
import { readRecords } from '../../src/record/readRecords';
import { SearchIndex } from '../../src/search/searchIndex';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { BASE, REAL_DATA } from '../support';
import { thirdPartyForBench } from './drivers';

/** The 200 labels: [label, the ISIL Wikidata gives it]. */
export function foreignNames(names: ReadonlyMap<string, string>): [string, string][] {
  const rows = allForeignNames(names);
  const step = Math.floor(rows.length / 200);
  return rows.filter((_, i) => i % step === 0).slice(0, 200);
}

/** Every such label, in ISIL order: the 200 are a sample of them. */
export function allForeignNames(names: ReadonlyMap<string, string>): [string, string][] {
  return fs
    .readFileSync(path.join(REAL_DATA, 'wikidata_isil-lookup_2023-09.tsv'), 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t'))
    .filter(
      ([, label, isil]) =>
        isil?.startsWith('DE-') && names.has(isil) && label && label !== names.get(isil),
    )
    .sort((a, b) => (a[2]! < b[2]! ? -1 : 1))
    .map(([, label, isil]) => [label!, isil!]);
}

export async function reconcileBench(verbose = false): Promise<void> {
  const { dataset } = await loadSources([...BUNDLED_DATASET], { baseIri: BASE });
  // The index in this process, as the index's thread holds it.
  const entries: FlatRecord[] = [];
  await readRecords(dataset, (batch) => void entries.push(...batch));
  const index = await SearchIndex.build(dataset.version, entries);
  const names = new Map([...dataset.institutions()].map((i) => [i.isil as string, i.name ?? '']));
  const labels = foreignNames(names);
  let top = 0;
  let top3 = 0;
  let auto = 0;
  let wrongAuto = 0;
  const started = performance.now();
  for (const [label, isil] of labels) {
    const candidates = reconcile(index, { query: label, limit: 3 });
    const [best] = candidates;
    if (candidates.some((c) => c.id === isil)) top3++;
    if (best?.id === isil) top++;
    else if (verbose)
      console.log(`  miss: ${label} → ${best?.id} ${best?.name} (want ${isil} ${names.get(isil)})`);
    if (best?.match) {
      auto++;
      if (best.id !== isil) {
        wrongAuto++;
        if (verbose) console.log(`  WRONG AUTO: ${label} → ${best.id} ${best.name} (want ${isil})`);
      }
    }
  }
  const ms = performance.now() - started;
  console.log(
    `reconciliation: ${labels.length} Wikidata labels of bundled institutions; right ISIL at the top ${top} (${((100 * top) / labels.length).toFixed(1)}%, goal ≥ 80%), among the first three ${top3}; matched automatically ${auto}, of them wrongly ${wrongAuto} (goal 0); ${(ms / labels.length).toFixed(2)} ms a query`,
  );
  // Every such label, not only the sample: how far the sample's figure is its own luck.
  const all = allForeignNames(names);
  let allTop = 0;
  let allWrong = 0;
  for (const [label, isil] of all) {
    const [best] = reconcile(index, { query: label, limit: 3 });
    if (best?.id === isil) allTop++;
    else if (best?.match) allWrong++;
  }
  console.log(
    `reconciliation, all ${all.length} such labels: right ISIL at the top ${allTop} (${((100 * allTop) / all.length).toFixed(1)}%), matched automatically and wrongly ${allWrong}`,
  );
  // Hostile queries, 500 characters each (the most a query may have): the search thread's time.
  const towns = [...index.towns()].filter((t) => t.length >= 4 && index.rarity(t) >= 5);
  const hostile: Record<string, string> = {
    'one word repeated': 'museum der '.repeat(50),
    "60 towns' adjectives": towns.map((t) => `${t}er`).join(' '),
    '40 unknown compounds': 'xyzbibliothek '.repeat(40),
    // Each begins with a name's word, and so brings the names that begin with it.
    "names' words with an end no name has": [...new Set([...names.values()].flatMap(words))]
      .filter((w) => w.length >= 12)
      .map((w) => `${w}qq`)
      .join(' '),
  };
  const worst = Object.entries(hostile).map(([what, text]) => {
    const query = text.slice(0, 500);
    const begun = performance.now();
    for (let i = 0; i < 20; i++) reconcile(index, { query, limit: 25 });
    return `${what} ${((performance.now() - begun) / 20).toFixed(1)} ms`;
  });
  console.log(`reconciliation, hostile queries of 500 characters: ${worst.join(', ')} a query`);
  dataset.free();
}

if (require.main === module)
  void thirdPartyForBench().then(() => reconcileBench(process.argv.includes('--verbose')));
