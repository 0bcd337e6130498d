// Measures the validator (a script, not a test): every institution of the bench's generated set
// checked against the shapes in this thread, with the compiled shapes (the load path's) and with
// shacl-engine (the test oracle, test/support/shaclEngine.ts), by turns; prints the CPU time per
// institution of each, and their ratio. With `--load`,
// also `npm run load` of the same institutions validating and with `--skip-validation`, by turns.
// `npm run bench` runs it; alone: `npx tsx test/bench/validate.ts [--count N] [--turns N] [--load]`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { generate } from '../../cli/generate';
import { compiledShapes } from '../../src/load/describe/compiledShapes';
import { defectsOf } from '../../src/load/describe/describeBatch';
import { SHAPES_FILE, type Defect } from '../../src/load/describe/shapes';
import { splitNTriples, type Triple } from '../../src/rdf/ntriples';
import { PROJECT_ROOT } from '../../src/util/paths';
import { shaclEngine } from '../support/shaclEngine';

type ShaclEngine = 'compiled' | 'shacl-engine';
interface Institution {
  readonly iri: string;
  readonly ntriples: string;
  readonly triples: Triple[];
}

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '17000' },
    turns: { type: 'string', default: '3' },
    /** Also time `npm run load` validating and with --skip-validation. */
    load: { type: 'boolean', default: false },
    /** The loader's entry: the compiled one `npm run bench` builds, or the sources through tsx. */
    loader: { type: 'string' },
  },
});
const COUNT = Number(values.count);
const TURNS = Number(values.turns);
const WORK = path.join(PROJECT_ROOT, '.bench', 'validate');
const BASE = 'https://ld.zdb-services.de';

const log = (text: string) => process.stdout.write(`${text}\n`);
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** One engine over every institution: µs of CPU and of wall time each. */
async function turn(engine: ShaclEngine, institutions: readonly Institution[]) {
  const compiled = compiledShapes(SHAPES_FILE);
  const reference = await shaclEngine(SHAPES_FILE);
  const check = async (i: Institution): Promise<Defect[]> =>
    engine === 'compiled' ? defectsOf(compiled, i.iri, i.triples) : reference(i.iri, i.triples);
  const cpu = process.cpuUsage();
  const started = performance.now();
  let defects = 0;
  for (const institution of institutions) defects += (await check(institution)).length;
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const perInstitution = (ms: number) => (ms * 1000) / institutions.length;
  return {
    cpuUs: perInstitution((used.user + used.system) / 1000),
    wallUs: perInstitution(wall),
    defects,
  };
}

/** `npm run load` of `file`, with `extra` arguments: its wall time in ms. */
function load(file: string, extra: readonly string[]): number {
  const entry = values.loader
    ? [values.loader]
    : ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli', 'loadCommand.ts')];
  const started = performance.now();
  const run = spawnSync(process.execPath, [...entry, '--quiet', ...extra, file], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, DATASET: path.join(WORK, 'dataset.nq'), HISTORY_DIR: '' },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`load failed: ${run.stderr}`);
  return performance.now() - started;
}

async function main(): Promise<void> {
  const institutions: Institution[] = [];
  for (const text of generate({ count: COUNT, seed: 1, base: BASE }))
    institutions.push({
      iri: /^<([^>]+)>/.exec(text)![1]!,
      ntriples: text,
      triples: splitNTriples(text),
    });
  const engines: ShaclEngine[] = ['shacl-engine', 'compiled'];
  const runs = new Map<ShaclEngine, { cpuUs: number; wallUs: number; defects: number }[]>(
    engines.map((e) => [e, []]),
  );
  for (let t = 1; t <= TURNS; t++)
    for (const engine of engines) {
      const result = await turn(engine, institutions);
      runs.get(engine)!.push(result);
      log(
        `validate: turn ${t}, ${engine}: CPU ${result.cpuUs.toFixed(0)} µs, wall ${result.wallUs.toFixed(0)} µs an institution (${result.defects} defects)`,
      );
    }
  const cpu = (e: ShaclEngine) => median(runs.get(e)!.map((r) => r.cpuUs));
  log(
    `validate: CPU an institution, shacl-engine / compiled: ${cpu('shacl-engine').toFixed(0)} / ${cpu('compiled').toFixed(0)} µs = ${(cpu('shacl-engine') / cpu('compiled')).toFixed(1)}× (medians of ${TURNS} turns, ${COUNT} institutions)`,
  );
  if (!values.load) return;
  fs.mkdirSync(WORK, { recursive: true });
  const file = path.join(WORK, 'generated.nt');
  fs.writeFileSync(file, institutions.map((i) => i.ntriples).join(''));
  const validating: number[] = [];
  const skipping: number[] = [];
  for (let t = 1; t <= TURNS; t++) {
    validating.push(load(file, []));
    skipping.push(load(file, ['--skip-validation']));
    log(
      `validate: turn ${t}, npm run load: validating ${(validating.at(-1)! / 1000).toFixed(1)} s, --skip-validation ${(skipping.at(-1)! / 1000).toFixed(1)} s`,
    );
  }
  log(
    `validate: npm run load, validating / --skip-validation: ${(median(validating) / 1000).toFixed(1)} / ${(median(skipping) / 1000).toFixed(1)} s = ${(median(validating) / median(skipping)).toFixed(2)}× (medians of ${TURNS} turns, ${COUNT} institutions)`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
