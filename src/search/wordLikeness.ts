// How alike two folded words are (reconciliation, src/search/likeness.ts): the same, another
// German ending, a place and its adjective, a typo, a part of a compound.

/** How far apart two folded words are, in edits (Levenshtein), stopping past `max`. */
function edits(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        previous[j]! + 1,
        row[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      best = Math.min(best, row[j]!);
    }
    if (best > max) return max + 1;
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * The town a word may be the adjective of, four letters or more: the `Pasewalker Stadtmuseum` is
 * the museum of Pasewalk, a `Bonner` institution one of Bonn.
 */
export function townOf(word: string): string | undefined {
  return word.length >= 6 && word.endsWith('er') ? word.slice(0, -2) : undefined;
}

/** A folded word without its umlauts' `e`: `pfalz` of `pfaelz`. */
const plain = (w: string) => w.replace(/([aou])e/g, '$1');

/** An adjective in `-isch`, and what it is of before that end. */
const ADJECTIVE = /^(.{4,}?)isch(e[mnrs]?)?$/;

/**
 * The place an adjective in `-isch` is of, and the place's name, each without its ending and its
 * umlauts, four letters or more: `Rheinhessisches` and `Rheinhessen` are both `rheinhess`,
 * `Pfälzische` and `Pfalz` both `pfalz`; an adjective in `-er` is the place's too (`Oberpfälzer`).
 */
function placeStems(word: string): string[] {
  const adjective = ADJECTIVE.exec(word)?.[1];
  if (adjective) return [plain(adjective)];
  const stems = [plain(word.replace(/(en|e|n)$/, ''))];
  const town = townOf(word);
  if (town) stems.push(plain(town));
  return stems.filter((s) => s.length >= 4);
}

/** Whether one word is an adjective in `-isch` of the place the other names, or of its adjective. */
function samePlaceAdjective(a: string, b: string): boolean {
  if (a[0] !== b[0] || a[1] !== b[1]) return false;
  const aIs = a.includes('isch') && ADJECTIVE.test(a);
  if (aIs === (b.includes('isch') && ADJECTIVE.test(b))) return false;
  const [adjective, other] = aIs ? [a, b] : [b, a];
  const [place] = placeStems(adjective);
  return place !== undefined && placeStems(other).includes(place);
}

/** How alike the same word is with another ending (`Nationalmuseums`, `Nationalmuseum`). */
export const INFLECTED = 0.9;
/** How alike a town's adjective is to the town's name. */
export const TOWNS = 0.8;
/** How alike two words a typo apart are. */
const TYPO = 0.7;
/** How alike a compound is to its first or last part. */
export const PART = 0.6;

/**
 * Whether one word is a town's (`Stadtarchiv`) and the other a state's (`Staatsarchiv`): two
 * letters apart, and never one misspelt for the other.
 */
const townAndState = (a: string, b: string) =>
  (a.startsWith('stadt') && b.startsWith('staat')) ||
  (a.startsWith('staat') && b.startsWith('stadt'));

/** A word without its German ending, if it has one: `germanisch` of `Germanischen`. */
const stem = (word: string) => word.replace(/(es|en|er|em|e|s|n)$/, '');

/** Whether two words are one with different endings, four letters or more without them. */
function sameStem(a: string, b: string): boolean {
  const stemmed = stem(a);
  return stemmed.length >= 4 && stemmed === stem(b);
}

/**
 * How alike two words are: 1 the same, less for another ending, a town's adjective, a typo or a
 * part of a compound, 0 unalike.
 */
export function wordLikeness(a: string, b: string): number {
  if (a === b) return 1;
  const [short, other] = a.length <= b.length ? [a, b] : [b, a];
  const long = other.length;
  if (townOf(other) === short || samePlaceAdjective(a, b)) return TOWNS;
  if (long - short.length <= 2 && other.startsWith(short.slice(0, 4)) && sameStem(a, b))
    return INFLECTED;
  if (long >= 5 && !townAndState(a, b) && edits(a, b, long >= 10 ? 2 : 1) <= (long >= 10 ? 2 : 1))
    return TYPO;
  if (short.length >= 5 && (other.endsWith(short) || other.startsWith(short))) return PART;
  return 0;
}
