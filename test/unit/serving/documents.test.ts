// The rendered-document cache keeps to its byte bound and evicts the least recently used first.
import assert from 'node:assert/strict';
import {
  DocumentCache,
  ENCODING_OVERHEAD,
  ENTRY_OVERHEAD,
  encodedBody,
  encodedEtag,
  ownBuffer,
  weight,
  type Rendered,
} from '../../../src/serving/documents';
import { notModified } from '../../../src/serving/conditional';

const doc = (bytes: number, tag = 'x'): Rendered => ({
  body: Buffer.alloc(bytes, 97),
  etag: `"${tag}"`,
  lastModified: new Date('2021-12-15T13:55:44Z'),
  encoded: {},
});

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
  it('counts compressed forms against the bound, with their own overhead', () => {
    const cache = new DocumentCache(100_000);
    const d = doc(5000);
    cache.set('a', d);
    const gzip = encodedBody(d, 'gzip', cache);
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
  it('does not count the compressed form of a document it does not hold', () => {
    const cache = new DocumentCache(cost(1000) + 500);
    const evicted = doc(1000, 'evicted');
    cache.set('a', evicted);
    cache.set('b', doc(1000));
    assert.equal(cache.get('a'), undefined);
    encodedBody(evicted, 'gzip', cache);
    encodedBody(doc(5000, 'never held'), 'br', cache);
    assert.equal(cache.usedBytes, cost(1000));
  });
  it('gives the bytes of an evicted document back, compressed forms included', () => {
    const cache = new DocumentCache(cost(2900) + 100);
    const a = doc(1000, 'a');
    cache.set('a', a);
    encodedBody(a, 'gzip', cache);
    encodedBody(a, 'br', cache);
    cache.set('b', doc(2900, 'b'));
    assert.equal(cache.get('a'), undefined);
    assert.equal(cache.usedBytes, cost(2900));
  });
  it('gives each content coding its own ETag', () => {
    const d = doc(10, 'abc');
    assert.deepEqual(
      [encodedEtag(d, 'identity'), encodedEtag(d, 'gzip'), encodedEtag(d, 'br')],
      ['"abc"', '"abc-gz"', '"abc-br"'],
    );
  });
});

describe('cached bytes hold no more memory than they count', () => {
  /** Whether `bytes` is the whole of its backing store (no slice of a larger one). */
  const own = (bytes: Buffer) => bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length;

  it("a compressed form is not a slice of zlib's 16 KiB output chunk", () => {
    const d = doc(3000);
    for (const encoding of ['gzip', 'br'] as const) {
      const body = encodedBody(d, encoding);
      assert.ok(body.length < 1000, `${encoding}: ${body.length} bytes`);
      assert.ok(
        own(body),
        `${encoding}: ${body.length} bytes in a store of ${body.buffer.byteLength}`,
      );
    }
  });
  it('a small body is not a slice of the shared 8 KiB pool', () => {
    const pooled = Buffer.from('a small document', 'utf8');
    assert.ok(!own(pooled), 'Node pools small strings (the case this guards against)');
    const body = ownBuffer(pooled);
    assert.ok(own(body));
    assert.ok(body.equals(pooled));
  });
  it('a buffer that is its whole store is kept as it is', () => {
    const whole = Buffer.allocUnsafeSlow(10);
    assert.equal(ownBuffer(whole), whole);
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
