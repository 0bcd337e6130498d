// A fielded query (src/search/query.ts) evaluated over the index: each term finds its entries
// with their scores as the plain search finds a word (prefix and typo tolerance on names and
// places, the code index for identifiers and postcodes); AND keeps the entries both sides found,
// summing their scores, OR either side's, NOT every entry the other side did not find. MiniSearch
// keeps no positions: a quoted phrase is found as its words, then checked on the folded field.
import type { FlatRecord } from '../record/flatRecord';
import { words } from './fold';
import { anyTerm, type FieldedQuery, type QueryField, type QueryNode } from './query';

export type Found = Map<number, number>;
type Keep = (e: FlatRecord) => boolean;

/** What of the index a fielded query reads (src/search/searchIndex.ts gives it). */
export interface Lookup {
  readonly entries: readonly FlatRecord[];
  /** Every field, as the plain search finds a text whose words must all match. */
  any(text: string, keep: Keep): Found;
  /** One word in MiniSearch's fields `fields` (`name`, `other`, `place`). */
  word(word: string, fields: readonly string[], keep: Keep): Found;
  /** The identifiers' or the postcodes' codes beginning with `code` (src/search/codes.ts). */
  code(index: 'identifiers' | 'postcodes', code: string, keep: Keep): Found;
}

/** The texts of `entry` a field holds; every one of them for a bare term. */
function texts(entry: FlatRecord, field: QueryField | undefined): string[] {
  switch (field) {
    case 'name':
      return [entry.name, ...entry.otherNames];
    case 'city':
      return [...entry.cities];
    case 'isil':
      return [entry.isil];
    case 'sigel':
      return entry.sigel ? [entry.sigel] : [];
    case 'postcode':
      return [...entry.postcodes];
    default:
      return [
        entry.name,
        ...entry.otherNames,
        ...entry.cities,
        entry.isil,
        ...entry.postcodes,
      ].concat(entry.sigel ? [entry.sigel] : []);
  }
}

/** Whether one of `texts`, folded, holds the words `phrase` together and in this order. */
export function holdsPhrase(texts: readonly string[], phrase: readonly string[]): boolean {
  if (phrase.length === 0) return true;
  const wanted = ` ${phrase.join(' ')} `;
  return texts.some((t) => ` ${words(t).join(' ')} `.includes(wanted));
}

/** Whether the identifier `id` has a code `code` is, or begins from three characters. */
function codeOf(id: string | undefined, code: string): boolean {
  if (!id) return false;
  const parts = words(id);
  return [...parts, parts.join('')].some(
    (c) => c === code || (code.length >= 3 && c.startsWith(code)),
  );
}

/** The entries found by every map of `all`, their scores summed. */
function intersect(all: readonly Found[]): Found {
  if (all.length === 0) return new Map();
  const [first, ...rest] = [...all].sort((a, b) => a.size - b.size);
  const out: Found = new Map();
  for (const [id, score] of first!) {
    let sum = score;
    let everywhere = true;
    for (const other of rest) {
      const s = other.get(id);
      if (s === undefined) {
        everywhere = false;
        break;
      }
      sum += s;
    }
    if (everywhere) out.set(id, sum);
  }
  return out;
}

function term(lookup: Lookup, node: QueryNode & { kind: 'term' }, keep: Keep): Found {
  const { field, text } = node;
  let found: Found;
  switch (field) {
    case 'type':
      return filtered(lookup, (e) => keep(e) && (e.type ?? 'unknown') === text);
    case 'country':
      return filtered(lookup, (e) => keep(e) && e.country === text.toUpperCase());
    case 'isil':
    case 'sigel': {
      const code = words(text).join('');
      const raw = lookup.code('identifiers', code, keep);
      found = new Map(
        [...raw].filter(([id]) =>
          codeOf(field === 'isil' ? lookup.entries[id]!.isil : lookup.entries[id]!.sigel, code),
        ),
      );
      break;
    }
    case 'postcode':
      found = lookup.code('postcodes', words(text).join(''), keep);
      break;
    case 'name':
    case 'city': {
      const fields = field === 'name' ? ['name', 'other'] : ['place'];
      found = intersect([...new Set(words(text))].map((w) => lookup.word(w, fields, keep)));
      break;
    }
    default:
      found = lookup.any(text, keep);
  }
  if (!node.phrase) return found;
  const phrase = words(text);
  for (const id of found.keys())
    if (!holdsPhrase(texts(lookup.entries[id]!, field), phrase)) found.delete(id);
  return found;
}

/** Every entry `keep` keeps, with no score: a filter's matches. */
function filtered(lookup: Lookup, keep: Keep): Found {
  const out: Found = new Map();
  lookup.entries.forEach((e, id) => {
    if (keep(e)) out.set(id, 0);
  });
  return out;
}

/** A filter term (`type:`, `country:`, or NOT one) as a test of an entry, else undefined. */
function filterOf(node: QueryNode): Keep | undefined {
  if (node.kind === 'not') {
    const inner = filterOf(node.operand);
    return inner && ((e) => !inner(e));
  }
  if (node.kind !== 'term') return undefined;
  if (node.field === 'type') return (e) => (e.type ?? 'unknown') === node.text;
  if (node.field === 'country') return (e) => e.country === node.text.toUpperCase();
  return undefined;
}

function evaluate(lookup: Lookup, node: QueryNode, keep: Keep): Found {
  switch (node.kind) {
    case 'term':
      return term(lookup, node, keep);
    case 'and': {
      // A filter beside a term narrows what the term finds: no map of every entry it keeps.
      const right = filterOf(node.right);
      const left = right ? undefined : filterOf(node.left);
      const filter = right ?? left;
      if (filter)
        return evaluate(lookup, right ? node.left : node.right, (e) => keep(e) && filter(e));
      // `a -b`: what a finds, without what b finds (b is not looked up over everything).
      if (node.right.kind === 'not') {
        const found = evaluate(lookup, node.left, keep);
        for (const id of evaluate(lookup, node.right.operand, keep).keys()) found.delete(id);
        return found;
      }
      return intersect([evaluate(lookup, node.left, keep), evaluate(lookup, node.right, keep)]);
    }
    case 'or': {
      const out = evaluate(lookup, node.left, keep);
      for (const [id, score] of evaluate(lookup, node.right, keep))
        out.set(id, (out.get(id) ?? 0) + score);
      return out;
    }
    case 'not': {
      const all = filtered(lookup, keep);
      for (const id of evaluate(lookup, node.operand, keep).keys()) all.delete(id);
      return all;
    }
  }
}

/**
 * The entries `query` finds among those `keep` keeps, with their scores. A query without operators
 * whose terms are not all found together finds any of them, as a plain query does.
 */
export function fieldedSearch(lookup: Lookup, query: FieldedQuery, keep: Keep): Found {
  const found = evaluate(lookup, query.node, keep);
  if (found.size > 0 || query.operators) return found;
  return evaluate(lookup, anyTerm(query.node), keep);
}
