// An N-Triples file parsed once straight into the graphs of its descriptions: a first pass over
// its lines finds each description's members (by the one rule, `DescriptionMembers`), a second
// hands the same lines to the store as N-Quads, each with its description's graph: no default
// graph to dump and parse again, which sets the peak of a whole registry's load (docs/loading.md,
// "Read"). A file this reading cannot vouch for goes to the store's parser.
import { StringDecoder } from 'node:string_decoder';
import { otherScheme } from '../../rdf/iris';
import type { Line } from '../../rdf/ntriples';
import { DescriptionMembers } from '../../store/descriptions';
import { LoadError } from '../loadError';
import { chunks, CHUNK_BYTES, type Hasher } from '../reading';

/**
 * Numbers a line at a time, in blocks: where the first pass found each line's terms, so that the
 * second does not split every line again.
 */
class Positions {
  private static readonly BLOCK = 1 << 16;
  private readonly blocks: Int32Array[] = [];
  private count = 0;

  push(value: number): void {
    const at = this.count % Positions.BLOCK;
    if (at === 0) this.blocks.push(new Int32Array(Positions.BLOCK));
    this.blocks.at(-1)![at] = value;
    this.count++;
  }

  get(n: number): number {
    if (n >= this.count) return -1;
    return this.blocks[Math.floor(n / Positions.BLOCK)]![n % Positions.BLOCK]!;
  }
}

/** The first pass's findings: each description's members, and where each line's terms are. */
export class DescriptionPlan {
  /** Each line's subject start and end, and its object's end: -1 for a line without a triple. */
  readonly subjectStarts = new Positions();
  readonly subjectEnds = new Positions();
  readonly objectEnds = new Positions();
  /** Each line's length, and how many there were: the second pass checks it reads the same file. */
  readonly lengths = new Positions();
  lines = 0;
  /**
   * The last line (from 1) each blank-node label is on: the file is loaded in pieces that no blank
   * node spans (`placedPieces`), each store load labelling blank nodes anew.
   */
  readonly lastLines = new Map<string, number>();
  readonly members: DescriptionMembers;
  private readonly other: string;

  constructor(baseIri: string) {
    this.members = new DescriptionMembers(baseIri);
    this.other = `<${otherScheme(baseIri)}/`;
  }

  /** Notes a triple; false when the file needs the base rewritten (then it is not read here). */
  add(line: Line): boolean {
    if (line.s.startsWith(this.other) || line.o.startsWith(this.other)) return false;
    this.members.add(line);
    return true;
  }
}

/** What a line holds: nothing (blank, a comment), a triple, or what this reading does not vouch for. */
type Split = 'nothing' | 'unknown' | (Line & { readonly start: number; readonly end: number });

const SPACE = 0x20;
const TAB = 0x09;
const isSpace = (code: number) => code === SPACE || code === TAB;
const isLetter = (code: number) => (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;

/** Whether an IRI's text from `at` (after its `<`) to `close` starts with a scheme (RFC 3987). */
function absolute(line: string, at: number, close: number): boolean {
  if (!isLetter(line.charCodeAt(at))) return false;
  for (let i = at + 1; i < close; i++) {
    const c = line.charCodeAt(i);
    if (c === 0x3a) return true;
    const digit = c >= 0x30 && c <= 0x39;
    if (!isLetter(c) && !digit && c !== 0x2b && c !== 0x2e && c !== 0x2d) return false;
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
      if (!isLetter(c) && !(c >= 0x30 && c <= 0x39) && c !== 0x2d) break;
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
): DescriptionPlan | undefined {
  const plan = new DescriptionPlan(baseIri);
  const last = plan.lastLines;
  let vouched = true;
  /** The first refusal `check` made: a file that is not vouched for is refused by the parser first. */
  let refused: unknown;
  for (const text of linesOf(fd, hash)) {
    if (!vouched) continue;
    const number = ++plan.lines;
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
    if (line === 'unknown' || !plan.add(line)) {
      vouched = false;
      continue;
    }
    if (line.s.startsWith('_:')) last.set(line.s, number);
    if (line.o.startsWith('_:')) last.set(line.o, number);
    plan.subjectStarts.push(line.start);
    plan.subjectEnds.push(line.start + line.s.length);
    plan.objectEnds.push(line.end);
    if (refused === undefined)
      try {
        check(line);
      } catch (error) {
        refused = error;
      }
  }
  if (!vouched) return undefined;
  if (refused !== undefined) throw refused;
  plan.members.close();
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
 * The second pass as pieces of about CHUNK_BYTES that the store may parse one by one (each `load`
 * labels blank nodes anew): a piece ends only after the last line of every blank node it holds
 * (`DescriptionPlan.lastLines`), and a triple in several graphs is in the others after the
 * piece's last line, so that the file's lines keep their numbers from the piece's first. Each
 * piece comes with the file's line its first line is.
 */
export function* placedPieces(
  fd: number,
  plan: DescriptionPlan,
  file: string,
): Generator<{ readonly text: Buffer; readonly firstLine: number }> {
  const last = plan.lastLines;
  let piece: string[] = [];
  let more: string[] = [];
  let size = 0;
  /** The last line a blank node of the piece is on. */
  let open = 0;
  let firstLine = 1;
  let n = 0;
  const cut = () => {
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
      const [first, ...others] = plan.members.graphs(text.slice(start, subjectEnd));
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
