// A staff query as the endpoint receives it, checked on its parsed algebra (sparqlalgebrajs), never
// on its text: an update of any kind and SERVICE are refused, the query's form and projected
// variables are read, and a query that could answer more rows than the cap gets a LIMIT one past
// it, so that the store stops early and the answer can say it was cut. Both store adapters run
// only what passed here.
import { Algebra, Factory, toSparql, translate } from 'sparqlalgebrajs';

export type QueryForm = 'select' | 'ask' | 'construct' | 'describe';

export interface CheckedQuery {
  /** The text to run: the client's own, or its algebra written again with the row cap. */
  readonly text: string;
  readonly form: QueryForm;
  /** The projected variables of a SELECT, in order (names without `?`). */
  readonly variables: readonly string[];
  /** Whether the query names its own dataset (FROM, FROM NAMED). */
  readonly ownDataset: boolean;
  /** Whether `text` carries a LIMIT of the cap plus one (so a last row means "cut"). */
  readonly capped: boolean;
}

/** A query the endpoint will not run: 400 (it is not SPARQL) or 403 (it is not allowed here). */
export class QueryRefused extends Error {
  override name = 'QueryRefused';
  constructor(
    readonly status: 400 | 403,
    message: string,
  ) {
    super(message);
  }
}

const UPDATES = new Set<string>([
  'compositeupdate',
  'deleteinsert',
  'load',
  'clear',
  'create',
  'drop',
  'add',
  'move',
  'copy',
]);
const FORMS: Readonly<Record<string, QueryForm>> = {
  project: 'select',
  ask: 'ask',
  construct: 'construct',
  describe: 'describe',
};

export const READ_ONLY =
  'This endpoint is read-only: it answers SPARQL queries (SELECT, ASK, CONSTRUCT, DESCRIBE), never updates.';
export const NO_SERVICE =
  'SERVICE is not allowed here: this endpoint sends no requests to other hosts.';

interface ParseErrorHash {
  readonly loc?: { first_line?: number; last_line?: number; last_column?: number };
  readonly token?: string;
  readonly expected?: readonly string[];
}

/**
 * Where the token the parser stopped at starts: sparqljs (jison) gives the place of the token
 * before it, so the offending one is the next after white space and comments. Lines count from 1,
 * columns from 1.
 */
function errorPlace(
  text: string,
  hash: ParseErrorHash,
): { line: number; column: number } | undefined {
  const { last_line: lastLine, last_column: lastColumn } = hash.loc ?? {};
  if (lastLine === undefined || lastColumn === undefined) return undefined;
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  let at = (starts[lastLine - 1] ?? text.length) + lastColumn;
  while (at < text.length) {
    if (/\s/.test(text[at]!)) at++;
    else if (text[at] === '#') while (at < text.length && text[at] !== '\n') at++;
    else break;
  }
  let line = starts.length;
  while (line > 1 && starts[line - 1]! > at) line--;
  return { line, column: at - starts[line - 1]! + 1 };
}

/** "line 2, column 6: …" from sparqljs's parse error. */
function syntaxError(text: string, error: Error & { hash?: ParseErrorHash }): QueryRefused {
  // Not a parse error: sparqlalgebrajs could not translate what sparqljs parsed.
  if (error.hash === undefined)
    return new QueryRefused(
      400,
      `This query cannot be checked, so it is not run: ${error.message}`,
    );
  const place = errorPlace(text, error.hash);
  const expected = error.hash.expected?.map((e) => e.replace(/^'|'$/g, ''));
  const where = place ? `line ${place.line}, column ${place.column}` : 'an unknown place';
  const what =
    expected && expected.length > 0
      ? `unexpected ${error.hash.token === 'EOF' ? 'end of query' : JSON.stringify(error.hash.token)}; expected ${expected.slice(0, 8).join(', ')}${expected.length > 8 ? ', …' : ''}`
      : error.message.split('\n')[0]!;
  return new QueryRefused(400, `SPARQL syntax error at ${where}: ${what}`);
}

/** Every node of the algebra, breadth first (the outermost first), expressions included. */
function* nodes(root: unknown): Generator<Record<string, unknown>> {
  const queue: unknown[] = [root];
  const seen = new Set<unknown>();
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i];
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (!Array.isArray(node)) yield node as Record<string, unknown>;
    for (const value of Object.values(node)) if (typeof value === 'object') queue.push(value);
  }
}

/** Parses and checks `text`; `base` resolves relative IRIs. Throws QueryRefused. */
export function checkQuery(text: string, maxRows: number, base: string): CheckedQuery {
  let algebra: Algebra.Operation;
  try {
    algebra = translate(text, { quads: true, baseIRI: base });
  } catch (error) {
    throw syntaxError(text, error as Error);
  }
  if (UPDATES.has(algebra.type)) throw new QueryRefused(403, READ_ONLY);
  let form: QueryForm | undefined;
  let variables: readonly string[] = [];
  let ownDataset = false;
  for (const node of nodes(algebra)) {
    const type = node.type as string;
    if (type === Algebra.types.SERVICE) throw new QueryRefused(403, NO_SERVICE);
    if (type === Algebra.types.FROM) ownDataset = true;
    if (form === undefined && type in FORMS) {
      form = FORMS[type];
      if (type === Algebra.types.PROJECT)
        variables = (node as unknown as Algebra.Project).variables.map((v) => v.value);
    }
  }
  if (form === undefined) throw new QueryRefused(400, 'Not a SPARQL query form.');
  const capped = form !== 'ask' ? withCap(algebra, maxRows) : undefined;
  return { text: capped ?? text, form, variables, ownDataset, capped: capped !== undefined };
}

/** The query written again with a LIMIT one past `maxRows`, or undefined when it has a lower one. */
function withCap(algebra: Algebra.Operation, maxRows: number): string | undefined {
  const factory = new Factory();
  let bounded: Algebra.Operation;
  if (algebra.type === Algebra.types.SLICE) {
    const slice = algebra as Algebra.Slice;
    if (slice.length !== undefined && slice.length <= maxRows) return undefined;
    bounded = factory.createSlice(slice.input, slice.start, maxRows + 1);
  } else bounded = factory.createSlice(algebra, 0, maxRows + 1);
  try {
    return toSparql(bounded);
  } catch {
    // Written again it would not be the same query: it runs as sent, and its rows are cut after.
    return undefined;
  }
}
