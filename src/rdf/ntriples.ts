// A small N-Triples reader (RDF 1.1 N-Triples) for the store's CONSTRUCT output: one triple a line,
// split into the text of its terms without a general tokenizer because it runs on every uncached
// request; terms become RDF/JS terms only when a serializer asks for them.
import {
  DataFactory,
  type NamedNode,
  type Quad,
  type Quad_Object,
  type Quad_Subject,
  type Term,
} from 'n3';

const { namedNode, blankNode, literal, quad } = DataFactory;

export class NTriplesError extends Error {
  override name = 'NTriplesError';
}

/**
 * A triple as the N-Triples text of its terms (`<iri>`, `_:label`, `"lexical"@lang`,
 * `"lexical"^^<datatype>`). The same term always has the same text in one writer's output, so the
 * text serves as the term's key, and, being valid Turtle too, is copied into Turtle as it is.
 */
export interface Triple {
  readonly s: string;
  readonly p: string;
  readonly o: string;
}

const ECHAR: Readonly<Record<string, string>> = {
  t: '\t',
  b: '\b',
  n: '\n',
  r: '\r',
  f: '\f',
  '"': '"',
  "'": "'",
  '\\': '\\',
};

/** Resolves ECHAR and UCHAR escapes (N-Triples §2.4). */
function resolveEscapes(text: string): string {
  return text.replace(
    /\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))/g,
    (all, u4?: string, u8?: string, c?: string) => {
      if (u4 || u8) return String.fromCodePoint(parseInt((u4 ?? u8)!, 16));
      const e = ECHAR[c!];
      if (e === undefined) throw new NTriplesError(`invalid escape ${all}`);
      return e;
    },
  );
}

/** IRIREF (N-Triples §2.3): no space, control or delimiter character; UCHAR escapes allowed. */
const IRIREF = String.raw`<(?:[^\u0000-\u0020<>"{}|^${'`'}\\]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*>`;
const BLANK = String.raw`_:[^\s.]+(?:\.+[^\s.]+)*`;
/** STRING_LITERAL_QUOTE with its ECHAR and UCHAR escapes, then a language tag or a datatype. */
const LITERAL = String.raw`"(?:[^"\\\n\r]|\\[tbnrf"'\\]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*"(?:@[A-Za-z]+(?:-[A-Za-z0-9]+)*|\^\^${IRIREF})?`;
/**
 * One triple, after any blank or comment lines; or the end of the input (no capture). Sticky, so
 * that each match starts where the last one ended: a line that is no triple fails the match.
 */
const TRIPLE = new RegExp(
  String.raw`(?:[ \t\r\n]|#[^\n]*)*(?:(${IRIREF}|${BLANK})[ \t]+(${IRIREF})[ \t]+(${IRIREF}|${BLANK}|${LITERAL})[ \t]*\.[ \t\r]*(?:#[^\n]*)?(?:\n|$)|$)`,
  'y',
);

/**
 * The triples of an N-Triples document as the text of their terms. The syntax and the escapes are
 * checked (a line that is no triple throws); escapes are resolved only by `decodeTerm` and
 * `lexicalForm`, when a serializer needs a term's value.
 */
export function splitNTriples(text: string): Triple[] {
  const triples: Triple[] = [];
  TRIPLE.lastIndex = 0;
  for (;;) {
    const at = TRIPLE.lastIndex;
    const match = TRIPLE.exec(text);
    if (!match) {
      const line = text.slice(at).trimStart().split('\n', 1)[0]!;
      throw new NTriplesError(`not a triple: ${JSON.stringify(line.slice(0, 80))}`);
    }
    if (match[1] === undefined) return triples;
    triples.push({ s: match[1], p: match[2]!, o: match[3]! });
  }
}

// First characters of the terms, and the last of an IRI.
const IRI_OPEN = 60; // <
const BLANK_OPEN = 95; // _
const QUOTE = 34; // "
const IRI_CLOSE = 62; // >
const COLON = 58; // : of _:

/**
 * Whether the object from `start` to `end` is one term of its kind as far as its ends show: an IRI
 * or a blank node without a space (a space means another shape, or an IRI a lenient load let in),
 * a literal whose closing quote is followed by nothing, a language tag or a datatype IRI.
 */
function wellEnded(text: string, start: number, end: number, first: number): boolean {
  if (first === IRI_OPEN || first === BLANK_OPEN) {
    const space = text.indexOf(' ', start);
    return (
      (space < 0 || space >= end) &&
      (first === BLANK_OPEN
        ? text.charCodeAt(start + 1) === COLON
        : text.charCodeAt(end - 1) === IRI_CLOSE)
    );
  }
  if (first !== QUOTE) return false;
  const close = text.lastIndexOf('"', end - 1);
  if (close <= start) return false;
  if (close === end - 1) return true;
  const space = text.indexOf(' ', close);
  if (space >= 0 && space < end) return false;
  const after = text.charCodeAt(close + 1);
  return (
    after === 64 /* @ */ ||
    (text.startsWith('^^<', close + 1) && text.charCodeAt(end - 1) === IRI_CLOSE)
  );
}

