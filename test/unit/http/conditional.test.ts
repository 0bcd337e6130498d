// Conditional GET (RFC 9110 §13): which validators make a 304.
import assert from 'node:assert/strict';
import { notModified } from '../../../src/http/conditional';

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
    it(name, () => assert.equal(notModified(headers, '"a"', last), expected));
});
