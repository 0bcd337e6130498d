// How alike a name from elsewhere is to an institution's name (for reconciliation): words
// folded and weighed by how telling they are, compounds and their parts, typos, a town's adjective,
// acronyms, the kind of institution a name says; src/search/wordLikeness.ts says how alike two
// words are. src/search/candidates.ts finds the candidates and scores them with it.
import { fold, words } from './fold';
import type { InstitutionType, FlatRecord } from '../record/flatRecord';
import { INFLECTED, PART, TOWNS, wordLikeness } from './wordLikeness';

/** A town's own institution: its library, archive, museum (`Stadtarchiv Bonn`, `Gemeindebücherei`). */
const TOWNS_OWN = /^(stadt|gemeinde|kreis|ratsschul)(bibliothek|buecherei|archiv|museum|galerie)$/;
/** Words that begin a town's name, before the one that tells it (`Stadtmuseum Bad Wildungen`). */
const BEFORE_TOWN = new Set(['bad', 'st', 'sankt']);

/** The words of a town's name that tell it: `wildungen` of `Bad Wildungen`. */
export const townWords = (town: string) =>
  words(town).filter((w) => !FILLERS.has(w) && !BEFORE_TOWN.has(w));

/**
 * The towns the agency's names tell of, folded: the word after a town's own institution
 * (`Stadtbibliothek Mainz`, `Stadtarchiv Bad Wildungen`), and every institution's city. The data
 * holds no gazetteer, and most records only a name: this is how a reconciliation learns that the
 * `Gedenkstätte ... in Düsseldorf` names another town than a `Gedenkstätte für die Bonner Opfer`.
 */
export function townsNamed(entries: readonly FlatRecord[]): Set<string> {
  const towns = new Set<string>();
  for (const entry of entries) {
    for (const city of entry.cities) for (const w of townWords(city)) towns.add(w);
    const named = words(entry.name);
    for (let i = 0; i + 1 < named.length; i++) {
      if (!TOWNS_OWN.test(named[i]!)) continue;
      let j = i + 1;
      while (j < named.length && BEFORE_TOWN.has(named[j]!)) j++;
      const town = named[j];
      // Not a place within a town (`Stadtmuseum im Alleehaus`), nor a number.
      if (!town || town.length < 3 || FILLERS.has(town) || /\d/.test(town)) continue;
      if (!KIND_WORDS.some(([, kind]) => kind.test(town))) towns.add(town);
    }
  }
  return towns;
}

/**
 * The initials a compound ending in an institution's word is shortened to, its first part's and
 * the end's: `ub` of `Universitätsbibliothek` (the `UB Weimar`), `fh` of `Fachhochschule`.
 */
export function compoundInitials(word: string): string | undefined {
  const end = /(?<=.{3})(bibliothek|hochschule|archiv|museum|akademie|galerie)$/.exec(word)?.[1];
  return end ? word[0]! + end[0]! : undefined;
}

/** Words that say little about which institution is meant. */
const FILLERS = new Set([
  ...'der die das des dem den und fuer zu zum zur im in am an von auf bei mit'.split(' '),
  // (`e. V.`, a registered association's, and English.)
  ...'e v the of and for'.split(' '),
]);

/**
 * The ends of words compared in another form, and that form: a `Bücherei` is a library as a
 * `Bibliothek` is, and `Museen` are museums, `Galerien` galleries (`Stadtbücherei Marktheidenfeld`
 * is the `Stadtbibliothek Marktheidenfeld`); an `Abtei` a `Kloster`, and a `Heimatstube` or
 * `Heimathaus` the town's `Heimatmuseum`.
 */
const FORMS: readonly (readonly [string, string])[] = [
  ['buechereien', 'bibliothek'],
  ['buecherei', 'bibliothek'],
  ['bibliotheken', 'bibliothek'],
  ['galerien', 'galerie'],
  ['sammlungen', 'sammlung'],
  ['museen', 'museum'],
  ['abteien', 'kloster'],
  ['abtei', 'kloster'],
  ['heimatstuben', 'heimatmuseum'],
  ['heimatstube', 'heimatmuseum'],
  ['heimathaus', 'heimatmuseum'],
];

