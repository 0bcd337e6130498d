// The search index of one dataset version, in MiniSearch (chosen by a measurement,
// docs/search.md). Names, other names, ISIL, Sigel, city and
// postcode are folded the German way (src/search/fold.ts); words are matched by prefix and with
// small typos, identifiers and postcodes by prefix (src/search/codes.ts keeps them, out of
// MiniSearch). Results are ranked by BM25 (a name and an identifier count most, then other names,
// then places), or by distance. Facets count the matches by city, ISIL prefix and type; geo filters
// keep those near a point or inside a box.
import MiniSearch, { type SearchOptions } from 'minisearch';
import { Codes, identifierCodes } from './codes';
import { Completion } from './completion';
import { words } from './fold';
import type { InstitutionType, FlatRecord } from '../record/flatRecord';
import { MAX_QUERY_WORDS, townsNamed } from './likeness';
import { fieldedSearch, type Found, type Lookup } from './fielded';
import { distanceKm, keeper, type GeoPoint } from './filters';

export { distanceKm, type GeoPoint };
import type { FieldedQuery } from './query';

type Field = 'name' | 'other' | 'place';
const FIELDS: readonly Field[] = ['name', 'other', 'place'];

/** The words of an entry's field, as the index keeps them (already folded). */
function fieldWords(entry: FlatRecord, field: Field): string[] {
  switch (field) {
    case 'name':
      return words(entry.name);
    case 'other':
      return entry.otherNames.flatMap(words);
    case 'place':
      return entry.cities.flatMap(words);
  }
}

export interface SearchRequest {
  /** What was typed; empty: every institution (filtered). */
  readonly q: string;
  /** `q` as a fielded query (src/search/query.ts), when it uses the grammar. */
  readonly fielded?: FieldedQuery;
  readonly city?: string;
  readonly country?: string;
  /** A kind, or `unknown`: those whose data names none. */
  readonly type?: InstitutionType | 'unknown';
  /** Within `radiusKm` of the point. */
  readonly near?: GeoPoint & { readonly radiusKm: number };
  /** West, south, east, north, in degrees. */
  readonly bbox?: readonly [number, number, number, number];
  readonly sort?: 'relevance' | 'distance';
  readonly offset?: number;
  readonly limit?: number;
}

export interface Hit {
  readonly entry: FlatRecord;
  readonly score: number;
  /** Kilometres from `near`, when asked near a point. */
  readonly distanceKm: number | undefined;
}

export interface FacetCount {
  readonly value: string;
  readonly count: number;
}

export interface SearchAnswer {
  readonly total: number;
  readonly hits: readonly Hit[];
  readonly facets: {
    readonly city: readonly FacetCount[];
    readonly country: readonly FacetCount[];
    readonly type: readonly FacetCount[];
  };
}

/** Typo tolerance: none for short words, one edit from five letters, two from ten. */
const typos = (term: string): number => (term.length >= 10 ? 2 : term.length >= 5 ? 1 : 0);

const SEARCH: SearchOptions = {
  boost: { name: 3, other: 2, place: 1 },
  prefix: (term) => term.length >= 3,
  fuzzy: (term) => typos(term),
  maxFuzzy: 2,
  weights: { prefix: 0.5, fuzzy: 0.35 },
};

/**
 * What an identifier and a postcode count for, beside the fields' boosts above. A postcode typed
 * whole counts for more than an ISIL's number it begins (`10772` is DE-1a's postcode before it is
 * the start of `DE-MUS-107720`): an identifier's beginning counts half, so a postcode counts 2.
 */
const IDENTIFIER_BOOST = 3;
const POSTCODE_BOOST = 2;

const FACET_SIZE = 20;

function countBy(values: Iterable<string>): FacetCount[] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value, 'de'))
    .slice(0, FACET_SIZE);
}

const byName = new Intl.Collator('de', { sensitivity: 'base', numeric: true });

export class SearchIndex {
  private readonly mini: MiniSearch<number>;
  private readonly byIsil: ReadonlyMap<string, number>;
  private readonly identifiers: Codes;
  private readonly postcodes: Codes;
  /**
   * Institutions by their ISIL or Sigel as one word (`detue120`, `tue120`). `identifiers` holds the
   * same codes, but also each identifier's words: telling the whole from a word of another there
   * folds every holder's identifiers again, which made a short query such as `de` slower by
   * several times its own time (docs/benchmark.md, "whole identifiers").
   */
  private readonly wholeIdentifiers = new Map<string, number[]>();
  private completion: Completion | undefined;
  /** The towns the names and cities tell of (src/search/likeness.ts), for reconciliation. */
  private townWords: ReadonlySet<string> = new Set();

