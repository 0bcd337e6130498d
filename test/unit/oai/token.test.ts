// Resumption tokens: what a token names comes back as it was; anything edited, cut or foreign is
// no token at all.
import assert from 'node:assert/strict';
import { decodeToken, encodeToken, type Token } from '../../../src/oai/token';

const TOKEN: Token = {
  verb: 'ListRecords',
  metadataPrefix: 'oai_dc',
  from: '2025-03-01',
  set: 'country:DE',
  version: 'abc123',
  versionTime: 1_740_830_400,
  cursor: 100,
  expires: 1_740_916_800,
};

describe('resumption tokens', () => {
  const text = encodeToken(TOKEN);
  it('round-trip', () => assert.deepEqual(decodeToken(text), TOKEN));
  it('are URL-safe', () => assert.match(text, /^[A-Za-z0-9_.-]+$/));
  it('an edited payload is refused', () => {
    const [payload, digest] = text.split('.') as [string, string];
    const edited = Buffer.from(
      Buffer.from(payload, 'base64url').toString().replace('100', '900'),
    ).toString('base64url');
    assert.equal(decodeToken(`${edited}.${digest}`), undefined);
  });
  for (const bad of ['', 'x', 'x.y', `${text}x`, text.slice(1), 'a'.repeat(2000)])
    it(`refuses ${JSON.stringify(bad.slice(0, 20))}`, () =>
      assert.equal(decodeToken(bad), undefined));
});