/**
 * A museum named with the end of `Museum`, before it: the `Porzellaneum` is a `Porzellanmuseum`;
 * not a word that only ends so (`Mausoleum`, `Athenaeum`, `Lyceum`).
 */
const MUSEUM_END = /^(\p{L}{4,}?)(?<!mus|ol|a)eum$/u;

/** A word in the form names are compared in (FORMS, MUSEUM_END). */
function canonical(word: string): string {
  for (const [end, form] of FORMS)
    if (word.endsWith(end)) return word.slice(0, word.length - end.length) + form;
  return word.endsWith('eum') ? word.replace(MUSEUM_END, '$1museum') : word;
}

export const significant = (text: string) =>
  words(text)
    .filter((w) => !FILLERS.has(w))
    .map(canonical);

/** What a name's words say an institution is: `Stadtarchiv` an archive, `Heimatmuseum` a museum. */
const KIND_WORDS: readonly [InstitutionType, RegExp][] = [
  ['museum', /museum|galerie|gedenkstaette|schatzkammer|freilicht/],
  ['archive', /archiv/],
  ['library', /bibliothe|mediathek|mediothek/],
];

export function kindsNamed(name: string): Set<InstitutionType> {
  const kinds = new Set<InstitutionType>();
  for (const word of significant(name))
    for (const [kind, pattern] of KIND_WORDS) if (pattern.test(word)) kinds.add(kind);
  return kinds;
}

/**
 * How far a candidate's kind agrees with the kind the query's name says, as a change of score:
 * a `Stadtmuseum Baden-Baden` is not the `Stadtarchiv Baden-Baden`, though the town's name, the
 * rarest word, is in both. Nothing when the query names no kind, or nothing is known of the
 * candidate's; less, not nothing, for a candidate that is more than the query says (the `Museum
 * für Moderne Kunst, Bibliothek` for a `Museum für Moderne Kunst`). The sizes are those that
 * ranked the most of the bench's Wikidata labels right (docs/benchmark.md, "reconciliation of 200
 * Wikidata labels").
 */
export function kindAgreement(query: ReadonlySet<InstitutionType>, entry: FlatRecord): number {
  if (query.size === 0) return 0;
  const kinds = kindsNamed(entry.name);
  if (entry.type !== undefined && entry.type !== 'other') kinds.add(entry.type);
  if (kinds.size === 0) return 0;
  const shared = [...kinds].filter((k) => query.has(k)).length;
  if (shared === 0) return -25;
  return shared < kinds.size ? -12 : 0;
}

/**
 * The most words of a query weighed: more than an institution's name has (the longest of the
 * agency's have about 15), and a bound on the work of a query of 500 characters of short words.
 */
export const MAX_QUERY_WORDS = 24;

/**
 * How alike a name from elsewhere is to an institution's name, from 0 to 1: the words matched
 * both ways, each weighed by how telling it is (`rarity`: a town's name counts for more than
 * `museum`). The institution's city may match a word of the query too (`Museum Penzberg`), but its
 * absence from the query costs nothing. The query's side is read once: the function returned
 * compares it with each candidate's name.
 */
export function nameLikeness(
  query: string,
  rarity: (word: string) => number = () => 1,
): (name: string, places?: readonly string[]) => number {
  const x = [...new Set(significant(query))].slice(0, MAX_QUERY_WORDS);
  const side = querySide(x, query);
  const weights = new Map<string, number>();
  const weight = (w: string) => {
    let known = weights.get(w);
    if (known === undefined) weights.set(w, (known = Math.max(0.5, rarity(w))));
    return known;
  };
  const xWeight = joinedWeights(query, weight);
  const xTotal = total(x, xWeight);
  return (name, places = []) => {
    const y = spelledOut(name, side);
    if (x.length === 0 || y.length === 0) return 0;
    const around = [...y, ...places.flatMap(significant)];
    const yWeight = joinedWeights(name, weight);
    // (Each side's words weighed by their rarity, the matched share of each side.)
    // The query's words found count most: a record often says more than a label elsewhere does.
    return (
      0.7 * (matched(x, around, xWeight, weight) / xTotal) +
      0.3 * (matched(y, x, yWeight, weight) / total(y, yWeight))
    );
  };
}

