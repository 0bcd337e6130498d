// Fielded queries (src/search/query.ts): what people typed before stays plain text, the grammar
// becomes a tree, and a malformed query says what is wrong and where.
import assert from 'node:assert/strict';
import { anyTerm, parseQuery, QuerySyntaxError, type QueryNode } from '../../../src/search/query';
import { fieldedForm } from '../../../src/pages/searchPage';

const term = (text: string, field?: string, phrase = false): QueryNode =>
  ({ kind: 'term', field, text, phrase }) as QueryNode;

function refused(q: string, what: RegExp, position: number): void {
  assert.throws(
    () => parseQuery(q),
    (e: unknown) => e instanceof QuerySyntaxError && what.test(e.what) && e.position === position,
    q,
  );
}

describe('fielded queries', () => {
  for (const q of [
    'Staatsbibliothek zu Berlin',
    'Kunst: Raum',
    'DE-1a',
    'Bibliothek, Berlin',
    "O'Reilly",
    'Museum - Kunst',
    'St. Peter (Bonn)',
    'a/b c*',
  ])
    it(`keeps ${JSON.stringify(q)} plain text, searched as before`, () =>
      assert.equal(parseQuery(q), undefined));

  it('reads the listed fields, a quoted phrase, and no operators in implicit AND', () =>
    assert.deepEqual(parseQuery('name:"Museum der Arbeit" city:Hamburg'), {
      node: {
        kind: 'and',
        left: term('Museum der Arbeit', 'name', true),
        right: term('Hamburg', 'city'),
      },
      operators: false,
    }));

  it('reads AND, OR, NOT, + and - with parentheses as operators', () => {
    assert.deepEqual(parseQuery('(isil:DE-1a OR sigel:1a) -type:museum'), {
      node: {
        kind: 'and',
        left: { kind: 'or', left: term('DE-1a', 'isil'), right: term('1a', 'sigel') },
        right: { kind: 'not', operand: term('museum', 'type') },
      },
      operators: true,
    });
    assert.deepEqual(parseQuery('+postcode:10772 NOT country:ZDB'), {
      node: {
        kind: 'and',
        left: term('10772', 'postcode'),
        right: { kind: 'not', operand: term('ZDB', 'country') },
      },
      operators: true,
    });
  });

  it('takes a word before an unknown field name as text: Kunst: stays a word beside a field', () =>
    assert.deepEqual(parseQuery('Kunst: Raum city:Bonn')?.node, {
      kind: 'and',
      left: { kind: 'and', left: term('Kunst'), right: term('Raum') },
      right: term('Bonn', 'city'),
    }));

  it('refuses an unclosed quote, naming where it opens', () =>
    refused('name:"Museum der', /quote is not closed/, 6));
  it('refuses an unclosed parenthesis', () => refused('(a OR b', /\( is not closed/, 1));
  it('refuses a parenthesis that closes nothing', () => refused('a OR b)', /\) closes no/, 7));
  it('refuses an operator with nothing after it', () =>
    refused('Museum AND', /AND has nothing after/, 8));
  it('refuses an operator with nothing before it', () =>
    refused('OR Museum', /OR has nothing before/, 1));
  it('refuses NOT alone', () => refused('Museum NOT', /NOT has nothing after/, 8));
  it('refuses a field with nothing after its colon', () =>
    refused('city: Bonn', /city: has no value/, 1));
  it('refuses a kind that is none', () => refused('type:zoo', /type: is one of/, 6));
  it('refuses a group after a field', () => refused('name:(a OR b)', /not a group/, 1));

  it('writes chosen facets as the fielded query they are', () => {
    const params = new URLSearchParams('q=Museum&city=Bad Homburg&type=museum');
    assert.equal(fieldedForm('Museum', params), 'Museum type:museum city:"Bad Homburg"');
    assert.equal(fieldedForm('a OR b', new URLSearchParams('country=DE')), '(a OR b) country:DE');
    assert.equal(fieldedForm('Museum', new URLSearchParams('q=Museum')), undefined);
  });
});

describe("a fielded query's fallback", () => {
  it('joins the terms by OR and keeps type: and country: as filters', () =>
    assert.deepEqual(anyTerm(parseQuery('name:Kunst Raum type:museum')!.node), {
      kind: 'and',
      left: { kind: 'or', left: term('Kunst', 'name'), right: term('Raum') },
      right: term('museum', 'type'),
    }));
});