  private constructor(
    readonly version: string,
    private readonly entries: readonly FlatRecord[],
  ) {
    this.mini = new MiniSearch<number>({
      idField: 'id',
      fields: [...FIELDS],
      // Documents are positions in `entries`; each field is read from the entry.
      extractField: (id, field) =>
        field === 'id'
          ? String(id)
          : fieldWords(entries[id as unknown as number]!, field as Field).join(' '),
      tokenize: (text, field) => (field === undefined ? words(text) : text.split(' ')),
      processTerm: (term) => term || null,
      searchOptions: SEARCH,
    });
    this.byIsil = new Map(entries.map((e, i) => [e.isil, i]));
    this.identifiers = new Codes(
      entries.length,
      entries.map((e, i) => [i, identifierCodes(e)] as const),
    );
    this.postcodes = new Codes(
      entries.length,
      entries.map((e, i) => [i, e.postcodes.flatMap(words)] as const),
    );
    entries.forEach((e, i) => {
      for (const id of [e.isil, e.sigel]) {
        const key = id && words(id).join('');
        if (!key) continue;
        const list = this.wholeIdentifiers.get(key);
        if (!list) this.wholeIdentifiers.set(key, [i]);
        else if (!list.includes(i)) list.push(i);
      }
    });
  }

  /**
   * The entries a query's word finds, kept by `keep`, with its score in each: BM25 over the words
   * of names and places (MiniSearch), and over identifiers and postcodes (`Codes`), summed.
   */
  private found(word: string, keep: (e: FlatRecord) => boolean): Map<number, number> {
    const scores = new Map<number, number>();
    // MiniSearch's ids are the positions as it read them, as strings (`extractField`).
    for (const r of this.mini.search(word, { filter: (r) => keep(this.entries[Number(r.id)]!) }))
      scores.set(Number(r.id), r.score);
    const codes = new Map<number, number>();
    this.identifiers.score(word, IDENTIFIER_BOOST, codes);
    this.postcodes.score(word, POSTCODE_BOOST, codes);
    for (const [id, score] of codes)
      if (keep(this.entries[id]!)) scores.set(id, (scores.get(id) ?? 0) + score);
    return scores;
  }

  /**
   * The entries that every word of `q` finds (`all`), or any of them, each scored as MiniSearch
   * scores a query: the sum of its words' scores times how many of the words found it. An ISIL or
   * Sigel typed whole (`DE-Tue120`, `Tü 120`) comes first.
   */
  private matching(
    q: string,
    all: boolean,
    keep: (e: FlatRecord) => boolean,
  ): { id: number; score: number }[] {
    const perWord = [...new Set(words(q))].map((word) => this.found(word, keep));
    const total = new Map<number, { score: number; words: number }>();
    perWord.forEach((scores, i) => {
      for (const [id, score] of scores) {
        const sum = total.get(id);
        if (sum) {
          sum.score += score;
          sum.words++;
        } else if (!all || i === 0) total.set(id, { score, words: 1 });
      }
    });
    const results: { id: number; score: number }[] = [];
    for (const [id, { score, words: count }] of total)
      if (!all || count === perWord.length) results.push({ id, score: score * count });
    const typed = this.wholeIdentifiers.get(words(q).join(''));
    if (typed) {
      const top = results.reduce((best, r) => Math.max(best, r.score), 0);
      const at = new Map(results.map((r, i) => [r.id, i]));
      for (const id of typed) {
        if (!keep(this.entries[id]!)) continue;
        const i = at.get(id);
        if (i === undefined) results.push({ id, score: top + 1 });
        else results[i]!.score += top;
      }
    }
    return results.sort((a, b) => this.ranked(a, b));
  }

  /** Best first; of two as good, the smaller ISIL. */
  private ranked(a: { id: number; score: number }, b: { id: number; score: number }): number {
    const isilA = this.entries[a.id]!.isil;
    const isilB = this.entries[b.id]!.isil;
    return b.score - a.score || (isilA < isilB ? -1 : isilA > isilB ? 1 : 0);
  }

  /** What a fielded query reads of the index (src/search/fielded.ts). */
  private lookup(): Lookup {
    const toMap = (found: readonly { id: number; score: number }[]): Found =>
      new Map(found.map((r) => [r.id, r.score]));
    return {
      entries: this.entries,
      any: (text, keep) => toMap(this.matching(text, true, keep)),
      word: (word, fields, keep) =>
        toMap(
          this.mini
            .search(word, { fields: [...fields], filter: (r) => keep(this.entries[Number(r.id)]!) })
            .map((r) => ({ id: Number(r.id), score: r.score })),
        ),
      code: (index, code, keep) => {
        const found: Found = new Map();
        if (index === 'identifiers') this.identifiers.score(code, IDENTIFIER_BOOST, found);
        else this.postcodes.score(code, POSTCODE_BOOST, found);
        for (const id of found.keys()) if (!keep(this.entries[id]!)) found.delete(id);
        return found;
      },
    };
  }

  /** The index of `entries`, built a chunk at a time so the event loop keeps turning. */
  static async build(version: string, entries: readonly FlatRecord[]): Promise<SearchIndex> {
    const index = new SearchIndex(version, entries);
    await index.mini.addAllAsync(
      entries.map((_, i) => i),
      { chunkSize: 2000 },
    );
    await new Promise((resolve) => setImmediate(resolve));
    index.completion = new Completion(entries);
    await new Promise((resolve) => setImmediate(resolve));
    // Read with the index, not on the first reconciliation, which it would hold up (a pass over
    // every name).
    index.townWords = townsNamed(entries);
    return index;
  }

