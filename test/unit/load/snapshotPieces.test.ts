// PieceWriter (src/load/snapshot/snapshotPieces.ts): a snapshot's lines, a batch at a time, cut where the
// rule over all of them cuts (no blank node across a mark, a mark once a piece is large enough).
import assert from 'node:assert/strict';
import { CHUNK_MARK, SNAPSHOT_CHUNK_BYTES } from '../../../src/load/snapshot/snapshot';
import { PieceWriter } from '../../../src/load/snapshot/snapshotPieces';

const labels = (line: string) => line.match(/(?<=^| )_:[^ ]+(?= )/g) ?? [];

/** The rule, over every line at once: a mark after a line once the piece is large enough and no label before it appears after it. */
function reference(lines: readonly string[]): string {
  const last = new Map<string, number>();
  lines.forEach((line, n) => labels(`${line} `).forEach((label) => last.set(label, n)));
  let out = '';
  let size = 0;
  let open = -1;
  lines.forEach((line, n) => {
    out += `${line}\n`;
    size += line.length + 1;
    for (const label of labels(`${line} `)) open = Math.max(open, last.get(label)!);
    if (size >= SNAPSHOT_CHUNK_BYTES && open <= n) {
      out += CHUNK_MARK;
      size = 0;
    }
  });
  return out;
}

const P = '<http://example.org/p>';
/** Description n: a few hundred lines, its blank nodes its own. */
const description = (n: number): string[] =>
  Array.from(
    { length: 300 },
    (_, k) => `_:d${n}b${k % 7} ${P} "${'x'.repeat(k % 50)}" <http://g/${n}> .`,
  );

describe('PieceWriter: pieces of a snapshot, a batch at a time', () => {
  it('cuts where the rule over every line cuts, descriptions and a rest that names none of them', () => {
    const batches = Array.from({ length: 40 }, (_, n) => description(n));
    const rest = Array.from({ length: 500 }, (_, k) => `_:r${k % 3} ${P} "${k}" .`);
    const pieces: string[] = [];
    const writer = new PieceWriter({ put: (piece) => pieces.push(piece) });
    for (const batch of batches) writer.add(batch);
    writer.add(rest);
    writer.flush();
    assert.ok(pieces.join('').split(CHUNK_MARK).length > 5);
    assert.equal(pieces.join(''), reference([...batches.flat(), ...rest]));
  });

  it('puts no mark between a description and the rest lines that name its blank nodes', () => {
    const batches = Array.from({ length: 40 }, (_, n) => description(n));
    const rest = [
      `_:d3b1 ${P} "named again" .`,
      ...Array.from({ length: 500 }, (_, k) => `<http://example.org/s${k}> ${P} "${k}" .`),
    ];
    let text = '';
    const writer = new PieceWriter({ put: (piece) => (text += piece) });
    batches.forEach((batch, n) => writer.add(batch, n === 3 ? new Set(['_:d3b1']) : undefined));
    writer.add(rest);
    writer.flush();
    assert.equal(text, reference([...batches.flat(), ...rest]));
    const piece = text.split(CHUNK_MARK).find((p) => p.includes('"named again"'))!;
    assert.ok(piece.includes(`_:d3b1 ${P} ""`), 'the description and the rest line in one piece');
  });
});
