// Command line and library: a synthetic dataset of N institutions, the same bytes for the same
// seed, either in exactly the shape of the published model (DATA-MODEL.md) as N-Triples, or as the
// agency's source records in normalized PICA+, shaped like the real ones.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { isilDefect, isilKey } from '../src/rdf/isil';
import { PREFIXES } from '../src/rdf/namespaces';

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

/** mulberry32: a small, fast PRNG; the same seed gives the same sequence everywhere. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Plainly synthetic place names, with the umlauts and ß real ones have. */
const TOWNS = [
  'Müllerstadt',
  'Großbrück',
  'Österhausen',
  'Übelfeld',
  'Käsdorf',
  'Bärwalde',
  'Schönau am Beispiel',
  'Fußheim',
  'Lindenbüttel',
  'Neu Ärgersdorf',
  'Testhausen',
  'Musterbach',
];
const KINDS = [
  'Stadtbibliothek',
  'Universitätsbibliothek',
  'Landesbibliothek',
  'Kreisarchiv',
  'Stadtmuseum',
  'Hochschulbibliothek',
  'Forschungsbibliothek',
  'Kunstmuseum',
];
const STREETS = [
  'Hauptstraße',
  'Schloßplatz',
  'Am Übungsweg',
  'Bücherstraße',
  'Mühlengasse',
  'Königsallee',
];
const HOURS = ['Mo-Fr 9.00-18.00', 'Mo-Sa 8.00-22.00', 'Di-Do 10.00-16.00', 'Mo, Mi 14.00-19.00'];

