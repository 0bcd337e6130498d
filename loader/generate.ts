// Command line and library: a synthetic dataset of N institutions, the same bytes for the same
// seed, either in exactly the shape of the published model (DATA-MODEL.md) as N-Triples, or as the
// agency's source records in normalized PICA+, shaped like the real ones, or as a snapshot (the
// loader's output) of the same N-Triples, written as it is generated: a million institutions (31
// million triples, more than the embedded store holds) go into a remote store this way.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { CHUNK_MARK, INDEX_LINE, SNAPSHOT_CHUNK_BYTES, snapshotHeader } from '../src/load/snapshot';
import { DATA_PATH } from '../src/rdf/iris';
import { Progress, progressMode } from './progress';
import { PREFIXES } from '../src/rdf/namespaces';
import { generatePica } from './generatePica';
import { Draw, HOURS, KINDS, literal, pad, STREETS, TOWNS } from './synthetic';

export { generatePica };
export { prng } from './synthetic';

const {
  rdf,
  rdfs,
  xsd,
  owl,
  foaf,
  v,
  dbp,
  dc,
  dcterms,
  dcmitype,
  geo,
  wgs84,
  schema,
  gbv,
  wdrs,
  cdtype,
} = PREFIXES;
const CC0 = 'http://creativecommons.org/publicdomain/zero/1.0/';

export interface GenerateOptions {
  readonly count: number;
  readonly seed: number;
  /** Base of the minted IRIs, without a trailing slash. */
  readonly base: string;
}

/** One institution being written: its names and IRIs, and the lines so far. */
interface Written {
  readonly draw: Draw;
  readonly n: number;
  readonly isil: string;
  readonly R: string;
  readonly town: string;
  readonly host: string;
  readonly lines: string[];
  /** A fresh blank node, numbered across the whole run. */
  readonly node: () => string;
}

const triple = (w: Written, s: string, p: string, o: string) =>
  w.lines.push(`${s} <${p}> ${o} .\n`);

/** Type, names, identifier, the lobid link, homepage, catalogue and other web pages. */
function identity(w: Written, name: string): void {
  const { draw, n, isil, R, town, host } = w;
  const t = (s: string, p: string, o: string) => triple(w, s, p, o);
  t(R, `${rdf}type`, `<${foaf}Organization>`);
  t(R, `${foaf}name`, literal(name));
  if (draw.chance(0.8)) t(R, `${dbp}shortName`, literal(`${town} SB ${n}`));
  t(R, `${dc}identifier`, literal(`(ISIL)${isil}`));
  t(R, `${owl}sameAs`, `<http://lobid.org/organisation/${isil}>`);
  if (draw.chance(0.9)) t(R, `${foaf}homepage`, `<${host}/>`);
  if (draw.chance(0.7)) {
    const opac = w.node();
    t(R, `${gbv}opac`, opac);
    t(opac, `${rdf}type`, `<${cdtype}CatalogueOrIndex>`);
    t(opac, `${foaf}homepage`, `<${host}/katalog>`);
  }
  if (draw.chance(0.6)) {
    const url = `<${host}/service/auskunft>`;
    t(R, `${v}url`, url);
    t(url, `${dc}description`, literal('Online-Auskunft'));
    if (draw.chance(0.5)) t(url, `${rdf}type`, `<${dcmitype}Service>`);
  }
  if (draw.chance(0.3)) {
    const url = `<${host}/%C3%B6ffnungszeiten>`;
    t(R, `${v}url`, url);
    t(url, `${dc}description`, literal('Öffnungszeiten besonderer Bereiche'));
  }
}

/** The main address, a postal one, the coordinates and the opening hours. */
function places(w: Written): void {
  const { draw, R, town } = w;
  const t = (s: string, p: string, o: string) => triple(w, s, p, o);
  const postcode = pad(1000 + Math.floor(draw.random() * 98_000), 5);
  const main = w.node();
  t(R, `${v}adr`, main);
  t(main, `${rdf}type`, `<${v}Address>`);
  t(main, `${rdf}type`, `<${v}Pref>`);
  t(
    main,
    `${v}street-address`,
    literal(`${draw.pickOf(STREETS)} ${1 + Math.floor(draw.random() * 120)}`),
  );
  t(main, `${v}locality`, literal(town));
  t(main, `${v}postal-code`, literal(postcode));
  if (draw.chance(0.5)) {
    const postal = w.node();
    t(R, `${v}adr`, postal);
    for (const type of ['Address', 'Postal', 'Parcel']) t(postal, `${rdf}type`, `<${v}${type}>`);
    t(postal, `${v}locality`, literal(town));
    t(postal, `${v}postal-code`, literal(pad(Number(postcode) + 1, 5)));
  }
  if (draw.chance(0.9)) {
    const place = w.node();
    t(R, `${geo}location`, place);
    t(place, `${rdf}type`, `<${wgs84}SpatialThing>`);
    // Inside Germany: latitude 47.3–55.0, longitude 5.9–15.0; kept as strings, as the original does.
    t(place, `${geo}lat`, literal((47.3 + draw.random() * 7.7).toFixed(5), `${xsd}string`));
    t(place, `${geo}long`, literal((5.9 + draw.random() * 9.1).toFixed(5), `${xsd}string`));
  }
  if (draw.chance(0.7)) {
    const hours = w.node();
    t(R, `${schema}openingHoursSpecification`, hours);
    t(hours, `${rdf}type`, `<${schema}OpeningHoursSpecification>`);
    t(hours, `${rdfs}comment`, literal(draw.pickOf(HOURS)));
    if (draw.chance(0.5))
      t(
        hours,
        `${schema}description`,
        literal('Servicezeiten s. Link "Öffnungszeiten besonderer Bereiche"'),
      );
  }
}

