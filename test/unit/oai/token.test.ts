// Resumption tokens: what a token names comes back as it was under the key it was signed with;
// anything edited, cut, signed with another key or made without one is no token at all; the key
// is never shown.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import { decodeToken, encodeToken, TokenKey, type Token } from '../../../src/oai/token';

const SECRET = 'a-secret-of-the-provider-0123456789abcdef';
const KEY = new TokenKey(SECRET);

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

/** `text` with its payload's JSON passed through `edit`, its tag kept. */
function edited(text: string, edit: (json: string) => string): string {
  const [payload, tag] = text.split('.') as [string, string];
  const json = Buffer.from(payload, 'base64url').toString();
  assert.notEqual(edit(json), json, 'the edit changes the payload');
  return `${Buffer.from(edit(json)).toString('base64url')}.${tag}`;
}

describe('resumption tokens', () => {
  const text = encodeToken(TOKEN, KEY);
  it('round-trip', () => assert.deepEqual(decodeToken(text, KEY), TOKEN));
  it('are URL-safe', () => assert.match(text, /^[A-Za-z0-9_.-]+$/));
  it('are read under another instance of the same key (a replica)', () =>
    assert.deepEqual(decodeToken(text, new TokenKey(SECRET)), TOKEN));

  const edits: [string, (json: string) => string][] = [
    ['cursor', (j) => j.replace(',100,', ',900,')],
    ['expiry', (j) => j.replace('1740916800', '4102444800')],
    ['version', (j) => j.replace('abc123', 'abc124')],
    ['from', (j) => j.replace('2025-03-01', '2000-01-01')],
    ['set', (j) => j.replace('country:DE', 'country:AT')],
    ['verb', (j) => j.replace('ListRecords', 'ListIdentifiers')],
  ];
  for (const [what, edit] of edits)
    it(`a payload with its ${what} edited is refused`, () =>
      assert.equal(decodeToken(edited(text, edit), KEY), undefined));

  it('a tag edited in its spare bits (the same bytes decoded) is refused', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const tag = text.split('.')[1]!;
    const twin = `${tag.slice(0, -1)}${alphabet[alphabet.indexOf(tag.at(-1)!) ^ 1]!}`;
    assert.deepEqual(Buffer.from(twin, 'base64url'), Buffer.from(tag, 'base64url'));
    assert.equal(decodeToken(`${text.split('.')[0]!}.${twin}`, KEY), undefined);
  });
  it('a token signed with another key is refused', () =>
    assert.equal(decodeToken(encodeToken(TOKEN, new TokenKey(`${SECRET}!`)), KEY), undefined));
  it('a token of a random key (another process) is refused', () =>
    assert.equal(decodeToken(encodeToken(TOKEN, TokenKey.random()), KEY), undefined));
  it('a token with an unkeyed digest (the old kind, anyone could make) is refused', () => {
    const payload = text.split('.')[0]!;
    const digest = createHash('sha256').update(`oai-pmh-token\u0000${payload}`).digest('base64url');
    assert.equal(decodeToken(`${payload}.${digest.slice(0, 16)}`, KEY), undefined);
    assert.equal(decodeToken(`${payload}.${digest}`, KEY), undefined);
  });
  for (const bad of [
    '',
    'x',
    'x.y',
    `${text}x`,
    text.slice(1),
    text.slice(0, -1),
    'a'.repeat(2000),
  ])
    it(`refuses ${JSON.stringify(bad.slice(0, 20))}`, () =>
      assert.equal(decodeToken(bad, KEY), undefined));

  describe('the key', () => {
    const shown = [
      JSON.stringify({ key: KEY }),
      inspect({ key: KEY }, { depth: 5, showHidden: true }),
      String(KEY),
      `${KEY}`,
    ];
    for (const text of shown)
      it(`is not shown: ${text}`, () => assert.ok(!text.includes(SECRET.slice(0, 8)), text));
  });
});
