// The limits of a load (docs/loading.md) and the checks that enforce them on the way in: input
// bytes, nesting depth of XML and JSON, literal length.
import { StringDecoder } from 'node:string_decoder';
import { SaxesParser } from 'saxes';
import { lexicalForm, lines, splitLine, type Line } from '../rdf/ntriples';
import { LoadError, refused } from './loadError';
import { chunks, figure } from './reading';

/**
 * The most bytes a load reads from its sources together, snapshots aside: 256 MiB. A load's memory
 * peaks at several bytes an input byte, most of it Oxigraph's WebAssembly memory, which cannot
 * pass 4 GiB (docs/loading.md, Memory), and sources in other formats are placed from one string of
 * the store's default graph: 256 MiB stays inside both that and V8's longest string (2^29 - 24
 * characters, about 512 MiB), with room above the ISIL directory's own sources.
 */
export const MAX_INPUT_BYTES = 256 * 1024 * 1024;

/**
 * The longest literal a load accepts, in characters: 64 Ki. A page that shows a literal builds
 * it anew for every request, so a literal of megabytes costs every request of its institution; the
 * longest in the real data (data/sources.json) has a few hundred characters.
 */
export const MAX_LITERAL_LENGTH = 64 * 1024;

/**
 * How deep a JSON-LD document (objects and arrays) or an RDF/XML document (elements) may nest:
 * 256 levels. Oxigraph's readers of both recurse: its JSON-LD reader overflows the WebAssembly
 * stack some hundreds of levels deeper (an error that leaves the store's module unusable), and its
 * RDF/XML reader takes time growing with the square of the depth (docs/loading.md, Limits).
 * Turtle, TriG, N-Triples and N-Quads have no such limit. The real data nests a few levels.
 */
export const MAX_NESTING_DEPTH = 256;

/**
 * Oxigraph's RDF/XML parser accepts a document cut off before its end (it loads what it read), so
 * XML is checked for well-formedness first: a truncated file must be refused, not half-loaded. So
 * is one nested deeper than MAX_NESTING_DEPTH. The file is read in pieces: never one string of
 * it, which may be longer than V8 makes strings. Namespaces are left to Oxigraph, which refuses an
 * unknown prefix: saxes resolves them in time growing with the depth of every element.
 */
export function checkXml(file: string, fd: number): void {
  const parser = new SaxesParser({ position: true });
  let first: LoadError | undefined;
  const refuse = (reason: string) =>
    (first ??= new LoadError(file, parser.line, parser.column + 1, reason));
  parser.on('error', (e) =>
    refuse(`not well-formed XML: ${e.message.replace(/^[^:]*:\d+:\d+: /, '')}`),
  );
  let depth = 0;
  parser.on('opentag', () => {
    if (++depth > MAX_NESTING_DEPTH)
      refuse(
        `elements nested deeper than ${MAX_NESTING_DEPTH} levels (MAX_NESTING_DEPTH; docs/loading.md)`,
      );
  });
  parser.on('closetag', () => depth--);
  const decoder = new StringDecoder('utf8');
  for (const chunk of chunks(fd)) {
    parser.write(decoder.write(chunk));
    if (first) throw first;
  }
  parser.write(decoder.end()).close();
  if (first) throw first;
}

/**
 * Refuses JSON nested deeper than MAX_NESTING_DEPTH (objects and arrays), with the line and
 * column of the bracket that goes too deep. A scan of the bytes: quotes, backslashes and brackets
 * are ASCII, never part of a longer UTF-8 sequence.
 */
export function checkJsonDepth(file: string, bytes: Buffer): void {
  let depth = 0;
  let line = 1;
  let lineStart = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === 0x0a) {
      line++;
      lineStart = i + 1;
    } else if (inString) {
      if (byte === 0x5c /* a backslash */) i++;
      else if (byte === 0x22 /* " */) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x7b /* { */ || byte === 0x5b /* [ */) {
      if (++depth > MAX_NESTING_DEPTH)
        throw new LoadError(
          file,
          line,
          bytes.toString('utf8', lineStart, i).length + 1,
          `JSON nested deeper than ${MAX_NESTING_DEPTH} levels (MAX_NESTING_DEPTH; docs/loading.md)`,
        );
    } else if (byte === 0x7d /* } */ || byte === 0x5d /* ] */) depth--;
  }
}

/** Refuses a literal longer than MAX_LITERAL_LENGTH in `ntriples` (a dump of `file`'s triples). */
export function checkLiterals(file: string, ntriples: string): void {
  for (const text of lines(ntriples)) {
    if (text.length <= MAX_LITERAL_LENGTH) continue;
    const line = splitLine(text);
    if (line) checkLiteral(file, line);
  }
}

/** Refuses a literal of the triple `line` longer than MAX_LITERAL_LENGTH, found in `where`. */
export function checkLiteral(where: string, line: Line): void {
  const length = literalLength(line.o);
  if (length !== undefined && length > MAX_LITERAL_LENGTH)
    throw refused(
      where,
      `${line.s} ${line.p}: a literal of ${figure(length)} characters, more than a load accepts (MAX_LITERAL_LENGTH, ${figure(MAX_LITERAL_LENGTH)}; docs/loading.md)`,
    );
}

/**
 * The length in characters of the literal `term` (an N-Triples term) when it may be longer than
 * MAX_LITERAL_LENGTH; undefined for any other term. Escapes only make a term longer than its
 * value, so a short term is not decoded.
 */
function literalLength(term: string): number | undefined {
  if (term.length <= MAX_LITERAL_LENGTH || !term.startsWith('"')) return undefined;
  const value = lexicalForm(term);
  let length = 0;
  // Code points, as SPARQL's STRLEN counts: the second half of a surrogate pair is not one.
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0xdc00 || unit > 0xdfff) length++;
  }
  return length;
}
