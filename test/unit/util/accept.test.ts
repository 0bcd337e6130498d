// Parsing an `Accept` header and choosing among offers (src/util/accept.ts), the rules the public
// documents and the staff endpoint's result formats share (RFC 9110 §12.5.1).
import assert from 'node:assert/strict';
import {
  MAX_ACCEPT_RANGES,
  negotiateAmong,
  parseAccept,
  type Offer,
} from '../../../src/util/accept';

const offer = (mediaType: string, aliases: string[] = [], qs?: number): Offer => ({
  mediaType,
  aliases,
  ...(qs === undefined ? {} : { qs }),
});
const TURTLE = offer('text/turtle', ['application/x-turtle']);
const JSONLD = offer('application/ld+json');
const RDFXML = offer('application/rdf+xml', ['application/xml', 'text/xml']);
const HTML = offer('text/html', ['application/xhtml+xml']);

describe('parseAccept', () => {
  it('keeps q and drops every other parameter', () => {
    assert.deepEqual(
      parseAccept('application/ld+json;profile="http://www.w3.org/ns/json-ld#compacted";q=0.5'),
      [{ type: 'application', subtype: 'ld+json', q: 0.5 }],
    );
  });

  it('lower-cases types and reads a range without q as q=1', () => {
    assert.deepEqual(parseAccept(' Text/Turtle '), [{ type: 'text', subtype: 'turtle', q: 1 }]);
  });

  it('skips malformed ranges and keeps the rest', () => {
    const ranges = parseAccept('turtle, */json, text/ html x, text/turtle;q=2, text/plain;q=0.5');
    assert.deepEqual(ranges, [{ type: 'text', subtype: 'plain', q: 0.5 }]);
  });

  it('refuses q-values outside 0-1 or with more than three decimals', () => {
    assert.deepEqual(parseAccept('a/b;q=1.5, c/d;q=0.1234, e/f;q=0.123, g/h;q=1.000'), [
      { type: 'e', subtype: 'f', q: 0.123 },
      { type: 'g', subtype: 'h', q: 1 },
    ]);
  });

  it(`reads no more than ${MAX_ACCEPT_RANGES} ranges`, () => {
    const header = Array.from({ length: MAX_ACCEPT_RANGES + 10 }, (_, n) => `a/t${n}`).join(',');
    assert.equal(parseAccept(header).length, MAX_ACCEPT_RANGES);
  });
});

describe('negotiateAmong', () => {
  const offers = [TURTLE, JSONLD, RDFXML, HTML];

  it('gives the first offer when no header, an empty one or none parseable is sent', () => {
    assert.equal(negotiateAmong(undefined, offers), TURTLE);
    assert.equal(negotiateAmong('', offers), TURTLE);
    assert.equal(negotiateAmong('nonsense', offers), TURTLE);
  });

  it('takes the highest q, and the order of the offers on equal q', () => {
    assert.equal(negotiateAmong('text/turtle;q=0.5, application/ld+json', offers), JSONLD);
    assert.equal(negotiateAmong('application/ld+json, text/turtle', offers), TURTLE);
  });

  it('lets q=0 on an offer’s own type exclude it, even where a wildcard allows it', () => {
    assert.equal(negotiateAmong('text/turtle;q=0, */*;q=0.1', offers), JSONLD);
  });

  it('answers none (406) when every offer is excluded or unnamed', () => {
    assert.equal(negotiateAmong('image/png', offers), undefined);
    assert.equal(negotiateAmong('*/*;q=0', offers), undefined);
  });

  it('reaches an offer through an alias named exactly, never through a wildcard of it', () => {
    assert.equal(negotiateAmong('application/xml', offers), RDFXML);
    assert.equal(negotiateAmong('application/*', [HTML]), undefined);
    assert.equal(negotiateAmong('text/*', [RDFXML]), undefined);
  });

  it('prefers the most specific matching range over a wildcard', () => {
    assert.equal(negotiateAmong('text/*;q=0.9, text/turtle;q=0.2, text/html;q=0.5', offers), HTML);
  });

  it('multiplies the client’s q by the server’s own quality of the offer', () => {
    const weighed = [offer('application/n-quads', [], 0.9), offer('application/trig')];
    assert.equal(
      negotiateAmong('application/n-quads, application/trig;q=0.95', weighed),
      weighed[1],
    );
    assert.equal(
      negotiateAmong('application/n-quads, application/trig;q=0.8', weighed),
      weighed[0],
    );
  });
});
