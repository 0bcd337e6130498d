// Fielded queries (docs/search.md, the grammar): `name:`, `isil:`, `sigel:`, `city:`,
// `postcode:`, `type:` and `country:`, quoted phrases, AND / OR / NOT (or + / -) and parentheses,
// parsed by liqe (a Lucene-like grammar) into a tree the index evaluates (src/search/fielded.ts).
// What people typed before keeps its meaning: a query with none of that syntax is plain text, a
// `word:` is a field only when the word is one of the fields, and punctuation the grammar would
// read otherwise (`,` `'` `/` `*` …) separates words, as the index's folding does. A malformed
// query throws `QuerySyntaxError` with what is wrong and where.
import { parse, type ParserAst, type TagToken } from 'liqe';

export const QUERY_FIELDS = [
  'name',
  'isil',
  'sigel',
  'city',
  'postcode',
  'type',
  'country',
] as const;
export type QueryField = (typeof QUERY_FIELDS)[number];

/** The kinds `type:` takes, as the `type` parameter does. */
export const QUERY_TYPES: readonly string[] = ['library', 'archive', 'museum', 'other', 'unknown'];

export type QueryNode =
  | {
      readonly kind: 'term';
      /** `undefined`: every field, as a bare word searches today. */
      readonly field: QueryField | undefined;
      readonly text: string;
      /** Quoted: its words together and in order, checked on the folded field. */
      readonly phrase: boolean;
    }
  | { readonly kind: 'and' | 'or'; readonly left: QueryNode; readonly right: QueryNode }
  | { readonly kind: 'not'; readonly operand: QueryNode };

/** A fielded query: its tree, and whether it has operators (then no fallback to any word). */
export interface FieldedQuery {
  readonly node: QueryNode;
  readonly operators: boolean;
}

/** A query that cannot be read: what is wrong, and at which character (from 1). */
export class QuerySyntaxError extends Error {
  constructor(
    readonly what: string,
    readonly position: number,
  ) {
    super(`q: ${what} at character ${position}.`);
    this.name = 'QuerySyntaxError';
  }
}

const FIELD_AT = new RegExp(`(?:^|[\\s(+-])(?:${QUERY_FIELDS.join('|')}):`, 'u');
const OPERATOR = /(?:^|[\s(])(?:AND|OR|NOT)(?=$|[\s()])|(?:^|[\s(])[+-](?=[^\s+-])/u;

/** Whether `q` uses any of the grammar: else it is plain text, searched as before. */
export const usesSyntax = (q: string): boolean =>
  /["()]/.test(q) || FIELD_AT.test(q) || OPERATOR.test(q);

/**
 * `q` with what the grammar must not see blanked, character for character (so liqe's positions
 * are `q`'s): outside quotes, every character but letters, digits, spaces, `-`, `.`, `_`, the
 * parentheses and the colon of a field; a `+` before a word (AND is the default).
 */
function prepared(q: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < q.length; i++) {
    const c = q[i]!;
    if (c === '"') quoted = !quoted;
    // A dash standing alone (`Museum - Kunst`) separates words; before a word it is NOT.
    if (!quoted && c === '-' && /^(?:$|[\s)])/.test(q.slice(i + 1, i + 2))) out += ' ';
    else if (quoted || c === '"' || /[\p{L}\p{N}\s().\-_]/u.test(c)) out += c;
    else if (
      c === ':' &&
      new RegExp(`(?:^|[\\s(+-])(?:${QUERY_FIELDS.join('|')})$`, 'u').test(q.slice(0, i))
    )
      out += c;
    else out += ' ';
  }
  return out;
}

/** The quotes and parentheses, checked before the parser, which says only that input ended. */
function balanced(text: string): void {
  const quotes = [...text].flatMap((c, i) => (c === '"' ? [i] : []));
  if (quotes.length % 2) throw new QuerySyntaxError('a quote is not closed', quotes.at(-1)! + 1);
  const open: number[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (quoted) continue;
    else if (c === '(') open.push(i);
    else if (c === ')' && open.pop() === undefined)
      throw new QuerySyntaxError('a ) closes no (', i + 1);
  }
  if (open.length) throw new QuerySyntaxError('a ( is not closed', open.at(-1)! + 1);
}

/** An operator at the end, before `)`, or after another: it has nothing to work on. */
function operands(text: string): void {
  const tokens = [...text.matchAll(/"[^"]*"|[()]|[^\s()"]+/gu)];
  tokens.forEach((token, i) => {
    const word = token[0];
    const next = tokens[i + 1]?.[0];
    const previous = tokens[i - 1]?.[0];
    const binary = word === 'AND' || word === 'OR';
    if (!binary && word !== 'NOT') return;
    if (next === undefined || next === ')' || next === 'AND' || next === 'OR')
      throw new QuerySyntaxError(`${word} has nothing after it`, token.index + 1);
    if (binary && (previous === undefined || previous === '(' || previous === 'NOT'))
      throw new QuerySyntaxError(`${word} has nothing before it`, token.index + 1);
  });
}

