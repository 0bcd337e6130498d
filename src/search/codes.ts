// The identifiers (ISIL and Sigel, each as its words and as one word) and postcodes of the
// entries, for search (src/search/searchIndex.ts). Most of them are held by one institution alone:
// in MiniSearch, each such word cost a node of its tree and two maps, most of the index's memory
// (docs/benchmark.md, "codes beside MiniSearch"). Here they are one sorted array of words and one
// array of positions: a word's entries are a contiguous range.
import type { FlatRecord } from '../record/flatRecord';
import { words } from './fold';

/** A code is found by its beginning from this many characters, as MiniSearch finds words. */
const MIN_PREFIX = 3;
/** What a code found by its beginning counts against one found whole (MiniSearch's `prefix`). */
const PREFIX_WEIGHT = 0.5;

/** Where `word` is, or would be, in `sorted`: the first position not before it. */
export function lowerBound(sorted: readonly string[], word: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < word) low = middle + 1;
    else high = middle;
  }
  return low;
}

export class Codes {
  /** The codes, sorted. */
  private readonly terms: string[];
  /** Where each code's entries start in `positions`; one more, the end. */
  private readonly starts: Uint32Array;
  /** The positions of the entries holding each code, ascending within a code. */
  private readonly positions: Uint32Array;

  constructor(
    private readonly size: number,
    codesOf: Iterable<readonly [number, Iterable<string>]>,
  ) {
    const byTerm = new Map<string, number[]>();
    for (const [position, codes] of codesOf)
      for (const code of new Set(codes)) {
        if (!code) continue;
        const list = byTerm.get(code);
        if (list) list.push(position);
        else byTerm.set(code, [position]);
      }
    this.terms = [...byTerm.keys()].sort();
    this.starts = new Uint32Array(this.terms.length + 1);
    let count = 0;
    this.terms.forEach((term, i) => {
      this.starts[i] = count;
      count += byTerm.get(term)!.length;
    });
    this.starts[this.terms.length] = count;
    this.positions = new Uint32Array(count);
    this.terms.forEach((term, i) => this.positions.set(byTerm.get(term)!, this.starts[i]!));
  }

  /**
   * Adds to `into` the entries holding `word` (folded) whole, or, from `MIN_PREFIX` characters, a
   * code it begins, each with a score as BM25 weighs a word in one field (rarer counts more),
   * times `boost`; an entry holding several such codes counts its best.
   */
  score(word: string, boost: number, into: Map<number, number>): void {
    for (let i = lowerBound(this.terms, word); i < this.terms.length; i++) {
      const term = this.terms[i]!;
      if (!term.startsWith(word)) break;
      const whole = term.length === word.length;
      if (!whole && word.length < MIN_PREFIX) break;
      const from = this.starts[i]!;
      const to = this.starts[i + 1]!;
      const held = to - from;
      const rarity = Math.log(1 + (this.size - held + 0.5) / (held + 0.5));
      const score = boost * (whole ? 1 : PREFIX_WEIGHT) * rarity;
      for (let at = from; at < to; at++) {
        const position = this.positions[at]!;
        const before = into.get(position);
        if (before === undefined || before < score) into.set(position, score);
      }
    }
  }
}

/** The codes of an entry's identifiers: `DE-Tue120` and `Tü 120` as their words and as one word. */
export function identifierCodes(entry: FlatRecord): string[] {
  const ids = [entry.isil, ...(entry.sigel ? [entry.sigel] : [])];
  return ids.flatMap((id) => {
    const parts = words(id);
    return [...parts, parts.join('')];
  });
}