function literal(text: string, datatype?: string): string {
  const escaped = text
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r');
  return datatype ? `"${escaped}"^^<${datatype}>` : `"${escaped}"`;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** The four ISIL shapes of the agency's data, and a sub-unit shape (`DE-38-436`). */
function isilShape(random: () => number, n: number): string {
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const letters = (count: number, upper: boolean) =>
    Array.from({ length: count }, () => String.fromCharCode((upper ? 65 : 97) + int(0, 25))).join(
      '',
    );
  const pick = random();
  if (pick < 0.35) return `DE-${int(1, 9999)}`;
  if (pick < 0.55) return `DE-${letters(1, true)}${letters(int(1, 2), false)}${int(1, 999)}`;
  if (pick < 0.8) return `DE-MUS-${pad(int(1, 999_999), 6)}`;
  if (pick < 0.95) return `ZDB-${int(1, 200)}-${letters(int(2, 4), true)}`;
  return `DE-${int(1, 999)}-${n % 1000}`;
}

/** Lines of N-Triples, one institution at a time. */
export function* generate({ count, seed, base }: GenerateOptions): Generator<string> {
  const random = prng(seed);
  const chance = (p: number) => random() < p;
  const pickOf = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const seen = new Set<string>();
  let blank = 0;

  for (let n = 1; n <= count; n++) {
    let isil = isilShape(random, n);
    while (seen.has(isilKey(isil)) || isilDefect(isil) !== undefined) isil = isilShape(random, n);
    seen.add(isilKey(isil));

    const R = `<${base}/resource/organisations/${isil}>`;
    const D = `<${base}/data/organisations/${isil}>`;
    const town = pickOf(TOWNS);
    const name = `${pickOf(KINDS)} ${town} ${n} (synthetisch)`;
    const host = `https://bibliothek-${n}.example.org`;
    const lines: string[] = [];
    const t = (s: string, p: string, o: string) => lines.push(`${s} <${p}> ${o} .\n`);
    const node = () => `_:b${++blank}`;

    t(R, `${rdf}type`, `<${foaf}Organization>`);
    t(R, `${foaf}name`, literal(name));
    if (chance(0.8)) t(R, `${dbp}shortName`, literal(`${town} SB ${n}`));
    t(R, `${dc}identifier`, literal(`(ISIL)${isil}`));
    t(R, `${owl}sameAs`, `<http://lobid.org/organisation/${isil}>`);
    if (chance(0.9)) t(R, `${foaf}homepage`, `<${host}/>`);
    if (chance(0.7)) {
      const opac = node();
      t(R, `${gbv}opac`, opac);
      t(opac, `${rdf}type`, `<${cdtype}CatalogueOrIndex>`);
      t(opac, `${foaf}homepage`, `<${host}/katalog>`);
    }
    if (chance(0.6)) {
      const url = `<${host}/service/auskunft>`;
      t(R, `${v}url`, url);
      t(url, `${dc}description`, literal('Online-Auskunft'));
      if (chance(0.5)) t(url, `${rdf}type`, `<${dcmitype}Service>`);
    }
    if (chance(0.3)) {
      const url = `<${host}/%C3%B6ffnungszeiten>`;
      t(R, `${v}url`, url);
      t(url, `${dc}description`, literal('Öffnungszeiten besonderer Bereiche'));
    }
    const postcode = pad(1000 + Math.floor(random() * 98_000), 5);
    const main = node();
    t(R, `${v}adr`, main);
    t(main, `${rdf}type`, `<${v}Address>`);
    t(main, `${rdf}type`, `<${v}Pref>`);
    t(main, `${v}street-address`, literal(`${pickOf(STREETS)} ${1 + Math.floor(random() * 120)}`));
    t(main, `${v}locality`, literal(town));
    t(main, `${v}postal-code`, literal(postcode));
    if (chance(0.5)) {
      const postal = node();
      t(R, `${v}adr`, postal);
      for (const type of ['Address', 'Postal', 'Parcel']) t(postal, `${rdf}type`, `<${v}${type}>`);
      t(postal, `${v}locality`, literal(town));
      t(postal, `${v}postal-code`, literal(pad(Number(postcode) + 1, 5)));
    }
    if (chance(0.9)) {
      const place = node();
      t(R, `${geo}location`, place);
      t(place, `${rdf}type`, `<${wgs84}SpatialThing>`);
      // Inside Germany: latitude 47.3–55.0, longitude 5.9–15.0; kept as strings, as the original does.
      t(place, `${geo}lat`, literal((47.3 + random() * 7.7).toFixed(5), `${xsd}string`));
      t(place, `${geo}long`, literal((5.9 + random() * 9.1).toFixed(5), `${xsd}string`));
    }
    if (chance(0.7)) {
      const hours = node();
      t(R, `${schema}openingHoursSpecification`, hours);
      t(hours, `${rdf}type`, `<${schema}OpeningHoursSpecification>`);
      t(hours, `${rdfs}comment`, literal(pickOf(HOURS)));
      if (chance(0.5))
        t(
          hours,
          `${schema}description`,
          literal('Servicezeiten s. Link "Öffnungszeiten besonderer Bereiche"'),
        );
    }
    const area = 30 + Math.floor(random() * 900);
    const contacts = 1 + Math.floor(random() * 3);
    for (let c = 0; c < contacts; c++) {
      for (const kind of ['Voice', 'Fax'] as const) {
        if (kind === 'Fax' && !chance(0.6)) continue;
        const tel = node();
        t(R, `${v}tel`, tel);
        t(tel, `${rdf}type`, `<${v}${kind}>`);
        if (c === 0) t(tel, `${rdf}type`, `<${v}Pref>`);
        t(
          tel,
          `${rdf}value`,
          literal(
            `+49 ${area} ${100 + Math.floor(random() * 900)}-${1000 + Math.floor(random() * 9000)}`,
          ),
        );
      }
      t(R, `${v}email`, `<mailto:kontakt${c}@bibliothek-${n}.example.org>`);
    }
    if (chance(0.4))
      t(
        R,
        `${dc}description`,
        literal(`Synthetische Einrichtung für Tests. Übernommene Bibliothek: ${town} ${n + 1}`),
      );
    t(R, `${wdrs}describedby`, D);
    t(D, `${dcterms}license`, `<${CC0}>`);
    const modified = new Date(
      Date.UTC(2005, 0, 1) + Math.floor(random() * 20 * 365.25 * 86_400) * 1000,
    );
    t(D, `${dcterms}modified`, literal(modified.toISOString().replace('Z', ''), `${xsd}dateTime`));
    yield lines.join('');
  }
}

/** Plainly synthetic states and contact labels for the PICA+ records. */
const STATES = ['Nordrhein-Westfalen', 'Baden-Württemberg', 'Thüringen', 'Niedersachsen', 'Berlin'];
const CONTACTS = ['Fernleihe', 'Benutzung', 'Auskunft', 'Gebende Fernleihe', 'Nehmende Fernleihe'];

/** The PPN check digit: weights 2, 3, … from the right, modulo 11, 10 written `X`. */
function ppn(serial: number): string {
  const digits = String(serial).padStart(9, '0');
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += Number(digits[digits.length - 1 - i]) * (i + 2);
  const check = (11 - (sum % 11)) % 11;
  return `${digits}${check === 10 ? 'X' : check}`;
}

/**
 * Lines of normalized PICA+, one record a line, in the shape of the agency's real records
 * (`isil-directory_pica-plain_8-records.dat`): the padded PPN header, the fields in tag order, text
 * in NFD as the source has it. Most records are status H; ZDB products are P; a few are N (no
 * address) and I (withdrawn, most naming the ISIL they went into); about a third have the 035E
 * of the format since 16 September 2025 (type codes `00`, `83`, `85`, subfield `$m`). Some
 * addresses and contacts carry the display flag `n`, and some later contacts repeat the main phone
 * number, as real ones do.
 */
export function* generatePica({ count, seed }: Omit<GenerateOptions, 'base'>): Generator<string> {
  const random = prng(seed);
  const chance = (p: number) => random() < p;
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const pickOf = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const seen = new Set<string>();
  const earlier: string[] = [];
  const day = (date: Date) =>
    `${pad(date.getUTCDate(), 2)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCFullYear() % 100, 2)}`;
  const ERA_2025 = Date.UTC(2025, 8, 16);

  for (let n = 1; n <= count; n++) {
    let isil = isilShape(random, n);
    while (seen.has(isilKey(isil)) || isilDefect(isil) !== undefined) isil = isilShape(random, n);
    seen.add(isilKey(isil));

    const id = ppn(9_000_000 + n);
    const town = pickOf(TOWNS);
    const host = `https://bibliothek-${n}.example.org`;
    const fields: string[] = [];
    const field = (tag: string, ...subfields: [string, string | undefined][]) =>
      fields.push(
        `${tag} ${subfields
          .filter(([, value]) => value !== undefined && value !== '')
          .map(([code, value]) => `\x1f${code}${value!.normalize('NFD')}`)
          .join('')}\x1e`,
      );
    const status = isil.startsWith('ZDB-') ? 'P' : chance(0.03) ? 'N' : chance(0.03) ? 'I' : 'H';
    const newEra = chance(0.3);
    const created = Date.UTC(1999, 10, 18) + int(0, 20 * 365) * 86_400_000;
    const modified = newEra
      ? ERA_2025 + int(0, 70) * 86_400_000
      : Date.UTC(2005, 0, 1) + int(0, 20 * 365) * 86_400_000;
    const time = `${pad(int(7, 19), 2)}:${pad(int(0, 59), 2)}:${pad(int(0, 59), 2)}.000`;

    field('001A', ['0', `9006:${day(new Date(created))}`]);
    field('001B', ['0', `${newEra ? 9999 : 9006}:${day(new Date(modified))}`], ['t', time]);
    field('001D', ['0', `9999:${day(new Date(created))}`]);
    field('001U', ['0', 'utf8']);
    field('001X', ['0', '0']);
    field('002@', ['0', 'Tw']);
    field('003@', ['0', id]);
    field(
      '008H',
      ['a', newEra ? undefined : `${int(100000, 999999)}-${int(0, 9)}`],
      [
        'b',
        chance(0.5) ? `A${String.fromCharCode(65 + int(0, 25))}${pad(n % 1000, 3)}` : undefined,
      ],
      ['d', chance(0.7) ? `${town.slice(0, 2)} ${n}` : undefined],
      ['e', isil],
    );
    const name = `${pickOf(KINDS)} ${town} ${n} (synthetisch)`;
    if (status === 'I') {
      field('029A', ['a', `früher: ${name}`]);
      field('035E', ['a', 'I'], ['f', newEra ? '00' : undefined]);
      const successor = earlier.length > 0 && chance(0.8) ? pickOf(earlier) : undefined;
      field('047A', ['a', successor ? `Aufgegangen in ${successor}` : 'Geschlossen']);
    } else {
      field('009Q', ['u', `${host}/`], ['z', 'A']);
      if (chance(0.7)) field('009Q', ['u', `${host}/katalog`], ['z', 'B']);
      if (chance(0.5))
        field('009Q', ['u', `${host}/service/auskunft`], ['x', 'Online-Auskunft'], ['z', 'W']);
      if (chance(0.3))
        field(
          '009Q',
          ['u', `${host}/%C3%B6ffnungszeiten`],
          ['x', 'Öffnungszeiten besonderer Bereiche'],
          ['z', 'W'],
        );
      if (chance(0.4)) field('029@', ['a', `${town} Bibl ${n}`], ['4', 'a']);
      if (chance(0.8)) field('029@', ['a', `${town} SB ${n}`], ['4', 'c']);
      field('029A', ['a', name]);
      const postcode = pad(int(1000, 99_000), 5);
      const state = pickOf(STATES);
      if (status !== 'N') {
        field(
          '032P',
          ['a', `${pickOf(STREETS)} ${int(1, 120)}`],
          ['b', town],
          ['d', 'DE'],
          ['e', postcode],
          ['f', state],
          ['i', chance(0.7) ? pickOf(HOURS) : undefined],
          [
            'j',
            chance(0.3) ? 'Servicezeiten s. Link "Öffnungszeiten besonderer Bereiche"' : undefined,
          ],
          // Inside Germany: latitude 47.3–55.0, longitude 5.9–15.0.
          ['k', (5.9 + random() * 9.1).toFixed(5)],
          ['l', (47.3 + random() * 7.7).toFixed(5)],
          ['n', pad(int(1_000_000, 16_999_999), 8)],
          ['p', 'j'],
          ['2', 'S'],
        );
        if (chance(0.5))
          field(
            '032P',
            ['b', town],
            ['d', 'DE'],
            ['e', pad(Number(postcode) + 1, 5)],
            ['f', state],
            ['p', chance(0.1) ? 'n' : 'j'],
            ['2', 'P'],
          );
      }
      const area = String(int(30, 999));
      const number = () => `${int(1, 9)} ${int(10, 99)}-${int(1000, 99999)}`;
      const main = number();
      field(
        '035B',
        ['a', 'S'],
        ['c', 'j'],
        ['d', '49'],
        ['e', area],
        ['f', main],
        ...(chance(0.6)
          ? ([
              ['g', '49'],
              ['h', area],
              ['i', number()],
            ] as [string, string][])
          : []),
        ['k', `info@bibliothek-${n}.example.org`],
        ['l', chance(0.3) ? 'Auskunft' : undefined],
      );
      for (let c = int(0, 2); c > 0; c--)
        field(
          '035B',
          ['a', 'W'],
          ['b', pickOf(CONTACTS)],
          ['c', chance(0.1) ? 'n' : 'j'],
          ['d', '49'],
          ['e', area],
          ['f', chance(0.3) ? main : number()],
          ['k', `kontakt${c}@bibliothek-${n}.example.org`],
        );
      if (chance(0.5)) field('035D', ['a', `${town.slice(0, 2)} ${n + 1}`]);
      field(
        '035E',
        ['a', status],
        ...((newEra
          ? [
              ['b', 'm'],
              ['f', pickOf(['00', '83', '85'])],
              ['g', '02'],
              ['h', '04'],
              ['m', chance(0.5) ? 'x' : undefined],
            ]
          : [
              ['b', 's'],
              ['c', pad(int(1, 200), 4)],
              ['d', pickOf(['GBV', 'HBZ', 'SWB', 'BVB'])],
              ['f', pickOf(['11', '15', '60', '81', '89'])],
              ['g', '07'],
              ['h', '10'],
              ['l', 'CC0'],
            ]) as [string, string | undefined][]),
      );
      if (chance(0.5)) field('035G', ['a', 'Geschichte'], ['a', 'Kunst']);
      if (chance(0.4))
        field('047A', [
          'a',
          `Synthetische Einrichtung für Tests. Übernommene Bibliothek: ${town} ${n + 1}`,
        ]);
    }
    field('050D', [
      'a',
      `ANF${new Date(modified).getUTCFullYear()}; Auftragsbestätigung: synthetisch`,
    ]);
    earlier.push(isil);
    yield `${id.slice(0, -1).padEnd(23, ' ')}\x1e${fields.join('')}\n`;
  }
}

const USAGE =
  'usage: npm run generate -- --count N --out FILE [--seed S] [--format nt|pica] [--base IRI]';

export function main(argv: readonly string[]): number {
  let values: { count?: string; out?: string; seed?: string; base?: string; format?: string };
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        count: { type: 'string' },
        out: { type: 'string' },
        seed: { type: 'string' },
        base: { type: 'string' },
        format: { type: 'string' },
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
            : format !== 'nt' && format !== 'pica'
              ? '--format: nt (N-Triples, the default) or pica (normalized PICA+)'
              : undefined;
  if (problem) {
    process.stderr.write(`${problem}\n${USAGE}\n`);
    return 2;
  }
  const fd = fs.openSync(values.out!, 'w');
  const institutions =
    format === 'pica' ? generatePica({ count, seed }) : generate({ count, seed, base });
  let lines = 0;
  try {
    let batch = '';
    for (const institution of institutions) {
      batch += institution;
      if (batch.length > 1 << 20) {
        fs.writeSync(fd, batch);
        lines += batch.split('\n').length - 1;
        batch = '';
      }
    }
    fs.writeSync(fd, batch);
    lines += batch.split('\n').length - 1;
  } finally {
    fs.closeSync(fd);
  }
  process.stderr.write(
    format === 'pica'
      ? `generated ${count} PICA+ records, seed ${seed}: ${values.out}\n`
      : `generated ${count} institutions, ${lines} triples, seed ${seed}: ${values.out}\n`,
  );
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
