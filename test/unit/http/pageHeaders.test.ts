// The pages' Content-Security-Policy: the tile server a MAP_TILES template names as an image source.
import assert from 'node:assert/strict';
import { pagePolicy, tileSource } from '../../../src/http/pageHeaders';

describe('pageHeaders', () => {
  const table: [string, string][] = [
    ['https://tile.openstreetmap.org/{z}/{x}/{y}.png', 'https://tile.openstreetmap.org'],
    ['https://{s}.tile.openstreetmap.org/{z}/{x}/{y}.png', 'https://*.tile.openstreetmap.org'],
    ['http://127.0.0.1:8081/tiles/{z}/{x}/{y}.png?key=k', 'http://127.0.0.1:8081'],
    ['HTTPS://Tiles.Example.org/{z}/{x}/{y}', 'https://Tiles.Example.org'],
    ['https://user:secret@tiles.example.org/{z}/{x}/{y}.png', 'https://tiles.example.org'],
    ['https://tiles{s}.example.org/{z}/{x}/{y}.png', 'https:'],
  ];
  for (const [template, source] of table)
    it(`allows images from ${source} for ${template}`, () => {
      assert.equal(tileSource(template), source);
      assert.match(
        pagePolicy(template),
        new RegExp(`img-src 'self' ${source.replace(/[.*]/g, '\\$&')};`),
      );
    });

  it('allows images from this host alone without tiles, and scripts and styles from it alone', () => {
    const policy = pagePolicy('');
    assert.match(policy, /img-src 'self';/);
    assert.match(policy, /default-src 'none'/);
    assert.match(policy, /script-src 'self';/);
    assert.match(policy, /style-src 'self';/);
    assert.doesNotMatch(policy, /unsafe/);
  });
});
