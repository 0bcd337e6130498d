// Command line and library: a synthetic dataset of N institutions, the same bytes for the same
// seed, either in exactly the shape of the published model (docs/data-model.md) as N-Triples, or as the
// agency's source records in normalized PICA+, shaped like the real ones, or as a snapshot (the
// loader's output) of the same N-Triples, written as it is generated: a million institutions (31
// million triples, more than the embedded store holds) go into a remote store this way.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import {
  canonicalDescription,
  compactStates,
  institutionHash,
  versionOf,
} from '../src/history/canonical';
import type { InstitutionState } from '../src/history/model';
import { RESOURCE_PATH } from '../src/rdf/iris';
import { generate, type GenerateOptions } from '../src/generate/generated';
import { PREFIXES } from '../src/rdf/namespaces';
import { Progress, progressMode } from './progress';
import { generatePica } from './generatePica';
import { generatedSnapshot } from './generatedSnapshot';
import { HISTORY_COUNT, historyCommand, type HistoryArgs } from './historyCommand';

export { generate, generatePica, type GenerateOptions };
export { prng } from '../src/generate/synthetic';

const { rdf, foaf } = PREFIXES;
const XSD_STRING = '"^^<http://www.w3.org/2001/XMLSchema#string>';

/**
 * The N-Quads of a snapshot of `generate`'s institutions, in pieces (`generatedSnapshot`): every
 * institution is live, and the trailer has the counts a load checks, and the version with every
 * institution's state, as the loader makes them of the same N-Triples (each record is its
 * institution's whole description).
 */
export function generateSnapshot(options: GenerateOptions): Generator<string> {
  const states = new Map<string, InstitutionState>();
  function* stated(): Generator<string> {
    for (const institution of generate(options)) {
      const isil = /organisations\/([^>]+)>/.exec(institution)![1]!;
      const iri = `${options.base}${RESOURCE_PATH}${isil}`;
      // The store writes an xsd:string literal as a plain one: so is it hashed.
      const text = canonicalDescription(iri, institution.replaceAll(XSD_STRING, '"'));
      states.set(isil, { isil, status: 'live', hash: institutionHash(text) });
      yield institution;
    }
  }
  return generatedSnapshot(stated(), options.base, (institutions) => {
    // Nothing outside the descriptions: the rest is empty.
    const rest = institutionHash('');
    return {
      institutions,
      withdrawn: 0,
      version: versionOf(states, rest),
      rest,
      states: compactStates(states),
    };
  });
}

const USAGE = `usage: npm run generate -- --count N --out FILE [--seed S] [--format nt|pica|snapshot] [--base IRI] [--quiet]
       npm run generate -- --history V [--change SHARE] [--count N] [--out FILE] [--history-dir DIR]
                           [--sources-dir DIR] [--next FILE] [--seed S] [--base IRI] [--quiet]
--history V writes V versions of the generated institutions (--count, default ${HISTORY_COUNT}), each
after the first changing --change of them (default 0.01): the change log in --history-dir (or
$HISTORY_DIR, or the snapshot's folder) and the last version's snapshot at --out (or $DATASET);
--sources-dir DIR also writes each version's N-Triples there, --next FILE those of one more version.`;

/** Writes the institutions to `out` in `format`, showing progress; returns the lines written. */
function writeInstitutions(
  out: string,
  format: string,
  count: number,
  seed: number,
  base: string,
  quiet: boolean | undefined,
): number {
  const fd = fs.openSync(out, 'w');
  const institutions =
    format === 'pica'
      ? generatePica({ count, seed })
      : format === 'snapshot'
        ? generateSnapshot({ count, seed, base })
        : generate({ count, seed, base });
  let lines = 0;
  const progress = new Progress('generate', progressMode(quiet));
  let made = 0;
  try {
    let batch = '';
    for (const institution of institutions) {
      // A snapshot's pieces hold many institutions: counted by the lines that type one.
      made += format === 'snapshot' ? 0 : 1;
      batch += institution;
      if (batch.length > 1 << 20) {
        if (format === 'snapshot') made = Math.min(count, made + countOf(batch));
        progress.report('generating', made, count, 'institutions');
        fs.writeSync(fd, batch);
        lines += batch.split('\n').length - 1;
        batch = '';
      }
    }
    fs.writeSync(fd, batch);
    lines += batch.split('\n').length - 1;
    progress.report('generating', count, count, 'institutions');
  } finally {
    progress.end();
    fs.closeSync(fd);
  }
  return lines;
}

/** Institutions begun in a piece of a snapshot: lines that type one a foaf:Organization. */
function countOf(text: string): number {
  const typed = `<${rdf}type> <${foaf}Organization>`;
  let n = 0;
  for (let at = text.indexOf(typed); at !== -1; at = text.indexOf(typed, at + 1)) n++;
  return n;
}

export function main(argv: readonly string[]): number {
  let values: {
    count?: string;
    out?: string;
    seed?: string;
    base?: string;
    format?: string;
    quiet?: boolean;
  } & HistoryArgs;
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        count: { type: 'string' },
        out: { type: 'string' },
        seed: { type: 'string' },
        base: { type: 'string' },
        format: { type: 'string' },
        quiet: { type: 'boolean' },
        history: { type: 'string' },
        change: { type: 'string' },
        'history-dir': { type: 'string' },
        'sources-dir': { type: 'string' },
        next: { type: 'string' },
      },
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.history !== undefined) return historyCommand(values, USAGE);
  const count = Number(values.count);
  const seed = Number(values.seed ?? 1);
  const base = (values.base ?? 'https://ld.zdb-services.de').replace(/\/+$/, '');
  const format = values.format ?? 'nt';
  const problem =
    !values.count || !Number.isInteger(count) || count < 1 || count > 1_000_000
      ? '--count: a whole number from 1 to 1000000'
      : !values.out
        ? '--out: the file to write'
        : !Number.isInteger(seed) || seed < 0 || seed > 0xffffffff
          ? '--seed: a whole number from 0 to 4294967295'
          : !/^https?:\/\/[^\s<>"]+$/.test(base)
            ? '--base: an http(s) IRI'
            : format !== 'nt' && format !== 'pica' && format !== 'snapshot'
              ? '--format: nt (N-Triples, the default), pica (normalized PICA+) or snapshot (what npm run load writes of the N-Triples)'
              : undefined;
  if (problem) {
    process.stderr.write(`${problem}\n${USAGE}\n`);
    return 2;
  }
  const lines = writeInstitutions(values.out!, format, count, seed, base, values.quiet);
  process.stderr.write(
    format === 'pica'
      ? `generated ${count} PICA+ records, seed ${seed}: ${values.out}\n`
      : format === 'snapshot'
        ? `generated a snapshot of ${count} institutions, seed ${seed}: ${values.out}\n`
        : `generated ${count} institutions, ${lines} triples, seed ${seed}: ${values.out}\n`,
  );
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
