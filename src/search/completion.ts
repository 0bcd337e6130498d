// Autocomplete: the institutions whose names, ISIL or Sigel hold every typed word as the
// start of one of theirs, best first. MiniSearch answers the search page, but its prefix search
// scores every posting of a short prefix: far over the goal of docs/benchmark.md, "suggestion, the
// index's own time". This index keeps, per folded word, the sorted positions of the
// entries that hold it; a query intersects the postings of its words (each word by prefix, the
// smallest list first) and ranks what is left: names that start with the first word first, then
// shorter names, then by name.
import { identifierCodes, lowerBound } from './codes';
import { words } from './fold';
import type { FlatRecord } from '../record/flatRecord';

/** Words shorter than this match whole only, not as a prefix: `b` would match half the index. */
const MIN_PREFIX = 2;
/**
 * Short prefixes stand for many words (`un`, `uni`, `univ`): the union of their postings is made
 * once, when the index is built, for every prefix up to this length that covers more than
 * `WIDE` words; others are merged when asked.
 */
const KEPT_PREFIX = 4;
const WIDE = 16;

export class Completion {
  /** The vocabulary, sorted: a prefix's words are a contiguous range. */
  private readonly vocabulary: string[];
  /** Per word of the vocabulary (same order), the ascending positions of the entries holding it. */
  private readonly postings: Uint32Array[];
  private readonly keys: string[];
  private readonly lengths: Uint16Array;
  private readonly wide = new Map<string, Uint32Array>();

  constructor(private readonly entries: readonly FlatRecord[]) {
    const byWord = new Map<string, number[]>();
    this.keys = new Array<string>(entries.length);
    this.lengths = new Uint16Array(entries.length);
    entries.forEach((entry, i) => {
      const nameWords = words(entry.name);
      this.keys[i] = nameWords.join(' ');
      this.lengths[i] = Math.min(nameWords.length, 65_535);
      const own = new Set([
        ...nameWords,
        ...entry.otherNames.flatMap(words),
        ...identifierCodes(entry),
      ]);
      for (const word of own) {
        if (!word) continue;
        const list = byWord.get(word);
        if (list) list.push(i);
        else byWord.set(word, [i]);
      }
    });
    this.vocabulary = [...byWord.keys()].sort();
    this.postings = this.vocabulary.map((w) => Uint32Array.from(byWord.get(w)!));
    for (let length = MIN_PREFIX; length <= KEPT_PREFIX; length++) {
      let start = 0;
      while (start < this.vocabulary.length) {
        const prefix = this.vocabulary[start]!.slice(0, length);
        let end = start + 1;
        while (end < this.vocabulary.length && this.vocabulary[end]!.startsWith(prefix)) end++;
        if (prefix.length === length && end - start > WIDE)
          this.wide.set(prefix, this.union(start, end));
        start = end;
      }
    }
  }

  /** The entries holding any of the words `start` to `end` of the vocabulary, ascending. */
  private union(start: number, end: number): Uint32Array {
    const seen = new Uint8Array(this.entries.length);
    let count = 0;
    for (let w = start; w < end; w++)
      for (const i of this.postings[w]!)
        if (!seen[i]) {
          seen[i] = 1;
          count++;
        }
    const out = new Uint32Array(count);
    for (let i = 0, n = 0; i < seen.length; i++) if (seen[i]) out[n++] = i;
    return out;
  }

  /** The entries holding a word that starts with `prefix` (or is `prefix`, when short), ascending. */
  private matching(prefix: string): Uint32Array {
    const start = lowerBound(this.vocabulary, prefix);
    if (prefix.length < MIN_PREFIX)
      return this.vocabulary[start] === prefix ? this.postings[start]! : new Uint32Array(0);
    const kept = this.wide.get(prefix);
    if (kept) return kept;
    let end = start;
    while (end < this.vocabulary.length && this.vocabulary[end]!.startsWith(prefix)) end++;
    if (end - start === 1) return this.postings[start]!;
    return this.union(start, end);
  }

  /** How many entries hold `word` (folded) among their names and identifiers. */
  frequency(word: string): number {
    const at = lowerBound(this.vocabulary, word);
    return this.vocabulary[at] === word ? this.postings[at]!.length : 0;
  }

  /** The longest start of `word` (folded) that begins a word of the names or identifiers. */
  longestStart(word: string): string {
    const at = lowerBound(this.vocabulary, word);
    const shared = (other: string | undefined) => {
      let n = 0;
      while (other !== undefined && n < word.length && word[n] === other[n]) n++;
      return n;
    };
    return word.slice(0, Math.max(shared(this.vocabulary[at]), shared(this.vocabulary[at - 1])));
  }

  /** The entries that hold `word` (folded) whole, at most `limit`. */
  holding(word: string, limit: number): FlatRecord[] {
    const at = lowerBound(this.vocabulary, word);
    if (this.vocabulary[at] !== word) return [];
    return [...this.postings[at]!.subarray(0, limit)].map((i) => this.entries[i]!);
  }

  /** Up to `limit` entries for what is being typed. */
  suggest(query: string, limit = 10): FlatRecord[] {
    const typed = [...new Set(words(query))];
    if (typed.length === 0) return [];
    const lists = typed.map((w) => this.matching(w)).sort((a, b) => a.length - b.length);
    let found: Uint32Array = lists[0]!;
    for (const list of lists.slice(1)) {
      if (found.length === 0) break;
      found = intersect(found, list);
    }
    const first = typed[0]!;
    const rank = (i: number): number =>
      (this.keys[i]!.startsWith(first) ? 0 : 1e6) + this.lengths[i]!;
    // The best `limit`, kept sorted as the candidates pass.
    const best: number[] = [];
    for (let k = 0; k < found.length; k++) {
      const i = found[k]!;
      if (best.length === limit && !this.before(i, best[limit - 1]!, rank)) continue;
      let at = best.length;
      while (at > 0 && this.before(i, best[at - 1]!, rank)) at--;
      best.splice(at, 0, i);
      if (best.length > limit) best.pop();
    }
    return best.map((i) => this.entries[i]!);
  }

  /** Whether entry `a` comes before `b`. */
  private before(a: number, b: number, rank: (i: number) => number): boolean {
    const d = rank(a) - rank(b);
    return d !== 0 ? d < 0 : this.keys[a]! < this.keys[b]!;
  }
}

/** The positions in both ascending lists (the shorter one first). */
function intersect(small: Uint32Array, large: Uint32Array): Uint32Array {
  const out = new Uint32Array(small.length);
  let n = 0;
  let j = 0;
  for (let k = 0; k < small.length && j < large.length; k++) {
    const v = small[k]!;
    while (j < large.length && large[j]! < v) j++;
    if (large[j] === v) out[n++] = v;
  }
  return out.subarray(0, n);
}
