// Cutting a snapshot's N-Quads into pieces that no blank node spans, each ended by a chunk mark,
// so that a load can hand it to the store piece by piece (each `load` labels blank nodes anew).
import { CHUNK_MARK, SNAPSHOT_CHUNK_BYTES } from './snapshot';

/**
 * The blank-node labels of an N-Quads line: each `_:` at its start or after a space, up to the
 * next space or the line's end (a label in a literal counts too, which only joins groups that need not be). A scan,
 * not a regular expression: this runs over every line of every snapshot.
 */
function labelsOf(line: string): string[] {
  const labels: string[] = [];
  for (let at = line.indexOf('_:'); at !== -1; at = line.indexOf('_:', at + 2)) {
    if (at > 0 && line[at - 1] !== ' ') continue;
    const space = line.indexOf(' ', at + 2);
    const end = space === -1 ? line.length : space;
    if (end === at + 2) continue;
    labels.push(line.slice(at, end));
    at = end - 1;
  }
  return labels;
}

/**
 * Groups of blank-node labels (union-find, with paths halved and the smaller group put under the
 * larger): each `find` costs nearly nothing whatever the order labels come in. Without both, a
 * chain of blank nodes dumped deepest first made a tree as deep as the chain, walked again for
 * every line: time quadratic in the chain's length (docs/loading.md, Limits).
 */
class LabelGroups {
  private readonly ids = new Map<string, number>();
  private readonly parent: number[] = [];
  private readonly size: number[] = [];

  /** The group of `label`, by the number of its root. */
  find(label: string): number {
    let at = this.ids.get(label);
    if (at === undefined) {
      at = this.parent.length;
      this.ids.set(label, at);
      this.parent.push(at);
      this.size.push(1);
      return at;
    }
    for (let up = this.parent[at]!; up !== at; up = this.parent[at]!) {
      const grand: number = this.parent[up]!;
      this.parent[at] = grand;
      at = grand;
    }
    return at;
  }

  union(a: string, b: string): void {
    let x = this.find(a);
    let y = this.find(b);
    if (x === y) return;
    if (this.size[x]! < this.size[y]!) [x, y] = [y, x];
    this.parent[y] = x;
    this.size[x]! += this.size[y]!;
  }
}

/**
 * The store's N-Quads in pieces of about SNAPSHOT_CHUNK_BYTES, each ended by a chunk mark (a
 * comment line), with every group of blank nodes inside one piece: the loader can hand a snapshot
 * to the store piece by piece, since each `load` call labels blank nodes anew. Blank nodes that
 * share a line are one group. Pieces are yielded, not joined, so that writing a snapshot holds the
 * dump once, not three times.
 */
export function* chunkedNQuads(nquads: string): Generator<string> {
  const lines = nquads.split('\n');
  const labels = new LabelGroups();
  /** The first blank-node label of each line that has one, by line number. */
  const firsts: (string | undefined)[] = [];
  lines.forEach((line, n) => {
    const [first, ...others] = labelsOf(line);
    if (first === undefined) return;
    firsts[n] = first;
    labels.find(first);
    for (const label of others) labels.union(first, label);
  });
  const groups = new Map<number, string[]>();
  let piece: string[] = [];
  let size = 0;
  function* add(text: string): Generator<string> {
    piece.push(text);
    size += text.length;
    if (size < SNAPSHOT_CHUNK_BYTES) return;
    piece.push(CHUNK_MARK);
    yield piece.join('');
    piece = [];
    size = 0;
  }
  for (const [n, line] of lines.entries()) {
    const first = firsts[n];
    if (first === undefined) {
      if (line !== '') yield* add(`${line}\n`);
      continue;
    }
    const root = labels.find(first);
    const group = groups.get(root);
    if (group) group.push(line);
    else groups.set(root, [line]);
  }
  for (const group of groups.values()) yield* add(`${group.join('\n')}\n`);
  if (piece.length > 0) yield piece.join('');
}

/** Where a PieceWriter puts each piece it ends (a SnapshotWriter, as a load writes). */
export interface PieceSink {
  put(text: string): void;
}

/**
 * Lines in their order, in pieces of about SNAPSHOT_CHUNK_BYTES each ended by a chunk mark, put
 * only where no blank-node label of the lines before appears after: the canonical snapshot's
 * order is kept. The lines come a batch at a time (a description, then the rest), and each piece
 * goes to `sink` as it ends: the lines are never all held. A description's labels are its own, but the rest may name some of them again (`later`):
 * no mark is put until those lines are past.
 */
export class PieceWriter {
  private piece: string[] = [];
  private size = 0;
  /** The number of the next line, counted over every batch. */
  private at = 0;
  /** The last line a label seen so far appears on, when it is in a batch seen. */
  private open = -1;
  /** Labels seen that appear again in a later batch. */
  private readonly pending = new Set<string>();

  constructor(private readonly sink: PieceSink) {}

  /** Adds a batch of lines; labels in `later` appear again in a batch to come. */
  add(lines: readonly string[], later?: ReadonlySet<string>): void {
    const labels = lines.map(labelsOf);
    const last = new Map<string, number>();
    labels.forEach((own, n) => {
      for (const label of own) last.set(label, this.at + n);
    });
    for (const label of this.pending) {
      const n = last.get(label);
      if (n === undefined) continue;
      this.open = Math.max(this.open, n);
      this.pending.delete(label);
    }
    for (const [k, line] of lines.entries()) {
      const n = this.at++;
      this.piece.push(line, '\n');
      this.size += line.length + 1;
      for (const label of labels[k]!) {
        if (later?.has(label)) this.pending.add(label);
        else this.open = Math.max(this.open, last.get(label)!);
      }
      if (this.size < SNAPSHOT_CHUNK_BYTES || this.open > n || this.pending.size > 0) continue;
      this.piece.push(CHUNK_MARK);
      this.sink.put(this.piece.join(''));
      this.piece = [];
      this.size = 0;
    }
  }

  /** Hands the last piece, whole or not, to the sink. */
  flush(): void {
    if (this.piece.length > 0) this.sink.put(this.piece.join(''));
    this.piece = [];
  }
}