/** One to three contacts, each a phone, maybe a fax, and an e-mail address. */
function contacts(w: Written): void {
  const { draw, n, R } = w;
  const t = (s: string, p: string, o: string) => triple(w, s, p, o);
  const area = 30 + Math.floor(draw.random() * 900);
  const count = 1 + Math.floor(draw.random() * 3);
  for (let c = 0; c < count; c++) {
    for (const kind of ['Voice', 'Fax'] as const) {
      if (kind === 'Fax' && !draw.chance(0.6)) continue;
      const tel = w.node();
      t(R, `${v}tel`, tel);
      t(tel, `${rdf}type`, `<${v}${kind}>`);
      if (c === 0) t(tel, `${rdf}type`, `<${v}Pref>`);
      const number = `+49 ${area} ${100 + Math.floor(draw.random() * 900)}-${1000 + Math.floor(draw.random() * 9000)}`;
      t(tel, `${rdf}value`, literal(number));
    }
    t(R, `${v}email`, `<mailto:kontakt${c}@bibliothek-${n}.example.org>`);
  }
}

/** A description sometimes, and the description document with its licence and date. */
function described(w: Written, D: string): void {
  const { draw, n, R, town } = w;
  const t = (s: string, p: string, o: string) => triple(w, s, p, o);
  if (draw.chance(0.4))
    t(
      R,
      `${dc}description`,
      literal(`Synthetische Einrichtung für Tests. Übernommene Bibliothek: ${town} ${n + 1}`),
    );
  t(R, `${wdrs}describedby`, D);
  t(D, `${dcterms}license`, `<${CC0}>`);
  const modified = new Date(
    Date.UTC(2005, 0, 1) + Math.floor(draw.random() * 20 * 365.25 * 86_400) * 1000,
  );
  t(
    D,
    `${dcterms}modified`,
    literal(modified.toISOString().replace('.000Z', ''), `${xsd}dateTime`),
  );
}

/** Lines of N-Triples, one institution at a time. */
export function* generate({ count, seed, base }: GenerateOptions): Generator<string> {
  const draw = new Draw(seed);
  let blank = 0;
  const node = () => `_:b${++blank}`;
  for (let n = 1; n <= count; n++) {
    const isil = draw.isil(n);
    const town = draw.pickOf(TOWNS);
    const name = `${draw.pickOf(KINDS)} ${town} ${n} (synthetisch)`;
    const R = `<${base}/resource/organisations/${isil}>`;
    const host = `https://bibliothek-${n}.example.org`;
    const w: Written = { draw, n, isil, R, town, host, lines: [], node };
    identity(w, name);
    places(w);
    contacts(w);
    described(w, `<${base}/data/organisations/${isil}>`);
    yield w.lines.join('');
  }
}

/**
 * The N-Quads of a snapshot of `generate`'s institutions, in pieces: each institution's triples in
 * the graph of its description (as the loader places them: every triple of a generated institution
 * is its own, its blank nodes', its document's or its web pages'), a chunk mark after every
 * SNAPSHOT_CHUNK_BYTES or more at an institution's end (no blank node spans two institutions), then
 * the trailer with the sha256 of every byte before it and the counts a load checks. The trailer
 * has no index rows: a server that loads it queries its store for them.
 */
export function* generateSnapshot(options: GenerateOptions): Generator<string> {
  const hash = crypto.createHash('sha256');
  let triples = 0;
  let piece = snapshotHeader(options.base);
  let institutions = 0;
  for (const institution of generate(options)) {
    institutions++;
    const graph = `<${options.base}${DATA_PATH}${/organisations\/([^>]+)>/.exec(institution)![1]}>`;
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
  const trailer = { sha256: hash.digest('hex'), triples, institutions, withdrawn: 0 };
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
