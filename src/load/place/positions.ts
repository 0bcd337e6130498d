// Numbers kept a line at a time for a pass over a file's lines (placedNTriples.ts).

/**
 * Numbers a line at a time, in blocks: where the first pass found each line's terms, so that the
 * second does not split every line again (4 bytes a number, against a quarter of the parse).
 */
export class Positions {
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
