// The rendered-document cache keeps to its byte bound and evicts the least recently used first.
import assert from 'node:assert/strict';
import { DocumentCache, ENTRY_OVERHEAD, weight } from '../../../src/documents/documents';
import { ENCODING_OVERHEAD, Representation } from '../../../src/documents/representation';

const ANSWER = { status: 200, headers: () => ({}) } as const;
const doc = (bytes: number, kind = 'x') =>
  new Representation(Buffer.alloc(bytes, 97), new Date('2021-12-15T13:55:44Z'), ANSWER, kind);

/** What a cached document of `bytes` bytes, with no compressed form yet, counts against the bound. */
const cost = (bytes: number) => ENTRY_OVERHEAD + bytes;

describe('DocumentCache', () => {
  it('keeps documents under the bound', () => {
    const cache = new DocumentCache(2 * cost(40) + 10);
    cache.set('a', doc(40));
    cache.set('b', doc(40));
    cache.set('c', doc(40));
    assert.equal(cache.get('a'), undefined);
    assert.ok(cache.get('b') && cache.get('c'));
    assert.ok(cache.usedBytes <= 2 * cost(40) + 10);
  });
  it('evicts the least recently used', () => {
    const cache = new DocumentCache(2 * cost(40) + 10);
    cache.set('a', doc(40));
    cache.set('b', doc(40));
    cache.get('a');
    cache.set('c', doc(40));
    assert.ok(cache.get('a'));
    assert.equal(cache.get('b'), undefined);
  });
  it('0 bytes keeps nothing', () => {
    const cache = new DocumentCache(0);
    cache.set('a', doc(1));
    assert.equal(cache.size, 0);
  });
  it('counts what an entry holds beside its bytes', () => {
    const cache = new DocumentCache(100_000);
    cache.set('a', doc(40));
    assert.equal(cache.usedBytes, cost(40));
  });
  it('counts compressed forms against the bound, with their own overhead', async () => {
    const cache = new DocumentCache(100_000);
    const d = doc(5000);
    cache.set('a', d);
    const gzip = await d.bodyIn('gzip');
    assert.equal(cache.usedBytes, cost(5000) + gzip.length + ENCODING_OVERHEAD);
    assert.equal(cache.usedBytes, weight(d));
  });
  it('counts a document set again under its key once', () => {
    const cache = new DocumentCache(100_000);
    cache.set('a', doc(1000));
    cache.set('a', doc(1000));
    cache.set('a', doc(1000));
    assert.equal(cache.usedBytes, cost(1000));
  });
  it('does not count the compressed form of a document it does not hold', async () => {
    const cache = new DocumentCache(cost(1000) + 500);
    const evicted = doc(1000, 'evicted');
    cache.set('a', evicted);
    cache.set('b', doc(1000));
    assert.equal(cache.get('a'), undefined);
    await evicted.bodyIn('gzip');
    await doc(5000, 'never held').bodyIn('br');
    assert.equal(cache.usedBytes, cost(1000));
  });
  it('gives the bytes of an evicted document back, compressed forms included', async () => {
    const cache = new DocumentCache(cost(2900) + 100);
    const a = doc(1000, 'a');
    cache.set('a', a);
    await a.bodyIn('gzip');
    await a.bodyIn('br');
    cache.set('b', doc(2900, 'b'));
    assert.equal(cache.get('a'), undefined);
    assert.equal(cache.usedBytes, cost(2900));
  });
});
