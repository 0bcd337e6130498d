// The rendered-document cache keeps to its byte bound and evicts the least recently used first.
import assert from 'node:assert/strict';
import { DocumentCache, encodedBody, encodedEtag, type Rendered } from '../../src/documents';
import { notModified } from '../../src/http/conditional';

const doc = (bytes: number, tag = 'x'): Rendered => ({
  body: Buffer.alloc(bytes, 97),
  etag: `"${tag}"`,
  lastModified: new Date('2021-12-15T13:55:44Z'),
  encoded: {},
});

describe('DocumentCache', () => {
  it('keeps documents under the bound', () => {
    const cache = new DocumentCache(100);
    cache.set('a', doc(40));
    cache.set('b', doc(40));
    cache.set('c', doc(40));
    assert.equal(cache.get('a'), undefined);
    assert.ok(cache.get('b') && cache.get('c'));
    assert.ok(cache.usedBytes <= 100);
  });
  it('evicts the least recently used', () => {
    const cache = new DocumentCache(100);
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
  it('counts compressed forms against the bound', () => {
    const cache = new DocumentCache(10_000);
    const d = doc(5000);
    cache.set('a', d);
    encodedBody(d, 'gzip', cache);
    assert.ok(cache.usedBytes > 5000);
  });
  it('counts a document set again under its key once', () => {
    const cache = new DocumentCache(10_000);
    cache.set('a', doc(1000));
    cache.set('a', doc(1000));
    cache.set('a', doc(1000));
    assert.equal(cache.usedBytes, 1000);
  });
  it('does not count the compressed form of a document it does not hold', () => {
    const cache = new DocumentCache(1500);
    const evicted = doc(1000, 'evicted');
    cache.set('a', evicted);
    cache.set('b', doc(1000));
    assert.equal(cache.get('a'), undefined);
    encodedBody(evicted, 'gzip', cache);
    encodedBody(doc(5000, 'never held'), 'br', cache);
    assert.equal(cache.usedBytes, 1000);
  });
  it('gives the bytes of an evicted document back, compressed forms included', () => {
    const cache = new DocumentCache(3000);
    const a = doc(1000, 'a');
    cache.set('a', a);
    encodedBody(a, 'gzip', cache);
    encodedBody(a, 'br', cache);
    cache.set('b', doc(2900, 'b'));
    assert.equal(cache.get('a'), undefined);
    assert.equal(cache.usedBytes, 2900);
  });
  it('gives each content coding its own ETag', () => {
    const d = doc(10, 'abc');
    assert.deepEqual(
      [encodedEtag(d, 'identity'), encodedEtag(d, 'gzip'), encodedEtag(d, 'br')],
      ['"abc"', '"abc-gz"', '"abc-br"'],
    );
  });
});

describe('notModified (RFC 9110 §13)', () => {
  const last = new Date('2021-12-15T13:55:44.500Z');
  const rows: [string, Record<string, string>, boolean][] = [
    ['no validators', {}, false],
    ['matching tag', { 'if-none-match': '"a"' }, true],
    ['weak form of the tag', { 'if-none-match': 'W/"a"' }, true],
    ['tag in a list', { 'if-none-match': '"x", "a"' }, true],
    ['*', { 'if-none-match': '*' }, true],
    ['other tag', { 'if-none-match': '"b"' }, false],
    ['unquoted garbage', { 'if-none-match': 'a' }, false],
    [
      'If-Modified-Since equal (whole seconds)',
      { 'if-modified-since': 'Wed, 15 Dec 2021 13:55:44 GMT' },
      true,
    ],
    ['If-Modified-Since later', { 'if-modified-since': 'Thu, 16 Dec 2021 00:00:00 GMT' }, true],
    ['If-Modified-Since earlier', { 'if-modified-since': 'Wed, 15 Dec 2021 13:55:43 GMT' }, false],
    ['If-Modified-Since garbage', { 'if-modified-since': 'yesterday' }, false],
    [
      'If-None-Match decides over If-Modified-Since',
      { 'if-none-match': '"b"', 'if-modified-since': 'Thu, 16 Dec 2021 00:00:00 GMT' },
      false,
    ],
  ];
  for (const [name, headers, expected] of rows)
    it(name, () => assert.equal(notModified(headers, ['"a"'], last), expected));
});
