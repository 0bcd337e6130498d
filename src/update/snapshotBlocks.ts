// A snapshot's quads read back as it wrote them (snapshot.ts): each description's lines together,
// in ISIL order, then the rest, with the chunk marks left out. What an update keeps of the version
// it applies over comes from here, never from a store.
import { StringDecoder } from 'node:string_decoder';
import { DATA_PATH } from '../rdf/iris';
import { CHUNK_MARK } from '../load/snapshot/snapshot';

/** One description's lines (`isil`), or the lines after the last description (`isil` undefined). */
export interface Block {
  readonly isil: string | undefined;
  readonly lines: string[];
}

const MARK = CHUNK_MARK.slice(0, -1);

/** The lines of UTF-8 `bytes`, read a piece at a time, the empty ones and chunk marks left out. */
function* linesOf(bytes: Iterable<Buffer>): Generator<string> {
  const decoder = new StringDecoder('utf8');
  let carry = '';
  for (const piece of bytes) {
    const text = carry + decoder.write(piece);
    let start = 0;
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', start)) {
      const line = text.slice(start, at);
      if (line !== '' && line !== MARK) yield line;
      start = at + 1;
    }
    carry = text.slice(start);
  }
  carry += decoder.end();
  if (carry !== '' && carry !== MARK) yield carry;
}

/**
 * The blocks of a snapshot's quads (`bytes`: what lies between its first line and its trailer, or
 * the pieces a load made): a description's lines end with its graph, `<{base}/data/organisations/
 * {isil}> .`; the first line in no such graph starts the rest, which is one block to the end.
 */
export function* snapshotBlocks(bytes: Iterable<Buffer>, baseIri: string): Generator<Block> {
  const graphStart = ` <${baseIri}${DATA_PATH}`;
  let block: { isil: string | undefined; lines: string[] } | undefined;
  let graph = '';
  let rest = false;
  for (const line of linesOf(bytes)) {
    if (!rest && block?.isil !== undefined && line.endsWith(graph)) {
      block.lines.push(line);
      continue;
    }
    const at = rest ? -1 : line.lastIndexOf(graphStart);
    const isil = at === -1 ? undefined : line.slice(at + graphStart.length, -3);
    if (isil === undefined || !line.endsWith('> .') || isil.includes(' ')) {
      if (!rest && block) yield block;
      if (!rest) block = { isil: undefined, lines: [] };
      rest = true;
      block!.lines.push(line);
      continue;
    }
    if (block) yield block;
    graph = `${graphStart}${isil}> .`;
    block = { isil, lines: [line] };
  }
  if (block) yield block;
}

/**
 * A description's line with its blank nodes' labels moved from the `from`-th description's to the
 * `to`-th's (`_:d<n>b<i>`, canonicalDataset.ts): a blank node is only ever a subject or an object,
 * and neither an IRI nor a label holds a space, so the terms are found without parsing literals.
 */
export function relabelled(line: string, from: string, to: string): string {
  if (!line.includes(from)) return line;
  const subjectEnd = line.indexOf(' ');
  const objectStart = line.indexOf(' ', subjectEnd + 1) + 1;
  const subject = line.startsWith(from)
    ? to + line.slice(from.length, subjectEnd)
    : line.slice(0, subjectEnd);
  const middle = line.slice(subjectEnd, objectStart);
  const object = line.startsWith(from, objectStart)
    ? to + line.slice(objectStart + from.length)
    : line.slice(objectStart);
  return subject + middle + object;
}
