// A served document owns its bytes, its compressed forms, an ETag per content coding and the
// headers of its answers, made once.
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { ownBuffer, Representation, type Answer } from '../../../src/documents/representation';

const LAST = new Date('2021-12-15T13:55:44Z');
/** An answer that counts how often its headers are made. */
function counting(): Answer & { made: number } {
  const answer = {
    made: 0,
    status: 200 as const,
    headers: (d: Representation) => {
      answer.made++;
      return {
        'Content-Type': 'text/turtle',
        ETag: d.etag,
        'Cache-Control': 'public',
        'Content-Length': String(d.body.length),
      };
    },
  };
  return answer;
}
const doc = (bytes: number, kind = 'x') =>
  new Representation(Buffer.alloc(bytes, 97), LAST, { status: 200, headers: () => ({}) }, kind);

describe('Representation', () => {
  it('has a strong ETag of its kind and bytes', () => {
    const a = doc(10, 'ttl');
    assert.match(a.etag, /^"[\w-]{27}"$/);
    assert.equal(doc(10, 'ttl').etag, a.etag);
    assert.notEqual(doc(10, 'nt').etag, a.etag, 'another kind, the same bytes');
    assert.notEqual(doc(11, 'ttl').etag, a.etag);
  });
  it('gives each content coding its own ETag', () => {
    const d = doc(10);
    const tag = d.etag.slice(1, -1);
    assert.deepEqual(
      [d.etagIn('identity'), d.etagIn('gzip'), d.etagIn('br')],
      [`"${tag}"`, `"${tag}-gz"`, `"${tag}-br"`],
    );
  });
  it('makes its headers once, when it is made, from its validators', () => {
    const answer = counting();
    const d = new Representation(Buffer.from('abc'), LAST, answer, 'ttl');
    assert.equal(answer.made, 1);
    assert.equal(d.headers.ETag, d.etag);
    assert.equal(d.headers['Content-Length'], '3');
    assert.equal(d.status, 200);
    void d.notModified;
    void d.headers;
    assert.equal(answer.made, 1);
  });
  it("keeps the 304's headers in the 200's order, without those of a body", () => {
    const d = new Representation(Buffer.from('abc'), LAST, counting(), 'ttl');
    assert.deepEqual(Object.entries(d.notModified), [
      ['ETag', d.etag],
      ['Cache-Control', 'public'],
    ]);
    assert.equal(d.notModified, d.notModified, 'made once');
  });
  it('keeps the status of its answer', () => {
    const d = new Representation(Buffer.from('abc'), LAST, { status: 410, headers: () => ({}) });
    assert.equal(d.status, 410);
  });
  it('compresses once per coding, and tells its holder the bytes', async () => {
    const d = doc(5000);
    const told: number[] = [];
    d.holder = { grew: (r, bytes) => (assert.equal(r, d), told.push(bytes)) };
    assert.equal(d.madeIn('gzip'), undefined, 'not before it is asked');
    const gzip = await d.bodyIn('gzip');
    assert.equal(await d.bodyIn('gzip'), gzip);
    assert.equal(d.madeIn('gzip'), gzip);
    assert.deepEqual(zlib.gunzipSync(gzip), d.body);
    const br = await d.bodyIn('br');
    assert.deepEqual(zlib.brotliDecompressSync(br), d.body);
    assert.equal(await d.bodyIn('identity'), d.body);
    assert.equal(d.madeIn('identity'), d.body);
    assert.equal(told.length, 2);
    assert.equal(d.bytes, 5000 + told[0]! + told[1]!);
  });
  it('shares one compression among the requests that ask for it meanwhile', async () => {
    const d = doc(5000);
    const told: number[] = [];
    d.holder = { grew: (_r, bytes) => told.push(bytes) };
    const [a, b] = await Promise.all([d.bodyIn('br'), d.bodyIn('br')]);
    assert.equal(a, b);
    assert.equal(told.length, 1, 'compressed and counted once');
  });
});

describe('cached bytes hold no more memory than they count', () => {
  /** Whether `bytes` is the whole of its backing store (no slice of a larger one). */
  const own = (bytes: Buffer) => bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length;

  it("a compressed form is not a slice of zlib's 16 KiB output chunk", async () => {
    const d = doc(3000);
    for (const encoding of ['gzip', 'br'] as const) {
      const body = await d.bodyIn(encoding);
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
