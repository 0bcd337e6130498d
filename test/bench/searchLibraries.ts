// Which library indexes the search: MiniSearch, FlexSearch and Orama on the same work,
// the bundled 18,681 names with their ISILs and Sigels. Each builds its index over the same folded
// text; then 2,000 autocomplete prefixes taken from the names (time per query, p50 and p99), and
// 200 names that are not the agency's own, Wikidata's labels of German institutions, each asked
// for with typo tolerance (how often the right ISIL comes first). Memory is the heap the index
// holds after a full GC. Run: `npx tsx --expose-gc test/bench/searchLibraries.ts` (also a step of
// `npm run bench`).
import fs from 'node:fs';
import path from 'node:path';
import MiniSearch from 'minisearch';
import { Index } from 'flexsearch';
import { create, insertMultiple, search as oramaSearch } from '@orama/orama';
import { fold } from '../../src/search/fold';
import { REAL_DATA } from '../support';
import { thirdPartyForBench } from './drivers';

interface Doc {
  readonly id: number;
  readonly isil: string;
  readonly text: string;
}

interface Engine {
  readonly name: string;
  build(docs: readonly Doc[]): Promise<void>;
  /** The ids of the best `limit` documents for `query`, best first. */
  query(query: string, limit: number): Promise<number[]> | number[];
}

function rows(file: string): string[][] {
  return fs
    .readFileSync(path.join(REAL_DATA, file), 'utf8')
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((line) => line.split('\t'));
}

function heapMb(): number {
  global.gc?.();
  global.gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

export function engines(): Engine[] {
  let mini!: MiniSearch<Doc>;
  let flex!: Index;
  let orama!: ReturnType<typeof create>;
  return [
    {
      name: 'MiniSearch 7',
      async build(docs) {
        mini = new MiniSearch<Doc>({ fields: ['text'], idField: 'id' });
        mini.addAll(docs);
      },
      query: (q, limit) =>
        mini
          .search(q, { prefix: true, fuzzy: (term) => (term.length > 3 ? 0.2 : 0) })
          .slice(0, limit)
          .map((r) => r.id as number),
    },
    {
      name: 'FlexSearch 0.8',
      async build(docs) {
        flex = new Index({ tokenize: 'forward', encoder: 'LatinBalance', resolution: 9 });
        for (const doc of docs) flex.add(doc.id, doc.text);
      },
      query: (q, limit) => flex.search(q, { limit, suggest: true }) as number[],
    },
    {
      name: 'Orama 3',
      async build(docs) {
        orama = create({ schema: { text: 'string' } as const });
        await insertMultiple(
          orama,
          docs.map((d) => ({ id: String(d.id), text: d.text })),
        );
      },
      async query(q, limit) {
        // (Orama's result type is too deep for the compiler; its hits carry the ids.)
        const found = (await oramaSearch(orama, { term: q, limit, tolerance: 1 } as never)) as {
          hits: { id: string }[];
        };
        return found.hits.map((h) => Number(h.id));
      },
    },
  ];
}

export async function searchLibraries(): Promise<void> {
  const names = rows('lobid-organisations_isil-sigel-name_2023-11.tsv');
  const docs: Doc[] = names.map(([, isil, sigel, name], id) => ({
    id,
    isil: isil!,
    text: fold(`${name} ${isil} ${sigel === isil ? '' : sigel}`),
  }));
  const byIsil = new Map(docs.map((d) => [d.isil, d]));
  const agencyName = new Map(names.map(([, isil, , name]) => [isil!, name!]));
  // 2,000 prefixes a person types: a name's first word whole and three letters of the next.
  const prefixes: string[] = [];
  for (let i = 0; prefixes.length < 2000; i += 7) {
    const words = fold(names[i % names.length]![3]!)
      .split(/\s+/)
      .filter(Boolean);
    prefixes.push(
      words.length > 1 ? `${words[0]} ${words[1]!.slice(0, 3)}` : words[0]!.slice(0, 4),
    );
  }
  // 200 names not the agency's own: Wikidata's label of a bundled German institution, where it
  // differs from the agency's name, every k-th in ISIL order.
  const labels = rows('wikidata_isil-lookup_2023-09.tsv')
    .filter(
      ([, label, isil]) =>
        isil?.startsWith('DE-') && byIsil.has(isil) && label !== agencyName.get(isil),
    )
    .sort((a, b) => (a[2]! < b[2]! ? -1 : 1));
  const step = Math.floor(labels.length / 200);
  const foreign = labels.filter((_, i) => i % step === 0).slice(0, 200);

  console.log(`search libraries: ${docs.length} names; 2,000 prefixes; 200 Wikidata labels`);
  console.log('library         build ms  heap MB  prefix p50 µs  p99 µs  label top-1');
  for (const engine of engines()) {
    const base = heapMb();
    const started = performance.now();
    await engine.build(docs);
    const buildMs = performance.now() - started;
    const heap = heapMb() - base;
    const times: number[] = [];
    for (let round = 0; round < 2; round++)
      for (const q of prefixes) {
        const t = performance.now();
        await engine.query(q, 10);
        if (round === 1) times.push((performance.now() - t) * 1000);
      }
    times.sort((a, b) => a - b);
    let right = 0;
    for (const [, label, isil] of foreign) {
      const [top] = await engine.query(fold(label!), 1);
      if (top !== undefined && docs[top]!.isil === isil) right++;
    }
    console.log(
      `${engine.name.padEnd(15)} ${buildMs.toFixed(0).padStart(8)} ${heap.toFixed(1).padStart(8)} ${percentile(times, 50).toFixed(0).padStart(14)} ${percentile(times, 99).toFixed(0).padStart(7)}  ${right}/${foreign.length}`,
    );
  }
}

if (require.main === module) void thirdPartyForBench().then(searchLibraries);
