// A small N-Triples reader (RDF 1.1 N-Triples) for the store's CONSTRUCT output: one triple a line,
// read without a general tokenizer because it runs on every uncached request.
import { DataFactory, type Literal, type Quad, type Quad_Object, type Quad_Subject } from 'n3';

const { namedNode, blankNode, literal, quad } = DataFactory;

export class NTriplesError extends Error {
  override name = 'NTriplesError';
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
function unescape(text: string): string {
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

export function parseNTriples(text: string): Quad[] {
  const quads: Quad[] = [];
  const n = text.length;
  let i = 0;

  const fail = (what: string): never => {
    throw new NTriplesError(`${what} at offset ${i}`);
  };
  const space = () => {
    while (i < n && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
  };
  const iri = (): string => {
    const end = text.indexOf('>', i + 1);
    if (end < 0) fail('unterminated IRI');
    const raw = text.slice(i + 1, end);
    i = end + 1;
    return raw.includes('\\') ? unescape(raw) : raw;
  };
  const blank = (): string => {
    let end = i + 2;
    while (end < n && !' \t\n\r'.includes(text[end]!)) end++;
    const label = text.slice(i + 2, end);
    i = end;
    return label;
  };
  const subjectOrObject = (allowLiteral: boolean): Quad_Subject | Quad_Object => {
    const c = text[i];
    if (c === '<') return namedNode(iri());
    if (c === '_' && text[i + 1] === ':') return blankNode(blank());
    if (c === '"' && allowLiteral) return lit();
    return fail(`unexpected ${JSON.stringify(c ?? 'end of input')}`);
  };
  const lit = (): Literal => {
    let end = i + 1;
    for (;;) {
      end = text.indexOf('"', end);
      if (end < 0) fail('unterminated literal');
      let backslashes = 0;
      for (let k = end - 1; text[k] === '\\'; k--) backslashes++;
      if (backslashes % 2 === 0) break;
      end++;
    }
    const raw = text.slice(i + 1, end);
    const value = raw.includes('\\') ? unescape(raw) : raw;
    i = end + 1;
    if (text[i] === '@') {
      const start = ++i;
      while (i < n && /[A-Za-z0-9-]/.test(text[i]!)) i++;
      return literal(value, text.slice(start, i));
    }
    if (text[i] === '^' && text[i + 1] === '^') {
      i += 2;
      if (text[i] !== '<') fail('expected a datatype IRI');
      return literal(value, namedNode(iri()));
    }
    return literal(value);
  };

  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13 || c === 32 || c === 9) {
      i++;
      continue;
    }
    if (c === 35) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
      continue;
    }
    const s = subjectOrObject(false) as Quad_Subject;
    space();
    if (text[i] !== '<') fail('expected a predicate IRI');
    const p = namedNode(iri());
    space();
    const o = subjectOrObject(true) as Quad_Object;
    space();
    if (text[i] !== '.') fail('expected "."');
    i++;
    quads.push(quad(s, p, o));
  }
  return quads;
}