  get size(): number {
    return this.entries.length;
  }

  /** Every entry, in the index's order. */
  all(): readonly FlatRecord[] {
    return this.entries;
  }

  entry(isil: string): FlatRecord | undefined {
    const i = this.byIsil.get(isil);
    return i === undefined ? undefined : this.entries[i];
  }

  /** Every match of `request`, in ranking order (ties by ISIL), with its distance. */
  private rank(request: SearchRequest): Hit[] {
    const { near } = request;
    const keep = keeper(request);
    const q = request.q.trim();
    let found: { id: number; score: number }[];
    if (request.fielded) {
      found = [...fieldedSearch(this.lookup(), request.fielded, keep)]
        .map(([id, score]) => ({ id, score }))
        .sort((a, b) => this.ranked(a, b));
    } else if (words(q).length === 0) {
      found = this.entries.flatMap((e, id) => (keep(e) ? [{ id, score: 0 }] : []));
      if (!near)
        found.sort(
          (a, b) =>
            byName.compare(this.entries[a.id]!.name, this.entries[b.id]!.name) || this.ranked(a, b),
        );
    } else {
      // Every word first; when no institution has them all, any of them, best first.
      found = this.matching(q, true, keep);
      if (found.length === 0) found = this.matching(q, false, keep);
    }
    const withDistance = found.map(({ id, score }) => {
      const entry = this.entries[id]!;
      const distance =
        near && entry.lat !== undefined && entry.lon !== undefined
          ? distanceKm(near, { lat: entry.lat, lon: entry.lon })
          : undefined;
      return { entry, score, distanceKm: distance };
    });
    if (near && (request.sort === 'distance' || words(q).length === 0))
      withDistance.sort((a, b) => (a.distanceKm ?? Infinity) - (b.distanceKm ?? Infinity));
    return withDistance;
  }

  /** Every match of `request`, in ranking order: what a bulk export walks (src/search/exports.ts). */
  matches(request: SearchRequest): readonly FlatRecord[] {
    return this.rank(request).map((h) => h.entry);
  }

  search(request: SearchRequest): SearchAnswer {
    const ranked = this.rank(request);
    const offset = Math.max(0, request.offset ?? 0);
    const limit = Math.max(0, request.limit ?? 20);
    return {
      total: ranked.length,
      hits: ranked.slice(offset, offset + limit),
      facets: {
        city: countBy(ranked.flatMap((h) => h.entry.cities.slice(0, 1))),
        country: countBy(ranked.map((h) => h.entry.country)),
        type: countBy(ranked.map((h) => h.entry.type ?? 'unknown')),
      },
    };
  }

  /**
   * How telling `word` (folded) is: its inverse document frequency over the names, high for a word
   * few institutions have (a place, a person), low for one most have (`museum`, `bibliothek`).
   */
  rarity(word: string): number {
    return Math.log((this.entries.length + 1) / (this.completion!.frequency(word) + 1));
  }

  /** The towns the names and cities tell of (src/search/likeness.ts). */
  towns(): ReadonlySet<string> {
    return this.townWords;
  }

  /** Whether any institution's name or identifiers hold `word` (folded) whole. */
  knows(word: string): boolean {
    return this.completion!.frequency(word) > 0;
  }

  /** The longest start of `word` (folded) that begins a word of a name or an identifier. */
  knownStart(word: string): string {
    return this.completion!.longestStart(word);
  }

  /** The institutions whose names or identifiers hold `word` (folded) whole, at most `limit`. */
  holding(word: string, limit: number): FlatRecord[] {
    return this.completion!.holding(word, limit);
  }

  /**
   * Up to `limit` institutions for what is being typed, best first (src/search/completion.ts); an
   * ISIL or Sigel typed whole first, case aside (ISO 15511: an ISIL's case carries no meaning), as
   * the search ranks it: its words are short and common (`DE-1`), so the completion alone ranks
   * the longer ISILs that hold them before it.
   */
  suggest(q: string, limit = 10): FlatRecord[] {
    const typed = (this.wholeIdentifiers.get(words(q).join('')) ?? []).map((i) => this.entries[i]!);
    const rest = this.completion!.suggest(q, limit).filter((e) => !typed.includes(e));
    return [...typed, ...rest].slice(0, limit);
  }

  /**
   * Candidates for a name from elsewhere (reconciliation): any of its words, with typos, scored;
   * the best `limit`.
   */
  candidates(name: string, limit: number, keep?: (e: FlatRecord) => boolean): Hit[] {
    // Each word once, and no more than the likeness weighs: MiniSearch looks a word up, typos and
    // prefixes included, as often as it is given (a word repeated fifty times cost fifty lookups).
    const distinct = [...new Set(words(name))].slice(0, MAX_QUERY_WORDS);
    if (distinct.length === 0) return [];
    return this.mini
      .search(distinct.join(' '), {
        combineWith: 'OR',
        ...(keep ? { filter: (r) => keep(this.entries[r.id as number]!) } : {}),
      })
      .slice(0, limit)
      .map((r) => ({
        entry: this.entries[r.id as number]!,
        score: r.score,
        distanceKm: undefined,
      }));
  }
}
