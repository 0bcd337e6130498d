// The canonical descriptions a load holds deflated (src/load/describe/canonicalDataset.ts): every text comes
// back as it went in, whatever its characters and whichever block it is in, read in any order.
import assert from 'node:assert/strict';
import { deflateBlock, DeflatedTexts } from '../../../src/load/describe/canonicalDataset';

describe('texts held deflated a block at a time', () => {
  const texts = new Map<string, string>([
    ['DE-1', '<a> <b> "München" .\n'],
    ['DE-2', ''],
    ['DE-3', '<a> <b> "Zürich 𝄞 ő č “quoted”" .\n'],
    ['DE-4', '<x> <y> "plain" .\n'.repeat(1000)],
    ['DE-5', '<a> <b> "東京" .\n'],
  ]);
  const held = new DeflatedTexts();
  const keys = [...texts.keys()];
  for (const block of [keys.slice(0, 2), keys.slice(2, 4), keys.slice(4)])
    held.add(
      deflateBlock(
        block,
        block.map((key) => texts.get(key)!),
      ),
    );

  it('gives every text back, in any order, across blocks', () => {
    for (const key of [...keys].reverse()) assert.equal(held.get(key), texts.get(key), key);
    for (const key of keys) assert.equal(held.get(key), texts.get(key), key);
    assert.equal(held.get('DE-9'), undefined);
    assert.equal(held.has('DE-3'), true);
    assert.equal(held.has('DE-9'), false);
  });

  it('is a map of them, in the order they were added', () => {
    assert.equal(held.size, texts.size);
    assert.deepEqual(new Map(held), texts);
    assert.deepEqual([...held.keys()], keys);
    const seen: string[] = [];
    held.forEach((value, key) => seen.push(`${key}=${value.length}`));
    assert.deepEqual(
      seen,
      keys.map((key) => `${key}=${texts.get(key)!.length}`),
    );
  });

  it('holds them in less than their size', () => {
    const block = deflateBlock(['DE-4'], [texts.get('DE-4')!]);
    assert.ok(block.deflated.length * 10 < texts.get('DE-4')!.length, `${block.deflated.length}`);
  });
});
