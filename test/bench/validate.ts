// Measures the validator: every institution of a generated N-Triples file checked against the
// shapes, in batches of 200 on a pool of workers, as the loader does. Prints µs per institution
// and the total, in wall-clock time and in CPU time of the process, every thread (the figure to
// trust on a shared machine).
//   npm run generate -- --count 17000 --out /tmp/gen.nt --seed 1
//   npx tsx test/bench/validate.ts /tmp/gen.nt [workers]   (default: one a core)
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { DEFECT_CLASSES, Validator, type DefectClass } from '../../src/load/validator';

const INSTITUTION = /^<([^>]*\/resource\/organisations\/[^>]*)> /;

/**
 * The generator writes each institution's triples contiguously, its own first: a line whose
 * subject is another institution's IRI starts the next one.
 */
function institutions(text: string): { iri: string; ntriples: string }[] {
  const groups: { iri: string; ntriples: string }[] = [];
  let iri = '';
  let lines: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const subject = INSTITUTION.exec(line)?.[1];
    if (subject !== undefined && subject !== iri) {
      if (lines.length > 0) groups.push({ iri, ntriples: lines.join('\n') });
      iri = subject;
      lines = [];
    }
    lines.push(line);
  }
  if (lines.length > 0) groups.push({ iri, ntriples: lines.join('\n') });
  return groups;
}

const BATCH = 200;

const [file, workerArg] = process.argv.slice(2);
const workers = workerArg === undefined ? undefined : Number(workerArg);
if (!file || (workers !== undefined && !(Number.isInteger(workers) && workers > 0))) {
  process.stderr.write('usage: npx tsx test/bench/validate.ts FILE.nt [workers]\n');
  process.exit(2);
}
async function main(file: string, workers: number | undefined): Promise<void> {
  const groups = institutions(fs.readFileSync(file, 'utf8'));
  let start = performance.now();
  const validator = await Validator.start(workers === undefined ? {} : { workers });
  const setup = performance.now() - start;

  const counts = new Map<DefectClass, number>(DEFECT_CLASSES.map((c) => [c, 0]));
  const cpu = process.cpuUsage();
  start = performance.now();
  const batches: (typeof groups)[] = [];
  for (let i = 0; i < groups.length; i += BATCH) batches.push(groups.slice(i, i + BATCH));
  // Every batch at once: the workers queue them, and the file is in memory anyway.
  for (const found of await Promise.all(batches.map((b) => validator.validate(b))))
    for (const defects of found)
      for (const { defect } of defects) counts.set(defect, counts.get(defect)! + 1);
  const total = performance.now() - start;
  const cpuMs = process.cpuUsage(cpu).user / 1000;
  await validator.close();

  process.stdout.write(
    `${validator.workers} workers started, shapes parsed, in ${setup.toFixed(0)} ms\n` +
      `${groups.length} institutions validated in ${(total / 1000).toFixed(2)} s ` +
      `(${((total * 1000) / groups.length).toFixed(0)} µs each), ` +
      `CPU ${(cpuMs / 1000).toFixed(2)} s (${((cpuMs * 1000) / groups.length).toFixed(0)} µs each)\n` +
      [...counts].map(([c, n]) => `  ${c}: ${n}\n`).join(''),
  );
}

main(file, workers).catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