/**
 * The weight of `from`'s words found among `to`'s, each as alike as its likest there. A compound
 * on one side is two words on the other: `Hugenottenmuseum`, `Hugenotten-Museum`.
 */
function matched(
  from: readonly string[],
  to: readonly string[],
  weigh: (w: string) => number,
  weighTo: (w: string) => number,
) {
  const whole = new Set(to);
  const within = [...to, ...to.slice(1).map((v, i) => joinable(to[i]!) + v)];
  return from.reduce((sum, w, i) => {
    const joinedHere =
      (i > 0 && whole.has(joinable(from[i - 1]!) + w)) ||
      (i + 1 < from.length && whole.has(joinable(w) + from[i + 1]));
    if (joinedHere) return sum + weigh(w);
    const credit = Math.max(
      0,
      ...within.map((v) => {
        const likeness = wordLikeness(w, v);
        if (likeness === 0 || likeness === 1 || likeness === TOWNS || likeness === INFLECTED)
          return likeness * weigh(w);
        // A word only like another, a typo apart or a part of it, tells no more than that other
        // word: `Wuseum`, a museum's own name, is not told by a query's `Museum`, nor the
        // `Rechtsgeschichte` by `Geschichte`. Unless the rest of the compound is there too:
        // `Eisenmuseum` is told by `Museum` and by the `Eisen` of `Eisenbahn`.
        if (likeness === PART && restFound(w, v, to)) return likeness * weigh(w);
        return likeness * Math.min(weigh(w), weighTo(v));
      }),
    );
    return sum + credit;
  }, 0);
}

/**
 * The word that joins the next one into the compound it means: the `Städtisches Museum` is the
 * `Stadtmuseum`.
 */
const joinable = (word: string) => (/^staedtisch(e|er|es|en)?$/.test(word) ? 'stadt' : word);

/** Whether a compound's rest beside its part `v` (four letters or more) begins a word of `list`. */
function restFound(w: string, v: string, list: readonly string[]): boolean {
  if (w.length <= v.length) return false;
  const rest = w.startsWith(v) ? w.slice(v.length) : w.slice(0, -v.length);
  return rest.length >= 4 && list.some((u) => u !== v && u.startsWith(rest));
}

const total = (list: readonly string[], weigh: (w: string) => number) =>
  list.reduce((sum, w) => sum + weigh(w), 0);

/**
 * Each word's weight, where the words joined by hyphens (`Villingen-Schwenningen`,
 * `Eisenbahn-Museum`) share the weight of their most telling one: they are one name or one
 * compound written in parts, and say no more together than it does.
 */
function joinedWeights(text: string, weight: (w: string) => number): (w: string) => number {
  const shared = new Map<string, number>();
  for (const joined of text.match(/[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)+/gu) ?? []) {
    const parts = significant(joined);
    if (parts.length < 2) continue;
    const most = Math.max(...parts.map(weight));
    const sum = parts.reduce((total, part) => total + weight(part), 0);
    for (const part of parts) shared.set(part, (weight(part) * most) / sum);
  }
  return shared.size === 0 ? weight : (w) => shared.get(w) ?? weight(w);
}

/** What a name's acronyms may stand for among the query's words, read once a query. */
interface QuerySide {
  /** The query's significant words. */
  readonly words: readonly string[];
  /** The same, those joined by hyphens together (hyphenGroups). */
  readonly groups: readonly (readonly string[])[];
  /** The query's compounds by their initials (`ub`: `universitaetsbibliothek`). */
  readonly compounds: ReadonlyMap<string, readonly string[]>;
}

function querySide(words: readonly string[], query: string): QuerySide {
  const compounds = new Map<string, readonly string[]>();
  for (const word of words) {
    const initials = compoundInitials(word);
    if (initials && !compounds.has(initials)) compounds.set(initials, [word]);
  }
  return { words, groups: hyphenGroups(query), compounds };
}

