// Synthetic source records in normalized PICA+, shaped like the agency's real ones
// (`isil-directory_pica-plain_8-records.dat`): the same bytes for the same seed.
import { Draw, HOURS, KINDS, pad, STREETS, TOWNS } from '../src/generate/synthetic';

/** Plainly synthetic states and contact labels for the PICA+ records. */
const STATES = ['Nordrhein-Westfalen', 'Baden-Württemberg', 'Thüringen', 'Niedersachsen', 'Berlin'];
const CONTACTS = ['Fernleihe', 'Benutzung', 'Auskunft', 'Gebende Fernleihe', 'Nehmende Fernleihe'];
/** Records modified since then have the 035E of the format of 16 September 2025. */
const ERA_2025 = Date.UTC(2025, 8, 16);

/** The PPN check digit: weights 2, 3, … from the right, modulo 11, 10 written `X`. */
function ppn(serial: number): string {
  const digits = String(serial).padStart(9, '0');
  let sum = 0;
  for (let i = 0; i < digits.length; i++) sum += Number(digits[digits.length - 1 - i]) * (i + 2);
  const check = (11 - (sum % 11)) % 11;
  return `${digits}${check === 10 ? 'X' : check}`;
}

const day = (date: Date) =>
  `${pad(date.getUTCDate(), 2)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCFullYear() % 100, 2)}`;

type Subfield = [string, string | undefined];

/** One record being written: what its fields are made from, and the fields so far. */
interface Record {
  readonly draw: Draw;
  readonly n: number;
  readonly isil: string;
  readonly town: string;
  readonly host: string;
  readonly newEra: boolean;
  readonly fields: string[];
}

/** A field: its tag and the subfields that have a value, in NFD as the source has text. */
function field(r: Record, tag: string, ...subfields: Subfield[]): void {
  r.fields.push(
    `${tag} ${subfields
      .filter(([, value]) => value !== undefined && value !== '')
      .map(([code, value]) => `\x1f${code}${value!.normalize('NFD')}`)
      .join('')}\x1e`,
  );
}

/** The record's administration fields and 008H (ISIL, Sigel); returns when it was modified. */
function administration(r: Record, id: string): number {
  const { draw, n, isil, town, newEra } = r;
  const created = Date.UTC(1999, 10, 18) + draw.int(0, 20 * 365) * 86_400_000;
  const modified = newEra
    ? ERA_2025 + draw.int(0, 70) * 86_400_000
    : Date.UTC(2005, 0, 1) + draw.int(0, 20 * 365) * 86_400_000;
  const time = `${pad(draw.int(7, 19), 2)}:${pad(draw.int(0, 59), 2)}:${pad(draw.int(0, 59), 2)}.000`;
  field(r, '001A', ['0', `9006:${day(new Date(created))}`]);
  field(r, '001B', ['0', `${newEra ? 9999 : 9006}:${day(new Date(modified))}`], ['t', time]);
  field(r, '001D', ['0', `9999:${day(new Date(created))}`]);
  field(r, '001U', ['0', 'utf8']);
  field(r, '001X', ['0', '0']);
  field(r, '002@', ['0', 'Tw']);
  field(r, '003@', ['0', id]);
  field(
    r,
    '008H',
    ['a', newEra ? undefined : `${draw.int(100000, 999999)}-${draw.int(0, 9)}`],
    [
      'b',
      draw.chance(0.5)
        ? `A${String.fromCharCode(65 + draw.int(0, 25))}${pad(n % 1000, 3)}`
        : undefined,
    ],
    ['d', draw.chance(0.7) ? `${town.slice(0, 2)} ${n}` : undefined],
    ['e', isil],
  );
  return modified;
}

/** A withdrawn record: its former name, status I, and most often the ISIL it went into. */
function withdrawn(r: Record, name: string, earlier: readonly string[]): void {
  field(r, '029A', ['a', `früher: ${name}`]);
  field(r, '035E', ['a', 'I'], ['f', r.newEra ? '00' : undefined]);
  const successor = earlier.length > 0 && r.draw.chance(0.8) ? r.draw.pickOf(earlier) : undefined;
  field(r, '047A', ['a', successor ? `Aufgegangen in ${successor}` : 'Geschlossen']);
}

/** 009Q web pages, 029@ other names, 029A the name. */
function names(r: Record, name: string): void {
  const { draw, n, town, host } = r;
  field(r, '009Q', ['u', `${host}/`], ['z', 'A']);
  if (draw.chance(0.7)) field(r, '009Q', ['u', `${host}/katalog`], ['z', 'B']);
  if (draw.chance(0.5))
    field(r, '009Q', ['u', `${host}/service/auskunft`], ['x', 'Online-Auskunft'], ['z', 'W']);
  if (draw.chance(0.3))
    field(
      r,
      '009Q',
      ['u', `${host}/%C3%B6ffnungszeiten`],
      ['x', 'Öffnungszeiten besonderer Bereiche'],
      ['z', 'W'],
    );
  if (draw.chance(0.4)) field(r, '029@', ['a', `${town} Bibl ${n}`], ['4', 'a']);
  if (draw.chance(0.8)) field(r, '029@', ['a', `${town} SB ${n}`], ['4', 'c']);
  field(r, '029A', ['a', name]);
}