/**
 * `splitNTriples` for N-Triples as writers put it (Oxigraph's and N3's among them): a triple a
 * line, its terms split by one space, ` .` at the end of each line (`lines`, `splitLine`). Read by
 * position, about four times as fast as the grammar, since this runs on every uncached document.
 * The terms are checked at their ends only (their kind, and no space where none can be), not
 * inside: text in any other shape (tabs, comments, blank lines, a term of the wrong kind, an IRI
 * with a space, a line without its ` .`) is read by `splitNTriples`, which checks it and throws
 * where it breaks.
 */
export function splitWrittenNTriples(text: string): Triple[] {
  const triples: Triple[] = [];
  for (const written of lines(text)) {
    const line = splitLine(written);
    if (line === undefined || !wellWritten(line)) return splitNTriples(text);
    triples.push({ s: line.s, p: line.p, o: line.o });
  }
  return triples;
}

/** Whether each term of `line` is one term of its kind as far as its ends show. */
function wellWritten({ s, p, o }: Line): boolean {
  const s0 = s.charCodeAt(0);
  return (
    (s0 === BLANK_OPEN
      ? s.charCodeAt(1) === COLON
      : s0 === IRI_OPEN && s.charCodeAt(s.length - 1) === IRI_CLOSE && !s.includes(' ')) &&
    p.charCodeAt(p.length - 1) === IRI_CLOSE &&
    !p.includes(' ') &&
    o.length > 0 &&
    wellEnded(o, 0, o.length, o.charCodeAt(0))
  );
}

/** The lexical form of a literal term's text, escapes resolved. */
export function lexicalForm(text: string): string {
  const raw = text.slice(1, text.lastIndexOf('"'));
  return raw.includes('\\') ? resolveEscapes(raw) : raw;
}

/** The RDF/JS term of an N-Triples term's text (as `splitNTriples` returns it). */
export function decodeTerm(text: string): Term {
  const c = text.charCodeAt(0);
  if (c === 60) {
    const iri = text.slice(1, -1);
    return namedNode(iri.includes('\\') ? resolveEscapes(iri) : iri);
  }
  if (c === 95) return blankNode(text.slice(2));
  const close = text.lastIndexOf('"');
  const value = lexicalForm(text);
  if (text.charCodeAt(close + 1) === 64 /* @ */) return literal(value, text.slice(close + 2));
  if (close + 1 < text.length)
    return literal(value, decodeTerm(text.slice(close + 3)) as NamedNode);
  return literal(value);
}

/** RDF/JS quads of an N-Triples document. */
export function parseNTriples(text: string): Quad[] {
  return quadsOfTriples(splitNTriples(text));
}

/** RDF/JS quads of triples split by `splitNTriples` or `splitWrittenNTriples`. */
export function quadsOfTriples(triples: readonly Triple[]): Quad[] {
  return triples.map((t) =>
    quad(
      decodeTerm(t.s) as Quad_Subject,
      decodeTerm(t.p) as NamedNode,
      decodeTerm(t.o) as Quad_Object,
    ),
  );
}

/** One line of N-Triples as Oxigraph (or the converter) writes it, split into its terms. */
export interface Line {
  readonly text: string;
  readonly s: string;
  readonly p: string;
  readonly o: string;
}

/**
 * Splits a line as Oxigraph and the record converter write it: terms split by one space, ` .` at
 * the end. An IRI ends at its `> ` (a lenient load may have let a space into one); a blank node's
 * label has no space. `undefined` for a line in any other shape.
 */
export function splitLine(text: string): Line | undefined {
  const sEnd = text.startsWith('<') ? text.indexOf('> ') + 1 : text.indexOf(' ');
  if (sEnd <= 0 || !text.startsWith('<', sEnd + 1)) return undefined;
  const pEnd = text.indexOf('> ', sEnd + 1) + 1;
  if (pEnd <= 0 || !text.endsWith(' .')) return undefined;
  return {
    text,
    s: text.slice(0, sEnd),
    p: text.slice(sEnd + 1, pEnd),
    o: text.slice(pEnd + 1, -2),
  };
}

/**
 * The lines of N-Triples or N-Quads text, without their line ends and without empty lines: the
 * one place that cuts such text into lines (`splitLine` then splits a line into its terms).
 */
export function* lines(text: string): Generator<string> {
  for (let start = 0, end; start < text.length; start = end + 1) {
    end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (end > start) yield text.slice(start, end);
  }
}