/**
 * The significant words of `name`, each of its acronyms (`MMK`, two to six capitals) written out
 * as the run of the query's words it stands for (words joined by hyphens one initial), or as the
 * query's compound whose initials it is (`UB`), and each abbreviation (`Sächs.`) as the query's
 * word it shortens, where there is one: the `Museum MMK` is the `Museum für Moderne Kunst`, the
 * `Museum Sächs.-Böhm. Erzgeb.` the `Museum sächsisch-böhmisches Erzgebirge`.
 */
function spelledOut(name: string, { words: query, groups, compounds }: QuerySide): string[] {
  const own = significant(name);
  const acronyms = new Set(
    (name.normalize('NFC').match(/(?<![\p{L}\p{N}])\p{Lu}{2,6}(?![\p{L}\p{N}])/gu) ?? [])
      .map((a) => fold(a))
      // One the name spells out itself (`Archiv zur Frauengeschichte ... BAF`) stands for nothing else.
      .filter((a) => runOf(a, own) === undefined),
  );
  const shortened = abbreviations(name);
  if (acronyms.size === 0 && shortened.size === 0) return own;
  return own.flatMap((word) => {
    if (acronyms.has(word))
      return runOf(word, query) ?? runOfGroups(word, groups) ?? compounds.get(word) ?? [word];
    if (shortened.has(word))
      return [query.find((w) => w.length > word.length && w.startsWith(word)) ?? word];
    return [word];
  });
}

/** The words a name abbreviates, folded: three letters or more before a full stop (`Erzgeb.`). */
export function abbreviations(name: string): Set<string> {
  return new Set(
    [...name.normalize('NFC').matchAll(/(?<![\p{L}\p{N}])(\p{L}{3,})\./gu)].map((m) => fold(m[1]!)),
  );
}

/**
 * A text's significant words, those joined by hyphens together: `Evangelische Kirche
 * Berlin-Brandenburg-schlesische Oberlausitz` is four, whose initials make `EKBO`. At most
 * MAX_QUERY_WORDS words in all, as many as a query's likeness weighs.
 */
export function hyphenGroups(text: string): string[][] {
  const groups: string[][] = [];
  let count = 0;
  for (const part of text.split(/[^\p{L}\p{N}-]+/u)) {
    const group = significant(part).slice(0, MAX_QUERY_WORDS - count);
    if (group.length === 0) continue;
    groups.push(group);
    count += group.length;
    if (count >= MAX_QUERY_WORDS) break;
  }
  return groups;
}

/** The words of the run of `groups` whose initials are `acronym`, if there is one. */
function runOfGroups(
  acronym: string,
  groups: readonly (readonly string[])[],
): string[] | undefined {
  const start = runStart(
    acronym,
    groups.map((g) => g[0]!),
  );
  return start < 0 ? undefined : groups.slice(start, start + acronym.length).flat();
}

/** The run of `list`'s words whose initials are `acronym`, if there is one. */
function runOf(acronym: string, list: readonly string[]): string[] | undefined {
  const start = runStart(acronym, list);
  return start < 0 ? undefined : list.slice(start, start + acronym.length);
}

/** Where the first run of `list`'s words whose initials are `acronym` starts, or -1. */
function runStart(acronym: string, list: readonly string[]): number {
  for (let i = 0; i + acronym.length <= list.length; i++)
    if ([...acronym].every((letter, j) => list[i + j]![0] === letter)) return i;
  return -1;
}

/**
 * Whether `part` is a run of `whole`'s words, in order: `Museum der Arbeit` is one of `Stiftung
 * Historische Museen Hamburg, Museum der Arbeit`, not of `Museum Arbeit am Rhein`.
 */
export function within(part: readonly string[], whole: readonly string[]): boolean {
  if (part.length === 0 || part.length > whole.length) return false;
  for (let i = 0; i + part.length <= whole.length; i++)
    if (part.every((w, j) => whole[i + j] === w)) return true;
  return false;
}

/**
 * The parts of a name in quotation marks, as phrases of folded words: the name an institution goes
 * by (`Städtisches Museum "Junkerhaus"` is the Junkerhaus, not the `Schmiede am Junkerhaus`).
 */
export function quoted(name: string): string[] {
  return [...name.matchAll(/["„“”»«'‚‘’]([^"„“”»«'‚‘’]+)["„“”»«'‚‘’]/g)].map((m) =>
    words(m[1]!).join(' '),
  );
}
