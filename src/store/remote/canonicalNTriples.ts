// N-Triples from a remote store in the form the embedded store writes: Virtuoso separates terms by
// tabs and writes every non-ASCII character as a `\u` escape. Both are valid N-Triples, but the
// documents are written from the terms' text: without this, a Turtle document from Virtuoso would
// say `M\u00FCnchen` where the embedded store's says `München`, and the two would differ in bytes
// and ETag for the same data.

/** An escaped backslash, a surrogate pair, or one `\u`/`\U` escape. */
const ESCAPE =
  /\\\\|\\u(D[89AB][0-9A-F]{2})\\u(D[C-F][0-9A-F]{2})|\\u([0-9A-F]{4})|\\U([0-9A-F]{8})/gi;

/** Whether a code point is written escaped in canonical N-Triples (or cannot stand alone). */
function staysEscaped(cp: number): boolean {
  return cp < 0x20 || cp === 0x22 || cp === 0x5c || cp === 0x7f || (cp >= 0xd800 && cp <= 0xdfff);
}

function unescape(
  match: string,
  high: string | undefined,
  low: string | undefined,
  four: string | undefined,
  eight: string | undefined,
): string {
  if (high !== undefined && low !== undefined)
    return String.fromCharCode(parseInt(high, 16), parseInt(low, 16));
  const hex = four ?? eight;
  if (hex === undefined) return match; // an escaped backslash stays as it is
  const cp = parseInt(hex, 16);
  return cp > 0x10ffff || staysEscaped(cp) ? match : String.fromCodePoint(cp);
}

/** `text` (N-Triples) with one space between terms and characters unescaped where they may be. */
export function canonicalNTriples(text: string): string {
  // A tab inside a literal is written `\t`: a tab character is a separator.
  const spaced = text.includes('\t') ? text.replace(/\t/g, ' ') : text;
  return spaced.includes('\\u') || spaced.includes('\\U')
    ? spaced.replace(ESCAPE, unescape)
    : spaced;
}
