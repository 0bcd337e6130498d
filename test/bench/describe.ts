// What one uncached document costs, stage by stage (a script, not a test): over random
// institutions of a generated dataset, the CPU time of an empty query (Oxigraph's floor), the
// CONSTRUCT of queries/describe.rq, reading and labelling its result, and each serializer.
import { parseArgs } from 'node:util';
import { generate } from '../../cli/generate';
import { Dataset, type Institution } from '../../src/store/dataset';
import { Documents } from '../../src/documents/documents';
import { documentAnswer } from '../../src/http/respond';
import { formatByName } from '../../src/rdf/formats';
import type { Description } from '../../src/rdf/description';
import { toRdfXml } from '../../src/rdf/rdfxml';
import { toNTriples, toTurtle } from '../../src/rdf/turtle';
import { DatasetStore } from '../../src/store/embedded/datasetStore';
import { institutionIriFor } from '../../src/store/queries';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '17000' },
    requests: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '5' },
  },
});
const BASE = 'https://ld.zdb-services.de';
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);

const store = new DatasetStore();
store.load(generate({ count: Number(values.count), seed: 1, base: BASE }), 'nt', `${BASE}/`);
// Each description into its graph, as every load leaves the store (describe.rq reads one graph).
store.placeDescriptions(BASE);
// As a load ends: a generated dataset has no links, and its descriptions are read without them.
store.readLinks(BASE);
const dataset = new Dataset(store, BASE, 'bench');
const documents = new Documents(dataset, 0);
const institutions = [...dataset.institutions()];
let descriptions: Description[] = [];

/** The answer of a `.ttl` (its headers are made with the document). */
const TTL = documentAnswer({}, formatByName('ttl'));

let pick = 0;
/** A different institution each time, spread over the whole dataset. */
const next = (): Institution => institutions[(pick++ * 7919) % institutions.length]!;

const stages: [string, () => unknown][] = [
  ['empty query (ASK {})', () => store.ask('ASK {}')],
  ['CONSTRUCT describe.rq', () => store.describe(institutionIriFor(BASE, next().isil))],
  ['CONSTRUCT, read and label', () => dataset.describe(next())],
  ['Turtle from a description', () => toTurtle(descriptions[pick++ % descriptions.length]!)],
  ['N-Triples from a description', () => toNTriples(descriptions[pick++ % descriptions.length]!)],
  ['RDF/XML from a description', () => toRdfXml(descriptions[pick++ % descriptions.length]!)],
  ['uncached .ttl, all of it', () => documents.get(BASE, next(), 'ttl', TTL)],
];

async function main(): Promise<void> {
  descriptions = await Promise.all(institutions.slice(0, 1000).map((i) => dataset.describe(i)));
  // An empty description would time an empty scan.
  if (descriptions.some((description) => description.triples.length === 0))
    throw new Error('an institution has an empty description: were the descriptions placed?');
  // Rounds alternate the stages, so that drift of a shared machine spreads over all of them; the
  // first round only warms up. CPU time says more than wall-clock time when neighbours are busy.
  const cpu = new Map<string, number>();
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [name, run] of stages) {
      const started = process.cpuUsage();
      for (let i = 0; i < REQUESTS; i++) await run();
      const used = process.cpuUsage(started);
      if (round > 0) cpu.set(name, (cpu.get(name) ?? 0) + used.user + used.system);
    }
  }
  process.stdout.write(
    `${institutions.length} institutions, ${store.size} triples; CPU µs per call, mean of ${ROUNDS} rounds of ${REQUESTS}\n`,
  );
  for (const [name] of stages)
    process.stdout.write(`${name.padEnd(30)} ${(cpu.get(name)! / ROUNDS / REQUESTS).toFixed(1)}\n`);
  store.free();
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
