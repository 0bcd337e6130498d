// Reconciliation (the W3C Entity Reconciliation community group's API 0.2, as OpenRefine
// speaks it): a name from elsewhere, with an ISIL, a city or a postcode to sharpen it, gets the
// institutions it may mean, each with a score from 0 to 100 and `match` when the service is sure
// enough to match it without asking a person. A wrong automatic match costs more than a missed
// one, so `match` is strict: the ISIL given and found; or the same name (folded), telling enough,
// with nothing as close beside it, and a city or postcode given that agrees. A name alone is never
// enough: the agency's data holds different institutions of the same name (two "Museum für Kunst
// und Kulturgeschichte"), and Wikidata's labels name some of them for the other one.
import { fold, words } from './fold';
import {
  abbreviations,
  compoundInitials,
  hyphenGroups,
  kindAgreement,
  kindsNamed,
  nameLikeness,
  quoted,
  significant,
  within,
} from './likeness';
import { inTownNamed, IN_TOWN_NAMED, OTHER_TOWN, otherTown } from './towns';
import { townOf } from './wordLikeness';
import type { InstitutionType, FlatRecord } from '../record/flatRecord';
import type { SearchIndex } from './searchIndex';

/** The properties a query may give (`pid`). */
export const PROPERTIES = [
  { id: 'isil', name: 'ISIL' },
  { id: 'city', name: 'City' },
  { id: 'postcode', name: 'Postcode' },
] as const;

export const ORGANIZATION = 'http://xmlns.com/foaf/0.1/Organization';
/** The types a query may name, with the kind each one means (foaf:Organization: any). */
export const TYPES: readonly { id: string; name: string; kind?: InstitutionType }[] = [
  { id: ORGANIZATION, name: 'Organization' },
  { id: 'http://schema.org/Library', name: 'Library', kind: 'library' },
  { id: 'http://schema.org/ArchiveOrganization', name: 'Archive', kind: 'archive' },
  { id: 'http://schema.org/Museum', name: 'Museum', kind: 'museum' },
];

export interface ReconcileQuery {
  readonly query: string;
  readonly type?: string | readonly string[];
  readonly limit?: number;
  readonly properties?: readonly { readonly pid: string; readonly v: unknown }[];
}

export interface Candidate {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly score: number;
  readonly match: boolean;
  readonly type: readonly { id: string; name: string }[];
  readonly features: readonly { id: string; value: number | boolean }[];
}

/** A word this rare (few institutions have it) brings the institutions that have it as candidates. */
const TELLING = 5;

/**
 * The most candidates a query's words bring beside the best by BM25: a query of many telling words
 * (dozens of towns' adjectives in its 500 characters) would otherwise weigh many thousands, where
 * the names of the bench (test/bench/reconcile.ts) bring fewer than this.
 */
const MAX_POOL = 500;

/**
 * The ISILs of the ZDB's product sigels: packages of licensed e-resources (`ZDB-1-AAS`), not
 * institutions. A name from elsewhere means one seldom, unless it names the package alone: such a
 * candidate gives way to an institution by NOT_AN_INSTITUTION (`KU select HSS` is no `Heimatmuseum
 * Sinzig im Schloss`, though its acronym spells the label).
 */
const PACKAGE = /^ZDB-/i;
const NOT_AN_INSTITUTION = 25;

/** What a part's score gives way to its whole's, where both are candidates (`DE-17-1`, `DE-17`). */
const PART_OF_CANDIDATE = 6;

/** How telling a query's words are together: auto-matching on a name alone needs enough. */
const DISTINCTIVE = 10;

const typeOf = (entry: FlatRecord) => {
  const kind = TYPES.find((t) => t.kind !== undefined && t.kind === entry.type);
  return kind
    ? [
        { id: kind.id, name: kind.name },
        { id: ORGANIZATION, name: 'Organization' },
      ]
    : [{ id: ORGANIZATION, name: 'Organization' }];
};

