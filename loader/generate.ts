// Command line and library: a synthetic dataset of N institutions, the same bytes for the same
// seed, either in exactly the shape of the published model (docs/data-model.md) as N-Triples, or as the
// agency's source records in normalized PICA+, shaped like the real ones, or as a snapshot (the
// loader's output) of the same N-Triples, written as it is generated: a million institutions (31
// million triples, more than the embedded store holds) go into a remote store this way.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import {
  canonicalDescription,
  compactStates,
  HASH_LENGTH,
  institutionHash,
  versionOf,
} from '../src/history/canonical';
import type { InstitutionState } from '../src/history/model';
import { CHUNK_MARK, INDEX_LINE, SNAPSHOT_CHUNK_BYTES, snapshotHeader } from '../src/load/snapshot';
import { DATA_PATH, RESOURCE_PATH } from '../src/rdf/iris';
import { generate, type GenerateOptions } from '../src/load/generated';
import { PREFIXES } from '../src/rdf/namespaces';
import { Progress, progressMode } from './progress';
import { generatePica } from './generatePica';

export { generate, generatePica, type GenerateOptions };
export { prng } from '../src/load/synthetic';

const { rdf, foaf } = PREFIXES;
const XSD_STRING = '"^^<http://www.w3.org/2001/XMLSchema#string>';

/**
 * The N-Quads of a snapshot of `generate`'s institutions, in pieces: each institution's triples in
 * the graph of its description (as the loader places them: every triple of a generated institution
 * is its own, its blank nodes', its document's or its web pages'), a chunk mark after every
 * SNAPSHOT_CHUNK_BYTES or more at an institution's end (no blank node spans two institutions), then
 * the trailer with the sha256 of every byte before it, the counts a load checks, and the version
 * with every institution's state, as the loader makes them of the same N-Triples (each record is
 * its institution's whole description). The trailer has no index rows: a server that loads it
 * queries its store for them.
 */
export function* generateSnapshot(options: GenerateOptions): Generator<string> {
  const hash = crypto.createHash('sha256');
  let triples = 0;
  let piece = snapshotHeader(options.base);
  let institutions = 0;
  const states = new Map<string, InstitutionState>();
  for (const institution of generate(options)) {
    institutions++;
    const isil = /organisations\/([^>]+)>/.exec(institution)![1]!;
    const graph = `<${options.base}${DATA_PATH}${isil}>`;
    const iri = `${options.base}${RESOURCE_PATH}${isil}`;
    states.set(isil, {
      isil,
      status: 'live',
      // The store writes an xsd:string literal as a plain one: so is it hashed.
      hash: institutionHash(canonicalDescription(iri, institution.replaceAll(XSD_STRING, '"'))),
    });
    for (const line of institution.split('\n')) {
      if (line === '') continue;
      piece += `${line.slice(0, -1)}${graph} .\n`;
      triples++;
    }
    if (piece.length >= SNAPSHOT_CHUNK_BYTES) {
      piece += CHUNK_MARK;
      hash.update(piece);
      yield piece;
      piece = '';
    }
  }
  if (!piece.endsWith(CHUNK_MARK)) piece += CHUNK_MARK;
  hash.update(piece);
  yield piece;
  // Nothing outside the descriptions: the rest is empty.
  const rest = crypto.createHash('sha256').update('').digest('hex').slice(0, HASH_LENGTH);
  const trailer = {
    sha256: hash.digest('hex'),
    triples,
    institutions,
    withdrawn: 0,
    version: versionOf(states, rest),
    rest,
    states: compactStates(states),
  };
  yield `${INDEX_LINE}${JSON.stringify(trailer)}\n`;
}

const USAGE =
  'usage: npm run generate -- --count N --out FILE [--seed S] [--format nt|pica|snapshot] [--base IRI] [--quiet]';

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
  };
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
      },
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
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
