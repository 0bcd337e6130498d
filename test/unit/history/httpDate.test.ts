// Reading `Accept-Datetime`: the three forms of an HTTP-date, each read strictly, so that a time
// that never was is malformed (a TimeGate's 400) rather than another time.
import assert from 'node:assert/strict';
import { parseHttpDate } from '../../../src/history/model';

const at = (iso: string) => Date.parse(iso) / 1000;
/** The time the RFC 850 two-digit years are read against. */
const NOW = Date.parse('2026-12-02T00:00:00Z');

/** Each case in the three forms: IMF-fixdate, RFC 850, asctime. */
const FORMS = (day: string, month: string, year: string, time: string): string[] => [
  `Sun, ${day} ${month} ${year} ${time} GMT`,
  `Sunday, ${day}-${month}-${year.slice(2)} ${time} GMT`,
  `Sun ${month} ${day.replace(/^0/, ' ')} ${time} ${year}`,
];

const READ: [string, string, string, string, string][] = [
  ['06', 'Nov', '1994', '08:49:37', '1994-11-06T08:49:37Z'],
  ['29', 'Feb', '2024', '12:00:00', '2024-02-29T12:00:00Z'],
  ['31', 'Dec', '2025', '23:59:59', '2025-12-31T23:59:59Z'],
  ['01', 'Jan', '2026', '00:00:00', '2026-01-01T00:00:00Z'],
  // A leap second reads as the last second POSIX time counts before it.
  ['31', 'Dec', '2016', '23:59:60', '2016-12-31T23:59:59Z'],
  ['30', 'Jun', '2015', '23:59:60', '2015-06-30T23:59:59Z'],
];

const REFUSED: [string, string, string, string, string][] = [
  ['31', 'Feb', '2023', '00:00:00', 'no 31 February'],
  ['29', 'Feb', '2023', '00:00:00', 'no 29 February in a common year'],
  ['30', 'Feb', '2024', '00:00:00', 'no 30 February'],
  ['31', 'Apr', '2025', '00:00:00', 'no 31 April'],
  ['00', 'Jan', '2025', '00:00:00', 'no day 0'],
  ['32', 'Jan', '2025', '00:00:00', 'no day 32'],
  ['01', 'Jan', '2025', '24:00:00', 'no hour 24'],
  ['01', 'Jan', '2025', '12:60:00', 'no minute 60'],
  ['01', 'Jan', '2025', '12:00:61', 'no second 61'],
  ['01', 'Jan', '2025', '12:30:60', 'a leap second only ends a day'],
  ['15', 'Mar', '2025', '23:59:60', 'a leap second only ends a month'],
];

describe('parseHttpDate', () => {
  for (const [day, month, year, time, iso] of READ)
    for (const text of FORMS(day, month, year, time))
      it(`reads "${text}" as ${iso}`, () => assert.equal(parseHttpDate(text, NOW), at(iso)));

  for (const [day, month, year, time, why] of REFUSED)
    for (const text of FORMS(day, month, year, time))
      it(`refuses "${text}": ${why}`, () => assert.equal(parseHttpDate(text, NOW), undefined));

  for (const text of [
    '2025-06-15',
    'yesterday',
    'Sun, 6 Nov 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 08:49:37 UTC',
    'Sun, 06 nov 1994 08:49:37 GMT',
    'Sunday, 06-Nov-1994 08:49:37 GMT',
    'Sun Nov 6 08:49:37 1994',
    'Sun, 06 Nov 1994 8:49:37 GMT',
  ])
    it(`refuses "${text}": not an HTTP-date`, () =>
      assert.equal(parseHttpDate(text, NOW), undefined));

  it('reads a two-digit year as the latest not more than 50 years ahead', () => {
    assert.equal(parseHttpDate('Monday, 01-Jan-76 00:00:00 GMT', NOW), at('2076-01-01T00:00:00Z'));
    assert.equal(
      parseHttpDate('Thursday, 01-Jan-77 00:00:00 GMT', NOW),
      at('1977-01-01T00:00:00Z'),
    );
  });

  it('reads years before 100 as written', () =>
    assert.equal(parseHttpDate('Fri, 01 Jan 0050 00:00:00 GMT', NOW), at('0050-01-01T00:00:00Z')));
});