interface Converted {
  node: QueryNode | undefined;
  operators: boolean;
}

function tag(ast: TagToken, q: string): QueryNode | undefined {
  const { expression, field } = ast;
  const name = field.type === 'Field' ? (field.name as QueryField) : undefined;
  if (expression.type === 'EmptyExpression') {
    if (name)
      throw new QuerySyntaxError(`${name}: has no value right after it`, ast.location.start + 1);
    return undefined;
  }
  if (expression.type !== 'LiteralExpression')
    throw new QuerySyntaxError('this is not a word or a phrase', expression.location.start + 1);
  const text = expression.quoted
    ? expression.value
    : q.slice(expression.location.start, expression.location.end);
  if (name === 'type' && !QUERY_TYPES.includes(text))
    throw new QuerySyntaxError(
      `type: is one of ${QUERY_TYPES.join(', ')}`,
      expression.location.start + 1,
    );
  if (name === 'country' && !/^[A-Za-z0-9]{1,8}$/.test(text))
    throw new QuerySyntaxError('country: is an ISIL prefix', expression.location.start + 1);
  // An empty phrase (`""`) asks for nothing.
  if (!/[\p{L}\p{N}]/u.test(text)) return undefined;
  return { kind: 'term', field: name, text, phrase: expression.quoted };
}

function convert(ast: ParserAst, q: string): Converted {
  switch (ast.type) {
    case 'EmptyExpression':
      return { node: undefined, operators: false };
    case 'Tag':
      return { node: tag(ast, q), operators: false };
    case 'ParenthesizedExpression':
      return convert(ast.expression, q);
    case 'UnaryOperator': {
      const operand = convert(ast.operand, q);
      return {
        node: operand.node && { kind: 'not', operand: operand.node },
        operators: true,
      };
    }
    case 'LogicalExpression': {
      const left = convert(ast.left, q);
      const right = convert(ast.right, q);
      const kind = ast.operator.operator === 'OR' ? 'or' : 'and';
      const operators =
        left.operators || right.operators || ast.operator.type === 'BooleanOperator';
      if (!left.node || !right.node) return { node: left.node ?? right.node, operators };
      return { node: { kind, left: left.node, right: right.node }, operators };
    }
  }
}

/** Whether `node` is bare words joined by AND alone: the plain search, which ranks them as ever. */
function plainWords(node: QueryNode): string[] | undefined {
  if (node.kind === 'term') return node.field || node.phrase ? undefined : [node.text];
  if (node.kind !== 'and') return undefined;
  const left = plainWords(node.left);
  const right = left && plainWords(node.right);
  return left && right && [...left, ...right];
}

/**
 * `q` as a fielded query, or `undefined` when it is plain text (searched as before, with the
 * fallback to any word). Throws `QuerySyntaxError` for a malformed one.
 */
export function parseQuery(q: string): FieldedQuery | undefined {
  if (!usesSyntax(q)) return undefined;
  const text = prepared(q);
  balanced(text);
  operands(text);
  const group = new RegExp(`(?:^|[\\s(+-])(${QUERY_FIELDS.join('|')}):\\(`, 'u').exec(text);
  if (group)
    throw new QuerySyntaxError(
      `${group[1]}: takes a word or a quoted phrase, not a group`,
      group.index + (group[0].length - group[1]!.length - 2) + 1,
    );
  let ast: ParserAst;
  try {
    ast = parse(text);
  } catch (error) {
    const offset = (error as { offset?: unknown }).offset;
    if (typeof offset === 'number') throw new QuerySyntaxError('this cannot be read', offset + 1);
    throw new QuerySyntaxError('the query ends too early', q.length + 1);
  }
  const { node, operators } = convert(ast, text);
  if (!node) return undefined;
  if (!operators && plainWords(node)) return undefined;
  return { node, operators };
}

/**
 * The fallback of a query without operators: its terms joined by OR, as a plain query falls back
 * to any of its words; a `type:` or `country:` stays a filter, as the parameters are.
 */
export function anyTerm(node: QueryNode): QueryNode {
  const terms: QueryNode[] = [];
  const walk = (n: QueryNode): void => {
    if (n.kind === 'term') terms.push(n);
    else if (n.kind === 'not') walk(n.operand);
    else {
      walk(n.left);
      walk(n.right);
    }
  };
  walk(node);
  const isFilter = (t: QueryNode) =>
    t.kind === 'term' && (t.field === 'type' || t.field === 'country');
  const words = terms.filter((t) => !isFilter(t));
  if (words.length === 0) return node;
  const any = words.reduce((left, right) => ({ kind: 'or', left, right }));
  return terms.filter(isFilter).reduce((left, right) => ({ kind: 'and', left, right }), any);
}

/** The fielded form of a facet: what a person could have typed instead of clicking it. */
export function fieldedFacet(field: 'city' | 'country' | 'type', value: string): string {
  return /^[\p{L}\p{N}\-_.]+$/u.test(value)
    ? `${field}:${value}`
    : `${field}:"${value.replace(/"/g, '')}"`;
}
