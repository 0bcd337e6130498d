// What both synthetic generators draw from (generated.ts, cli/generatePica.ts): a seeded PRNG, plainly
// synthetic names, and the ISIL shapes of the agency's data. The same seed gives the same bytes.
import { isilDefect, isilKey } from '../rdf/isil';

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
export const TOWNS = [
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
export const KINDS = [
  'Stadtbibliothek',
  'Universitätsbibliothek',
  'Landesbibliothek',
  'Kreisarchiv',
  'Stadtmuseum',
  'Hochschulbibliothek',
  'Forschungsbibliothek',
  'Kunstmuseum',
];
export const STREETS = [
  'Hauptstraße',
  'Schloßplatz',
  'Am Übungsweg',
  'Bücherstraße',
  'Mühlengasse',
  'Königsallee',
];
export const HOURS = [
  'Mo-Fr 9.00-18.00',
  'Mo-Sa 8.00-22.00',
  'Di-Do 10.00-16.00',
  'Mo, Mi 14.00-19.00',
];

export function literal(text: string, datatype?: string): string {
  const escaped = text
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r');
  return datatype ? `"${escaped}"^^<${datatype}>` : `"${escaped}"`;
}

export const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** The four ISIL shapes of the agency's data, and a sub-unit shape (`DE-38-436`). */
export function isilShape(random: () => number, n: number): string {
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

/** The draws of one generator run, all from one seeded sequence. */
export class Draw {
  readonly random: () => number;
  private readonly seen = new Set<string>();

  constructor(seed: number) {
    this.random = prng(seed);
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.random() * (hi - lo + 1));
  }

  pickOf<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)]!;
  }

  /** The ISIL of institution `n`: well-formed, and unlike any drawn before in any case. */
  isil(n: number): string {
    let isil = isilShape(this.random, n);
    while (this.seen.has(isilKey(isil)) || isilDefect(isil) !== undefined)
      isil = isilShape(this.random, n);
    this.seen.add(isilKey(isil));
    return isil;
  }
}