function propertyValue(value: unknown): string | undefined {
  if (typeof value === 'string' || typeof value === 'number') return String(value).trim();
  if (value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string')
    return (value as { id: string }).id.trim();
  return undefined;
}

/** The words a compound's last part says little about: `Hugenottenmuseum` is `Hugenotten` + it. */
const COMPOUND_ENDS = /(?<=.{4})(museum|bibliothek|archiv|galerie|sammlung|haus)$/;

/** A compound's first part (`hugenotten` of `hugenottenmuseum`), which a name may write apart. */
const stemOf = (word: string): string[] => {
  const stem = word.replace(COMPOUND_ENDS, '');
  return stem === word ? [] : [stem];
};

/** Who may be meant: the ISILs given, the best by BM25, and those holding a telling word. */
function candidatePool(
  index: SearchIndex,
  name: string,
  isils: readonly string[],
  keep: ((e: FlatRecord) => boolean) | undefined,
): Map<string, FlatRecord> {
  const pool = new Map<string, FlatRecord>();
  for (const isil of isils) {
    const entry = index.entry(isil) ?? index.search({ q: isil, limit: 1 }).hits[0]?.entry;
    if (entry && entry.isil.toLowerCase() === isil.toLowerCase()) pool.set(entry.isil, entry);
  }
  // The best by BM25, and those holding a telling word of the query (a town's name), which BM25
  // may rank below many that share two common words (`Städtisches Museum`).
  for (const hit of index.candidates(name, 100, keep)) pool.set(hit.entry.isil, hit.entry);
  const add = (entries: readonly FlatRecord[]) => {
    for (const entry of entries) {
      if (pool.size >= MAX_POOL) return;
      if (!keep || keep(entry)) pool.set(entry.isil, entry);
    }
  };
  const said = significant(name);
  // The initials of the query's words, or of a run of them, as an acronym a name may hold: `Museum
  // für Moderne Kunst`, `Museum MMK`; `... der Evangelischen Kirche Berlin-Brandenburg-schlesische
  // Oberlausitz und ...`, `Bibliothek der EKBO`. Words joined by hyphens give one initial.
  const initials = said.map((w) => w[0]).join('');
  if (initials.length >= 3 && index.knows(initials)) add(index.holding(initials, 50));
  const heads = hyphenGroups(name)
    .map((g) => g[0]![0])
    .join('');
  // (Four letters or more: three are too often another's, `BKK` of `Bildagentur für Kunst, Kultur`.)
  for (let length = 4; length <= 6; length++)
    for (let i = 0; i + length <= heads.length; i++) {
      const acronym = heads.slice(i, i + length);
      if (acronym !== initials && index.knows(acronym) && index.rarity(acronym) >= TELLING)
        add(index.holding(acronym, 50));
    }
  for (const [i, word] of said.entries()) {
    if (index.rarity(word) >= TELLING) add(index.holding(word, 50));
    // A compound's initials, as a name may shorten it: the `UB Weimar`.
    const initialsOf = compoundInitials(word);
    if (initialsOf && index.knows(initialsOf)) add(index.holding(initialsOf, 50));
    // Two words of the query as the one compound a name writes (`Trias Museum`, `Triasmuseum`);
    // a town as its adjective in a name (`Leipziger Städtische Bibliotheken`).
    const joined = word + (said[i + 1] ?? '');
    if (i + 1 < said.length && index.knows(joined)) add(index.holding(joined, 50));
    if (index.towns().has(word) && index.knows(`${word}er`)) add(index.holding(`${word}er`, 50));
    // A town's adjective, as the town: `Pasewalker` brings the institutions of Pasewalk (a town
    // may have more than fifty: Bonn).
    const town = townOf(word);
    if (town && index.knows(town) && index.rarity(town) >= TELLING) add(index.holding(town, 200));
    // A compound no name holds, by its longest end that one does (`Bauernkriegspanorama` is a
    // `Panorama Museum`), and by its longest start, half of it or more, that a name's word begins
    // (the `Torfschiffswerft-Museum` is the `Torfschiffmuseum`).
    if (word.length >= 9 && !index.knows(word)) {
      const end = endKnown(index, word);
      if (end && index.rarity(end) >= TELLING) add(index.holding(end, 50));
      const start = index.knownStart(word);
      const telling = !index.knows(start) || index.rarity(start) >= TELLING;
      if (start.length >= Math.max(6, word.length / 2) && telling) add(index.suggest(start, 50));
    }
    // A compound's first part, as the start of a word: `Nummernschildmuseum` is the `Museum für
    // Nummernschilder`.
    for (const stem of stemOf(word))
      if (stem.length >= 5 && index.rarity(stem) >= TELLING) add(index.suggest(stem, 50));
    // A name that abbreviates the word: `Erzgeb.` for `Erzgebirge`.
    for (let cut = 3; cut <= word.length - 2; cut++) {
      const start = word.slice(0, cut);
      if (index.knows(start) && index.rarity(start) >= TELLING)
        add(index.holding(start, 50).filter((e) => abbreviations(e.name).has(start)));
    }
  }

  return pool;
}

/** Whether a record's values agree with those given; unknown where it has none (most records). */
const agrees = (given: readonly string[], held: readonly string[]) =>
  given.length > 0 && held.length > 0 ? held.some((h) => given.includes(h)) : undefined;

/** The longest end of `word`, five letters or more, that some name holds whole. */
function endKnown(index: SearchIndex, word: string): string | undefined {
  for (let i = 1; i + 5 <= word.length; i++) if (index.knows(word.slice(i))) return word.slice(i);
  return undefined;
}

/**
 * An institution before its parts: where the pool holds both `DE-66` and `DE-66-0`, a name from
 * elsewhere that fits both names the whole (Wikidata's `Hochschul- und Landesbibliothek Fulda` is
 * DE-66, not its campus library), unless it fits the part better by more than PART_OF_CANDIDATE.
 */
function wholesFirst(scored: { readonly entry: FlatRecord; score: number }[]): void {
  const held = new Set(scored.map((c) => c.entry.isil));
  for (const c of scored) {
    const whole = c.entry.isil.replace(/-\d+$/, '');
    if (whole !== c.entry.isil && whole.includes('-') && held.has(whole))
      c.score = Math.max(0, c.score - PART_OF_CANDIDATE);
  }
}

/**
 * What a name gains that holds the query's words together, in its order, beside what the words
 * alone give, and how many of them it spells as the query does: the query's phrase as the whole name, or quoted in it (the name an institution goes
 * by), 8; the phrase in it, 4; or the phrase before its last word, where a label from elsewhere
 * adds a town (`Archäologisches Museum Königsbrunn` for an `Archäologisches Museum`), 4. Not where
 * that last word is the institution's own noun: the `Erstes Deutsches Nudelmuseum` is not the
 * `Erstes Deutsches Historic-Actien-Museum`. The query's side is read once: the function returned
 * reads each candidate's name.
 */
function phrasing(query: string): (name: string, named: readonly string[]) => Phrased {
  const queryWords = words(query);
  const phrase = queryWords.join(' ');
  const beforeLast =
    queryWords.length >= 3 && kindsNamed(queryWords[queryWords.length - 1]!).size === 0
      ? queryWords.slice(0, -1)
      : undefined;
  const spelling = new Set(queryWords);
  return (name, named) => {
    const exact = phrase === named.join(' ');
    const spelt = named.filter((w) => spelling.has(w)).length;
    if (exact || quoted(name).includes(phrase)) return { gain: 8, exact, spelt };
    if (within(queryWords, named)) return { gain: 4, exact, spelt };
    return { gain: beforeLast && within(beforeLast, named) ? 4 : 0, exact, spelt };
  };
}

interface Phrased {
  /** What the name gains. */
  readonly gain: number;
  /** Whether the name is the query's phrase. */
  readonly exact: boolean;
  /** How many of the query's words, as the query spells them, the name has (bestFirst). */
  readonly spelt: number;
}

/** The candidates for one query, best first. */
export function reconcile(index: SearchIndex, query: ReconcileQuery): Candidate[] {
  const limit = Math.min(Math.max(query.limit ?? 5, 1), 25);
  const given = new Map<string, string[]>();
  for (const p of query.properties ?? []) {
    const v = propertyValue(p.v);
    if (v) given.set(p.pid, [...(given.get(p.pid) ?? []), v]);
  }
  const types =
    query.type === undefined ? [] : typeof query.type === 'string' ? [query.type] : query.type;
  const kinds = types
    .map((t) => TYPES.find((k) => k.id === t)?.kind)
    .filter((k): k is InstitutionType => k !== undefined);
  const keep =
    kinds.length > 0 && !types.includes(ORGANIZATION)
      ? (e: FlatRecord) => e.type !== undefined && kinds.includes(e.type)
      : undefined;

  const pool = candidatePool(index, query.query, given.get('isil') ?? [], keep);
  const cities = (given.get('city') ?? []).map(fold);
  const postcodes = given.get('postcode') ?? [];
  const isils = (given.get('isil') ?? []).map((i) => i.toLowerCase());
  const kindsAsked = kindsNamed(query.query);
  const phrased = phrasing(query.query);
  const likenessTo = nameLikeness(query.query, (w) => index.rarity(w));
  const elsewhere = otherTown(index, query.query, given.get('city') ?? []);
  const inTown = inTownNamed(index, query.query);
  const scored = [...pool.values()].map((entry) => {
    const likeness = Math.max(
      likenessTo(entry.name, entry.cities),
      ...entry.otherNames.map((n) => likenessTo(n, entry.cities)),
    );
    const isil = isils.length ? isils.includes(entry.isil.toLowerCase()) : undefined;
    const city = agrees(cities, entry.cities.map(fold));
    const postcode = agrees(postcodes, entry.postcodes);
    // The name counts most; each property given moves the score towards agreement or away.
    let score = likeness * 80 + kindAgreement(kindsAsked, entry);
    if (isil !== undefined) score += isil ? 40 : -30;
    if (city !== undefined) score += city ? 12 : -15;
    if (postcode !== undefined) score += postcode ? 8 : -10;
    if (!cities.length && inTown(entry)) score += IN_TOWN_NAMED;
    const named = words(entry.name);
    if (elsewhere(entry, named)) score -= OTHER_TOWN;
    if (isil === undefined && PACKAGE.test(entry.isil)) score -= NOT_AN_INSTITUTION;
    const { gain, exact, spelt } = phrased(entry.name, named);
    score += gain;
    return {
      entry,
      spelt,
      likeness,
      score: Math.max(0, Math.min(100, score)),
      isil,
      city,
      postcode,
      exact,
    };
  });
  wholesFirst(scored);
  scored.sort(bestFirst);
  const top = scored.slice(0, limit);
  const distinctive =
    significant(query.query).reduce((sum, w) => sum + index.rarity(w), 0) >= DISTINCTIVE;
  return top.map((c, i) => {
    const runnerUp = i === 0 ? scored[1] : undefined;
    const disagrees = c.isil === false || c.city === false || c.postcode === false;
    const match =
      i === 0 &&
      (c.isil === true ||
        (c.exact &&
          distinctive &&
          !disagrees &&
          (c.city === true || c.postcode === true) &&
          (runnerUp === undefined || runnerUp.score < c.score - 10)));
    return candidate(c, match);
  });
}

/**
 * Best score first; of two names as alike to the query, the one that spells more of its words as
 * the query does (the `Limesmuseum` for a `Limesmuseum Aalen`, before the `LIMESEUM`), then by name.
 */
const bestFirst = (a: Ranked, b: Ranked) =>
  b.score - a.score || b.spelt - a.spelt || a.entry.name.localeCompare(b.entry.name, 'de');

interface Ranked {
  readonly entry: FlatRecord;
  readonly score: number;
  /** How many of the query's words, as the query spells them, the name has. */
  readonly spelt: number;
}

interface Scored {
  readonly entry: FlatRecord;
  readonly likeness: number;
  readonly score: number;
  readonly isil: boolean | undefined;
  readonly city: boolean | undefined;
  readonly postcode: boolean | undefined;
}

function candidate(c: Scored, match: boolean): Candidate {
  const description = [
    c.entry.isil,
    [c.entry.postcodes[0], c.entry.cities[0]].filter(Boolean).join(' '),
  ]
    .filter(Boolean)
    .join(', ');
  return {
    id: c.entry.isil,
    name: c.entry.name,
    description,
    score: Math.round(c.score * 10) / 10,
    match,
    type: typeOf(c.entry),
    features: [
      { id: 'name_likeness', value: Math.round(c.likeness * 1000) / 1000 },
      ...(c.isil !== undefined ? [{ id: 'isil_match', value: c.isil }] : []),
      ...(c.city !== undefined ? [{ id: 'city_match', value: c.city }] : []),
      ...(c.postcode !== undefined ? [{ id: 'postcode_match', value: c.postcode }] : []),
    ],
  };
}
