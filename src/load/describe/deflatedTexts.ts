// A load's canonical descriptions held compactly until the change log has read them: the canonical
// reading deflates each batch's texts as one block (`deflateBlock`) and keeps the blocks
// (`DeflatedTexts`), a quarter of the texts' size.
import zlib from 'node:zlib';

/** Texts deflated as one block: what `DeflatedTexts.add` takes. */
export interface TextBlock {
  /** Each text's key, in the block's order. */
  readonly keys: readonly string[];
  /** Each text's length (UTF-16 code units), in the block's order. */
  readonly lengths: readonly number[];
  /** The texts joined, as UTF-8, deflated. */
  readonly deflated: Uint8Array;
}

/** Deflates `texts` (keyed by `keys`, in order) as one block. */
export function deflateBlock(keys: readonly string[], texts: readonly string[]): TextBlock {
  return {
    keys,
    lengths: texts.map((text) => text.length),
    // The fastest level: the texts are held for minutes at most, and deflating is on the reading's
    // path.
    deflated: zlib.deflateRawSync(texts.join(''), { level: 1 }),
  };
}

/**
 * Texts by key, held a deflated block at a time; a block is inflated when one of its texts is
 * read, and kept until a text of another is (readers go in the blocks' order: the change log
 * reads by ISIL, as the reading made them).
 */
export class DeflatedTexts implements ReadonlyMap<string, string> {
  private readonly where = new Map<string, { block: number; start: number; end: number }>();
  private readonly blocks: Uint8Array[] = [];
  private inflated: { block: number; text: string } | undefined;

  add({ keys, lengths, deflated }: TextBlock): void {
    const block = this.blocks.push(deflated) - 1;
    let start = 0;
    keys.forEach((key, i) => {
      const end = start + lengths[i]!;
      this.where.set(key, { block, start, end });
      start = end;
    });
  }

  get size(): number {
    return this.where.size;
  }

  has(key: string): boolean {
    return this.where.has(key);
  }

  get(key: string): string | undefined {
    const at = this.where.get(key);
    if (at === undefined) return undefined;
    if (this.inflated?.block !== at.block)
      this.inflated = {
        block: at.block,
        text: zlib.inflateRawSync(this.blocks[at.block]!).toString('utf8'),
      };
    return this.inflated.text.slice(at.start, at.end);
  }

  *keys(): MapIterator<string> {
    yield* this.where.keys();
  }

  *values(): MapIterator<string> {
    for (const key of this.where.keys()) yield this.get(key)!;
  }

  *entries(): MapIterator<[string, string]> {
    for (const key of this.where.keys()) yield [key, this.get(key)!];
  }

  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }

  forEach(each: (value: string, key: string, map: ReadonlyMap<string, string>) => void): void {
    for (const [key, value] of this.entries()) each(value, key, this);
  }
}
