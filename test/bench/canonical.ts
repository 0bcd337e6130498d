// The cost of reproducible versions, per description: `npx tsx test/bench/canonical.ts` (also a
// step of `npm run bench`). For 17,000 generated institutions (the bench's dataset) loaded once:
// a description's blank nodes labelled canonically against labelling by content alone (the
// baseline, what the labelling did before ties were broken by neighbours), the canonical text with
// its links and its hash, and a whole load's canonical reading (graph by graph: every
// description, the rest) against one describe query a description, and its share of the
// load of the same sources.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generate } from '../../cli/generate';
import { canonicalDataset } from '../../src/load/describe/canonicalDataset';
import { loadSources } from '../../src/load/loadSources';
import { canonicalDescription, institutionHash } from '../../src/history/canonical';
import { labelBlankNodes } from '../../src/rdf/blankNodeLabels';
import { splitWrittenNTriples, type Triple } from '../../src/rdf/ntriples';
import { institutionIriFor } from '../../src/store/queries';

const BASE = 'https://ld.zdb-services.de';
const { values } = parseArgs({ options: { count: { type: 'string', default: '17000' } } });
const COUNT = Number(values.count);

/** Labelling by content alone: each node by its own triples and who points at it (the baseline). */
function byContent(triples: readonly Triple[]): number {
  const content = new Map<string, string[]>();
  for (const t of triples) {
    if (t.s.startsWith('_:')) content.set(t.s, [...(content.get(t.s) ?? []), `${t.p} ${t.o}`]);
    if (t.o.startsWith('_:')) content.set(t.o, [...(content.get(t.o) ?? []), `${t.s} ${t.p}`]);
  }
  return [...content.values()].map((parts) => parts.sort().join(';')).sort().length;
}

/** Microseconds per item of `run` over `items`, best of three rounds. */
function perItem<T>(items: readonly T[], run: (item: T) => unknown): number {
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    for (const item of items) run(item);
    best = Math.min(best, performance.now() - started);
  }
  return (best * 1000) / items.length;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isil-ld-bench-canonical-'));
  try {
    const source = path.join(dir, 'institutions.nt');
    fs.writeFileSync(source, [...generate({ count: COUNT, seed: 1, base: BASE })].join(''));
    let started = performance.now();
    const loaded = await loadSources([source], { baseIri: BASE });
    const loadMs = performance.now() - started;
    const { dataset } = loaded;
    const described = [...dataset.institutions()].map((i) => ({
      iri: i.iri,
      text: dataset.store.describe(institutionIriFor(BASE, i.isil)),
    }));
    const split = described.map((d) => ({ iri: d.iri, triples: splitWrittenNTriples(d.text) }));
    const baseline = perItem(split, (d) => byContent(d.triples));
    const labelled = perItem(split, (d) => labelBlankNodes(d.triples, d.iri));
    const text = perItem(described, (d) => institutionHash(canonicalDescription(d.iri, d.text)));
    started = performance.now();
    for (const i of dataset.institutions()) dataset.store.describe(institutionIriFor(BASE, i.isil));
    const queriesMs = performance.now() - started;
    started = performance.now();
    await canonicalDataset(dataset);
    const wholeMs = performance.now() - started;
    dataset.free();
    const n = described.length;
    const row = (what: string, value: string, budget: string, ok?: boolean) =>
      console.log(
        `| ${what} | ${value} | ${budget} | ${ok === undefined ? '' : ok ? 'PASS' : 'MISS'} |`,
      );
    console.log(`canonical: ${n} generated institutions, load ${Math.round(loadMs)} ms`);
    row(
      'canonical labels a description (baseline: by content alone)',
      `${labelled.toFixed(1)} µs (${baseline.toFixed(1)} µs)`,
      '',
    );
    row(
      'canonical text and hash a description, from the describe answer',
      `${text.toFixed(1)} µs`,
      '',
    );
    row(
      'a load read canonically: graph by graph (one describe query a description)',
      `${Math.round(wholeMs)} ms, ${((wholeMs * 1000) / n).toFixed(1)} µs a description (${Math.round(queriesMs)} ms of queries alone)`,
      `${((wholeMs / loadMs) * 100).toFixed(0)}% of the load's ${Math.round(loadMs)} ms`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
