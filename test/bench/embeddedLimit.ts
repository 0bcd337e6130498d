// Where the embedded store stops (a script, not a test): generated institutions loaded
// into one Oxigraph store as a server loads a snapshot, in pieces, until its WebAssembly memory
// (at most 4 GiB) cannot grow; prints the institutions, triples and RSS at each step and at the
// failure, and the error Oxigraph ends with. `npm run bench` does not run it (minutes, 5 GB);
// alone: `npx tsx test/bench/embeddedLimit.ts [--step 25000] [--max 400000]`.
import { parseArgs } from 'node:util';
import { generateSnapshot } from '../../cli/generate';
import { DatasetStore } from '../../src/store/embedded/datasetStore';

const { values } = parseArgs({
  options: {
    step: { type: 'string', default: '25000' },
    max: { type: 'string', default: '400000' },
  },
});
const STEP = Number(values.step);
const MAX = Number(values.max);
const rss = () => Math.round(process.memoryUsage().rss / 1024 / 1024);
const log = (text: string) => process.stdout.write(`${text}\n`);

const store = new DatasetStore();
let institutions = 0;
let pieces: string[] = [];
let bytes = 0;
const started = Date.now();
try {
  for (const piece of generateSnapshot({
    count: MAX,
    seed: 1,
    base: 'https://ld.zdb-services.de',
  })) {
    if (piece.startsWith('# index ')) break;
    pieces.push(piece);
    bytes += piece.length;
    institutions += (
      piece.match(
        /> <http:\/\/www\.w3\.org\/1999\/02\/22-rdf-syntax-ns#type> <http:\/\/xmlns\.com\/foaf\/0\.1\/Organization> </g,
      ) ?? []
    ).length;
    if (bytes < 16 * 1024 * 1024) continue;
    store.load(pieces, 'nq', undefined, true);
    pieces = [];
    bytes = 0;
    if (institutions % STEP < 400)
      log(
        `${institutions} institutions, ${store.size} triples, RSS ${rss()} MB, ${((Date.now() - started) / 1000).toFixed(0)} s`,
      );
  }
  store.load(pieces, 'nq', undefined, true);
  log(`all ${institutions} institutions loaded: ${store.size} triples, RSS ${rss()} MB`);
} catch (error) {
  log(
    `the store stopped after ${institutions} institutions (${(() => {
      try {
        return `${store.size} triples`;
      } catch {
        return 'its size unreadable';
      }
    })()}), RSS ${rss()} MB: ${(error as Error).constructor.name}: ${(error as Error).message}`,
  );
}
