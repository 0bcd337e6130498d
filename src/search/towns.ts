// The towns a name from elsewhere names, for reconciliation (src/search/candidates.ts): a
// candidate whose name names another loses, one whose address is in it gains. The data has no
// gazetteer: the towns are learnt from the names and cities (src/search/likeness.ts, townsNamed).
import type { FlatRecord } from '../record/flatRecord';
import { significant, townWords } from './likeness';
import type { SearchIndex } from './searchIndex';
import { townOf } from './wordLikeness';

const SAINT = new Set(['st', 'sankt']);

/** What a candidate loses whose name names another town than the query does. */
export const OTHER_TOWN = 25;

/**
 * What a candidate whose address is in a town the query names gains, no city given: as much as an
 * agreeing city. Of an institution's parts listed by name alone, the full record is its own
 * (`Staatsbibliothek zu Berlin`: DE-1a, in Berlin, not the `bpk-Bildagentur`, DE-1b).
 */
export const IN_TOWN_NAMED = 12;

/** The towns the query's name names: a town's name, or its adjective (`Bonner` names Bonn). */
const townsAsked = (index: SearchIndex, name: string) =>
  new Set(
    significant(name)
      .flatMap((w) => [w, townOf(w)])
      .filter((t): t is string => !!t && index.towns().has(t)),
  );

/** Whether a candidate's address is in a town the query's name names. */
export function inTownNamed(index: SearchIndex, name: string): (entry: FlatRecord) => boolean {
  const asked = townsAsked(index, name);
  return (entry) => entry.cities.some((c) => townWords(c).some((w) => asked.has(w)));
}

/**
 * Whether a candidate is of another town than the query names: the query's name or its city names
 * a town (`Bonner` names Bonn) and the candidate's name a different one, and neither its name nor
 * its address the query's (the `Gedenkstätte ... in Düsseldorf` for a `Gedenkstätte für die Bonner
 * Opfer des Nationalsozialismus`). Most records have no address: their names tell their towns.
 */
export function otherTown(
  index: SearchIndex,
  name: string,
  cities: readonly string[],
): (entry: FlatRecord, named: readonly string[]) => boolean {
  const towns = index.towns();
  const said = significant(name);
  const asked = new Set([...townsAsked(index, name), ...cities.flatMap(townWords)]);
  if (asked.size === 0) return () => false;
  const saidSet = new Set(said);
  // `named`: the words of the candidate's name, as the caller has them already.
  return (entry, named) => {
    if (named.some((w) => asked.has(w))) return false;
    if (entry.cities.some((c) => townWords(c).some((w) => asked.has(w)))) return false;
    // A word after `St.` names a saint, or a place of one, more often than a town (`Historisches
    // Straßenbahndepot St. Peter`, in Nuremberg).
    return named.some((w, i) => towns.has(w) && !saidSet.has(w) && !SAINT.has(named[i - 1] ?? ''));
  };
}