/** 032P: the main address with coordinates and hours, and sometimes a postal one (none for N). */
function addresses(r: Record, status: string): void {
  const { draw, town } = r;
  const postcode = pad(draw.int(1000, 99_000), 5);
  const state = draw.pickOf(STATES);
  if (status === 'N') return;
  field(
    r,
    '032P',
    ['a', `${draw.pickOf(STREETS)} ${draw.int(1, 120)}`],
    ['b', town],
    ['d', 'DE'],
    ['e', postcode],
    ['f', state],
    ['i', draw.chance(0.7) ? draw.pickOf(HOURS) : undefined],
    [
      'j',
      draw.chance(0.3) ? 'Servicezeiten s. Link "Öffnungszeiten besonderer Bereiche"' : undefined,
    ],
    // Inside Germany: latitude 47.3–55.0, longitude 5.9–15.0.
    ['k', (5.9 + draw.random() * 9.1).toFixed(5)],
    ['l', (47.3 + draw.random() * 7.7).toFixed(5)],
    ['n', pad(draw.int(1_000_000, 16_999_999), 8)],
    ['p', 'j'],
    ['2', 'S'],
  );
  if (draw.chance(0.5))
    field(
      r,
      '032P',
      ['b', town],
      ['d', 'DE'],
      ['e', pad(Number(postcode) + 1, 5)],
      ['f', state],
      ['p', draw.chance(0.1) ? 'n' : 'j'],
      ['2', 'P'],
    );
}

/** 035B: the main contact (phone, maybe fax, e-mail) and up to two more; 035D sometimes. */
function contacts(r: Record): void {
  const { draw, n, town } = r;
  const area = String(draw.int(30, 999));
  const number = () => `${draw.int(1, 9)} ${draw.int(10, 99)}-${draw.int(1000, 99999)}`;
  const main = number();
  const fax: Subfield[] = draw.chance(0.6)
    ? [
        ['g', '49'],
        ['h', area],
        ['i', number()],
      ]
    : [];
  field(
    r,
    '035B',
    ['a', 'S'],
    ['c', 'j'],
    ['d', '49'],
    ['e', area],
    ['f', main],
    ...fax,
    ['k', `info@bibliothek-${n}.example.org`],
    ['l', draw.chance(0.3) ? 'Auskunft' : undefined],
  );
  for (let c = draw.int(0, 2); c > 0; c--)
    field(
      r,
      '035B',
      ['a', 'W'],
      ['b', draw.pickOf(CONTACTS)],
      ['c', draw.chance(0.1) ? 'n' : 'j'],
      ['d', '49'],
      ['e', area],
      ['f', draw.chance(0.3) ? main : number()],
      ['k', `kontakt${c}@bibliothek-${n}.example.org`],
    );
  if (draw.chance(0.5)) field(r, '035D', ['a', `${town.slice(0, 2)} ${n + 1}`]);
}

/** 035E status and type in the format of its era, 035G subjects, 047A a note. */
function classification(r: Record, status: string): void {
  const { draw, n, town, newEra } = r;
  const era: Subfield[] = newEra
    ? [
        ['b', 'm'],
        ['f', draw.pickOf(['00', '83', '85'])],
        ['g', '02'],
        ['h', '04'],
        ['m', draw.chance(0.5) ? 'x' : undefined],
      ]
    : [
        ['b', 's'],
        ['c', pad(draw.int(1, 200), 4)],
        ['d', draw.pickOf(['GBV', 'HBZ', 'SWB', 'BVB'])],
        ['f', draw.pickOf(['11', '15', '60', '81', '89'])],
        ['g', '07'],
        ['h', '10'],
        ['l', 'CC0'],
      ];
  field(r, '035E', ['a', status], ...era);
  if (draw.chance(0.5)) field(r, '035G', ['a', 'Geschichte'], ['a', 'Kunst']);
  if (draw.chance(0.4))
    field(r, '047A', [
      'a',
      `Synthetische Einrichtung für Tests. Übernommene Bibliothek: ${town} ${n + 1}`,
    ]);
}

/**
 * Lines of normalized PICA+, one record a line, in the shape of the agency's real records: the
 * padded PPN header, the fields in tag order, text in NFD as the source has it. Most records are
 * status H; ZDB products are P; a few are N (no address) and I (withdrawn, most naming the ISIL
 * they went into); about a third have the 035E of the format since 16 September 2025 (type codes
 * `00`, `83`, `85`, subfield `$m`). Some addresses and contacts carry the display flag `n`, and
 * some later contacts repeat the main phone number, as real ones do.
 */
export function* generatePica({ count, seed }: { count: number; seed: number }): Generator<string> {
  const draw = new Draw(seed);
  const earlier: string[] = [];
  for (let n = 1; n <= count; n++) {
    const isil = draw.isil(n);
    const id = ppn(9_000_000 + n);
    const town = draw.pickOf(TOWNS);
    const host = `https://bibliothek-${n}.example.org`;
    const status = isil.startsWith('ZDB-')
      ? 'P'
      : draw.chance(0.03)
        ? 'N'
        : draw.chance(0.03)
          ? 'I'
          : 'H';
    const r: Record = { draw, n, isil, town, host, newEra: draw.chance(0.3), fields: [] };
    const modified = administration(r, id);
    const name = `${draw.pickOf(KINDS)} ${town} ${n} (synthetisch)`;
    if (status === 'I') withdrawn(r, name, earlier);
    else {
      names(r, name);
      addresses(r, status);
      contacts(r);
      classification(r, status);
    }
    field(r, '050D', [
      'a',
      `ANF${new Date(modified).getUTCFullYear()}; Auftragsbestätigung: synthetisch`,
    ]);
    earlier.push(isil);
    yield `${id.slice(0, -1).padEnd(23, ' ')}\x1e${r.fields.join('')}\n`;
  }
}
