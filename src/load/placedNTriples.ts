// An N-Triples file parsed once straight into the graphs of its descriptions: a first pass over
// its lines finds each description's members (as `descriptionQuads` would), a second hands the
// same lines to the store as N-Quads, each with its description's graph: no default graph to dump
// and parse again. A file this reading cannot vouch for is left to the store's parser as before.
import { StringDecoder } from 'node:string_decoder';
import { descriptionIriOf, otherScheme, RESOURCE_PATH } from '../rdf/iris';
import type { Line } from '../rdf/ntriples';
import { MAX_BLANK_NODE_DEPTH, NAMED_LINKS } from '../store/descriptions';
import { LoadError } from './loadError';
import { Positions } from './positions';
import { chunks, CHUNK_BYTES, type Hasher } from './reading';

/** What a line holds: nothing (blank, a comment), a triple, or what this reading does not vouch for. */
type Split = 'nothing' | 'unknown' | (Line & { readonly start: number; readonly end: number });

const SPACE = 0x20;
const TAB = 0x09;
const isSpace = (code: number) => code === SPACE || code === TAB;

/** Whether an IRI's text from `at` (after its `<`) to `close` starts with a scheme (RFC 3987). */
function absolute(line: string, at: number, close: number): boolean {
  const first = line.charCodeAt(at) | 0x20;
  if (first < 0x61 || first > 0x7a) return false;
  for (let i = at + 1; i < close; i++) {
    const c = line.charCodeAt(i);
    if (c === 0x3a) return true;
    const letter = (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;
    const digit = c >= 0x30 && c <= 0x39;
    if (!letter && !digit && c !== 0x2b && c !== 0x2e && c !== 0x2d) return false;
  }
  return false;
}

/** Where the term starting at `at` ends, or -1 when it is not one this reading vouches for. */
function termEnd(line: string, at: number, literal: boolean): number {
  const first = line.charCodeAt(at);
  if (first === 0x3c /* < */) {
    const close = line.indexOf('>', at);
    // An escape would make the IRI's text another than the store's: not compared here.
    if (close === -1 || line.lastIndexOf('\\', close) > at) return -1;
    return absolute(line, at + 1, close) ? close + 1 : -1;
  }
  if (first === 0x5f /* _ */ && line.charCodeAt(at + 1) === 0x3a /* : */) {
    let end = at + 2;
    for (; end < line.length; end++) {
      const c = line.charCodeAt(end);
      if (isSpace(c) || c === 0x3c || c === 0x3e || c === 0x22) break;
    }
    // A label does not end with a dot: one there ends the statement.
    while (line.charCodeAt(end - 1) === 0x2e) end--;
    return end > at + 2 ? end : -1;
  }
  if (first !== 0x22 /* " */ || !literal) return -1;
  let end = at + 1;
  for (; end < line.length; end++) {
    const c = line.charCodeAt(end);
    if (c === 0x22) break;
    if (c === 0x5c /* \ */) end++;
  }
  if (end >= line.length) return -1;
  end++;
  if (line.charCodeAt(end) === 0x40 /* @ */) {
    end++;
    for (; end < line.length; end++) {
      const c = line.charCodeAt(end);
      const letter = (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;
      if (!letter && !(c >= 0x30 && c <= 0x39) && c !== 0x2d) break;
    }
  } else if (line.startsWith('^^', end)) return termEnd(line, end + 2, false);
  return end;
}

function skipSpace(line: string, at: number): number {
  while (at < line.length && isSpace(line.charCodeAt(at))) at++;
  return at;
}

/**
 * The subject, predicate and object of an N-Triples line, with where its object ends; 'nothing'
 * for a line without a statement, 'unknown' for one this reading cannot vouch for (the store's
 * parser then reads the whole file, and says what is wrong with it).
 */
export function splitTriple(line: string): Split {
  const start = skipSpace(line, 0);
  if (start === line.length || line[start] === '#') return 'nothing';
  const sEnd = termEnd(line, start, false);
  if (sEnd === -1 || line[start] === '"') return 'unknown';
  const pStart = skipSpace(line, sEnd);
  if (pStart === sEnd || line[pStart] !== '<') return 'unknown';
  const pEnd = termEnd(line, pStart, false);
  if (pEnd === -1) return 'unknown';
  const oStart = skipSpace(line, pEnd);
  const oEnd = termEnd(line, oStart, true);
  if (oEnd === -1) return 'unknown';
  const dot = skipSpace(line, oEnd);
  if (line[dot] !== '.') return 'unknown';
  const after = skipSpace(line, dot + 1);
  if (after < line.length && line[after] !== '#') return 'unknown';
  return {
    text: line,
    s: line.slice(start, sEnd),
    p: line.slice(pStart, pEnd),
    o: line.slice(oStart, oEnd),
    start,
    end: oEnd,
  };
}

/** The file's lines, decoded, each without its newline. */
function* linesOf(fd: number, hash?: Hasher): Generator<string> {
  const decoder = new StringDecoder('utf8');
  let carry = '';
  for (const chunk of chunks(fd, hash)) {
    const text = carry + decoder.write(chunk);
    const lines = text.split('\n');
    carry = lines.pop()!;
    yield* lines;
  }
  const last = carry + decoder.end();
  if (last !== '') yield last;
}

/** One graph, or several: most nodes are in one, and a set each costs a hundred bytes and more. */
type Graphs = string | Set<string>;

function addGraph(map: Map<string, Graphs>, node: string, graph: string): void {
  const graphs = map.get(node);
  if (graphs === undefined) map.set(node, graph);
  else if (typeof graphs !== 'string') graphs.add(graph);
  else if (graphs !== graph) map.set(node, new Set([graphs, graph]));
}

/** Which graphs each subject's triples go into: the first pass's findings. */
export class DescriptionPlan {
  /** Each line's subject start and end, and its object's end: -1 for a line without a triple. */
  readonly subjectStarts = new Positions();
  readonly subjectEnds = new Positions();
  readonly objectEnds = new Positions();
  /** Each line's length, and how many there were: the second pass checks it reads the same file. */
  readonly lengths = new Positions();
  lines = 0;
  /**
   * The last line (from 1) each blank-node label is on, when the plan was asked to keep them
   * (`placedPieces`: the file is then loaded in pieces that no blank node spans).
   */
  readonly lastLines: Map<string, number> | undefined;
  private readonly institutions = new Map<string, string>();
  /** Blank nodes each institution or blank node links to. */
  private readonly blanksBelow = new Map<string, string[]>();
  /** The graphs of the institutions that link to a named node with NAMED_LINKS. */
  private readonly linked = new Map<string, Graphs>();
  /** The graphs of the descriptions a blank node is in. */
  private readonly blankGraphs = new Map<string, Graphs>();
  private readonly prefix: string;
  private readonly other: string;

  constructor(baseIri: string, lastLines = false) {
    this.lastLines = lastLines ? new Map() : undefined;
    this.prefix = `<${baseIri}${RESOURCE_PATH}`;
    this.other = `<${otherScheme(baseIri)}/`;
  }

  /** Notes a triple; false when the file needs the base rewritten (then it is not read here). */
  add(line: Line): boolean {
    const { s, p, o } = line;
    if (s.startsWith(this.other) || o.startsWith(this.other)) return false;
    const graph = this.graphOf(s);
    if (o.startsWith('_:') && (graph !== undefined || s.startsWith('_:'))) {
      const below = this.blanksBelow.get(s);
      if (below) below.push(o);
      else this.blanksBelow.set(s, [o]);
    } else if (graph !== undefined && o.startsWith('<') && NAMED_LINKS.has(p)) {
      addGraph(this.linked, o, graph);
    }
    return true;
  }

  /** The graph of an institution's description, for a subject that is one. */
  private graphOf(subject: string): string | undefined {
    if (!subject.startsWith(this.prefix)) return undefined;
    let graph = this.institutions.get(subject);
    if (graph === undefined) {
      const description = descriptionIriOf(subject.slice(1, -1));
      if (description === undefined) return undefined;
      graph = `<${description}>`;
      this.institutions.set(subject, graph);
    }
    return graph;
  }

  /** Follows each institution's blank nodes down to MAX_BLANK_NODE_DEPTH levels. */
  close(): void {
    for (const [institution, graph] of this.institutions) {
      let blanks = this.blanksBelow.get(institution) ?? [];
      const seen = new Set<string>();
      for (let depth = 1; depth <= MAX_BLANK_NODE_DEPTH && blanks.length > 0; depth++) {
        const below: string[] = [];
        for (const blank of blanks) {
          if (seen.has(blank)) continue;
          seen.add(blank);
          addGraph(this.blankGraphs, blank, graph);
          below.push(...(this.blanksBelow.get(blank) ?? []));
        }
        blanks = below;
      }
    }
    this.blanksBelow.clear();
  }

  /** The graphs a triple with this subject goes into (none: the default graph). */
  graphs(subject: string): string[] {
    const graphs: string[] = [];
    const own = subject.startsWith(this.prefix) ? this.institutions.get(subject) : undefined;
    if (own !== undefined) graphs.push(own);
    const linked = this.linked.get(subject) ?? [];
    for (const graph of typeof linked === 'string' ? [linked] : linked)
      if (graph !== own) graphs.push(graph);
    const blank = this.blankGraphs.get(subject) ?? [];
    return typeof blank === 'string' ? [...graphs, blank] : [...graphs, ...blank];
  }
}

/**
 * The first pass: reads every line of the file (fed to `hash`), `check` seeing each triple, and
 * returns the plan, or undefined when a line is not one this reading vouches for or the file
 * needs its base rewritten (the whole file is read all the same, so that the hash holds it).
 */
export function planDescriptions(
  fd: number,
  baseIri: string,
  hash: Hasher | undefined,
  check: (line: Line) => void,
  lastLines = false,
): DescriptionPlan | undefined {
  const plan = new DescriptionPlan(baseIri, lastLines);
  const last = plan.lastLines;
  let number = 0;
  let vouched = true;
  /** The first refusal `check` made: a file that is not vouched for is refused by the parser first. */
  let refused: unknown;
  for (const text of linesOf(fd, hash)) {
    number++;
    if (!vouched) continue;
    plan.lengths.push(text.length);
    // A carriage return ends a line for the store's parser: its line numbers would differ. A
    // replacement character may stand for bytes that are not UTF-8: the store's parser refuses them.
    const line = /[\r\ufffd]/.test(text) ? 'unknown' : splitTriple(text);
    if (line === 'nothing') {
      plan.objectEnds.push(-1);
      plan.subjectStarts.push(-1);
      plan.subjectEnds.push(-1);
      continue;
    }
    if (line !== 'unknown') {
      if (last && line.s.startsWith('_:')) last.set(line.s, number);
      if (last && line.o.startsWith('_:')) last.set(line.o, number);
      plan.subjectStarts.push(line.start);
      plan.subjectEnds.push(line.start + line.s.length);
      plan.objectEnds.push(line.end);
    }
    if (line === 'unknown' || !plan.add(line)) vouched = false;
    else if (refused === undefined)
      try {
        check(line);
      } catch (error) {
        refused = error;
      }
  }
  if (!vouched) return undefined;
  if (refused !== undefined) throw refused;
  plan.lines = number;
  plan.close();
  return plan;
}

/**
 * Refuses the `n`-th line (from 0) of the second pass when it is not as long as the first pass
 * read it, or there was none: the file changed in between (edited in place), and the positions the
 * plan kept would cut its terms.
 */
function checkSame(plan: DescriptionPlan, n: number, text: string | undefined, file: string): void {
  if (text === undefined ? n === plan.lines : plan.lengths.get(n) === text.length) return;
  throw new LoadError(
    file,
    n + 1,
    1,
    'the file changed while it was read (this line is not as the first pass read it): load it again once it is written',
  );
}

/**
 * The second pass: the file's lines as N-Quads, each triple in its graphs, in pieces of about
 * CHUNK_BYTES. Every line keeps its number (what the store's parser says of a line is said of the
 * file's): a triple in several graphs is in the first on its line, in the others after the last.
 */
export function* placedQuads(fd: number, plan: DescriptionPlan, file: string): Generator<string> {
  const more: string[] = [];
  let piece: string[] = [];
  let size = 0;
  let n = 0;
  for (const text of linesOf(fd)) {
    checkSame(plan, n, text, file);
    // Where the first pass found the subject and the object's end (the same file, line by line).
    const end = plan.objectEnds.get(n);
    const start = plan.subjectStarts.get(n);
    const subjectEnd = plan.subjectEnds.get(n++);
    let out = text;
    if (end >= 0) {
      const [first, ...others] = plan.graphs(text.slice(start, subjectEnd));
      if (first !== undefined) out = `${text.slice(0, end)} ${first}${text.slice(end)}`;
      if (others.length > 0) {
        const line = splitTriple(text) as Line;
        for (const graph of others) more.push(`${line.s} ${line.p} ${line.o} ${graph} .`);
      }
    }
    piece.push(out);
    size += out.length + 1;
    if (size >= CHUNK_BYTES) {
      yield `${piece.join('\n')}\n`;
      piece = [];
      size = 0;
    }
  }
  checkSame(plan, n, undefined, file);
  piece.push(...more);
  if (piece.length > 0) yield `${piece.join('\n')}\n`;
}

/** A piece of the placed N-Quads, and the file's line its first line is. */
export interface PlacedPiece {
  readonly text: Buffer;
  readonly firstLine: number;
}

/**
 * The second pass as pieces of about CHUNK_BYTES that the store may parse one by one (each `load`
 * labels blank nodes anew): a piece ends only after the last line of every blank node it holds
 * (`DescriptionPlan.lastLines`), and a triple in several graphs is in the others after the
 * piece's last line, so that the file's lines keep their numbers from the piece's first.
 */
export function* placedPieces(
  fd: number,
  plan: DescriptionPlan,
  file: string,
): Generator<PlacedPiece> {
  const last = plan.lastLines;
  if (!last) throw new Error('the plan kept no last lines of its blank nodes');
  let piece: string[] = [];
  let more: string[] = [];
  let size = 0;
  /** The last line a blank node of the piece is on. */
  let open = 0;
  let firstLine = 1;
  let n = 0;
  const cut = (): PlacedPiece => {
    piece.push(...more);
    const done = { text: Buffer.from(`${piece.join('\n')}\n`), firstLine };
    piece = [];
    more = [];
    size = 0;
    firstLine = n + 1;
    return done;
  };
  for (const text of linesOf(fd)) {
    checkSame(plan, n, text, file);
    const end = plan.objectEnds.get(n);
    const start = plan.subjectStarts.get(n);
    const subjectEnd = plan.subjectEnds.get(n++);
    let out = text;
    if (end >= 0) {
      const [first, ...others] = plan.graphs(text.slice(start, subjectEnd));
      if (first !== undefined) out = `${text.slice(0, end)} ${first}${text.slice(end)}`;
      if (others.length > 0 || text.includes('_:')) {
        const line = splitTriple(text) as Line;
        for (const term of [line.s, line.o])
          if (term.startsWith('_:')) open = Math.max(open, last.get(term) ?? n);
        for (const graph of others) more.push(`${line.s} ${line.p} ${line.o} ${graph} .`);
      }
    }
    piece.push(out);
    size += out.length + 1;
    if (size >= CHUNK_BYTES && open <= n) yield cut();
  }
  checkSame(plan, n, undefined, file);
  if (piece.length > 0 || more.length > 0) yield cut();
}
