// Measures the validator: every institution of a generated N-Triples file checked against the
// shapes one at a time, as the loader does. Prints µs per institution and the total, in wall-clock
// time and in CPU time of this process (the figure to trust on a shared machine).
//   npm run generate -- --count 17000 --out /tmp/gen.nt --seed 1
//   npx tsx test/bench/validate.ts /tmp/gen.nt
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { DEFECT_CLASSES, Validator, type DefectClass } from '../../loader/validate';

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

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: npx tsx test/bench/validate.ts FILE.nt\n');
  process.exit(2);
}
const groups = institutions(fs.readFileSync(file, 'utf8'));
let start = performance.now();
const validator = new Validator();
const setup = performance.now() - start;

const counts = new Map<DefectClass, number>(DEFECT_CLASSES.map((c) => [c, 0]));
const cpu = process.cpuUsage();
start = performance.now();
for (const { iri, ntriples } of groups)
  for (const { defect } of validator.validate(iri, ntriples))
    counts.set(defect, counts.get(defect)! + 1);
const total = performance.now() - start;
const cpuMs = process.cpuUsage(cpu).user / 1000;

process.stdout.write(
  `shapes parsed in ${setup.toFixed(0)} ms\n` +
    `${groups.length} institutions validated in ${(total / 1000).toFixed(2)} s ` +
    `(${((total * 1000) / groups.length).toFixed(0)} µs each), ` +
    `CPU ${(cpuMs / 1000).toFixed(2)} s (${((cpuMs * 1000) / groups.length).toFixed(0)} µs each)\n` +
    [...counts].map(([c, n]) => `  ${c}: ${n}\n`).join(''),
);
