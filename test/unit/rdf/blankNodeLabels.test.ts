// Canonical blank-node labels: the same description in any order and under any labels gives the
// same triples, nested ties included; a description past the work limit is refused, not hung on.
import assert from 'node:assert/strict';
import {
  CanonicalLimit,
  labelBlankNodes,
  MAX_CANONICAL_WORK,
} from '../../../src/rdf/blankNodeLabels';
import { splitNTriples, type Triple } from '../../../src/rdf/ntriples';

const R = '<https://ld.zdb-services.de/resource/organisations/DE-Tue120>';
const V = 'http://www.w3.org/2006/vcard/ns#';

/** The labelled triples as sorted lines: what two labellings are compared by. */
function written(triples: readonly Triple[]): string {
  return labelBlankNodes(triples)
    .map((t) => `${t.s} ${t.p} ${t.o} .`)
    .sort()
    .join('\n');
}

const triples = (text: string): Triple[] => splitNTriples(text);

/** Each blank label `_:x` of `text` renamed `_:<prefix>x`. */
const renamed = (text: string, prefix: string): string =>
  text.replace(/_:([A-Za-z0-9]+)/g, `_:${prefix}$1`);

describe('canonical blank-node labels', () => {
  // Two different blank parents (an address in Tübingen, one in Berlin), each with a child that
  // says the same thing: the children tie on their content, and only their parents tell them apart.
  const NESTED = [
    `${R} <${V}adr> _:p1 .`,
    `_:p1 <${V}locality> "Tübingen" .`,
    `_:p1 <${V}geo> _:c1 .`,
    `_:c1 <${V}note> "checked" .`,
    `${R} <${V}adr> _:p2 .`,
    `_:p2 <${V}locality> "Berlin" .`,
    `_:p2 <${V}geo> _:c2 .`,
    `_:c2 <${V}note> "checked" .`,
  ];

  describe('a nested tie', () => {
    const forward = written(triples(NESTED.join('\n')));
    const backward = written(triples([...NESTED].reverse().join('\n')));
    const swapped = written(
      triples(
        NESTED.join('\n')
          .replaceAll('_:c1', '_:tmp')
          .replaceAll('_:c2', '_:c1')
          .replaceAll('_:tmp', '_:c2'),
      ),
    );

    it('gives the same triples in both orders', () => assert.equal(backward, forward));
    it('gives the same triples whichever child the store named first', () =>
      assert.equal(swapped, forward));
    it('keeps the four nodes apart', () => assert.equal(new Set(forward.match(/_:b\d+/g)).size, 4));
    it('gives each child the label its parent decides', () => {
      const parentOf = (city: string) =>
        new RegExp(`(_:b\\d+) <${V}locality> "${city}"`).exec(forward)![1];
      const childOf = (parent: string) =>
        new RegExp(`${parent} <${V}geo> (_:b\\d+)`).exec(forward)![1];
      assert.notEqual(childOf(parentOf('Berlin')!), childOf(parentOf('Tübingen')!));
    });
  });

  it('labels a description without ties as by its content alone, in content order', () => {
    const labelled = labelBlankNodes(
      triples(
        `${R} <${V}tel> _:x .\n_:x <${V}value> "2" .\n${R} <${V}tel> _:y .\n_:y <${V}value> "1" .`,
      ),
    );
    assert.deepEqual(
      labelled.map((t) => `${t.s} ${t.o}`),
      [`${R} _:b1`, '_:b1 "2"', `${R} _:b0`, '_:b0 "1"'],
    );
  });

  it('labels a cycle of alike blank nodes the same from any start', () => {
    // A ring of four nodes that all say the same: only a search tells them apart.
    const ring = [
      `${R} <${V}first> _:a .`,
      `_:a <${V}next> _:b .`,
      `_:b <${V}next> _:c .`,
      `_:c <${V}next> _:d .`,
      `_:d <${V}next> _:a .`,
      `_:e <${V}next> _:f .`,
      `_:f <${V}next> _:e .`,
    ].join('\n');
    const other = renamed(ring, 'z')
      .replaceAll('_:za', '_:q1')
      .replaceAll('_:zb', '_:q0')
      .replaceAll('_:zc', '_:q3');
    assert.equal(written(triples(other)), written(triples(ring)));
  });

  describe('a description past the work limit', () => {
    // Blank nodes sharing their children, level after level: their content, spelt out, doubles
    // at every level (2^40 parts).
    const shared: string[] = [`${R} <${V}note> _:n0 .`];
    for (let i = 0; i < 40; i++)
      shared.push(`_:n${i} <${V}left> _:n${i + 1} .`, `_:n${i} <${V}right> _:n${i + 1} .`);
    const input = triples(shared.join('\n'));
    let error: unknown;
    try {
      labelBlankNodes(input, R.slice(1, -1));
    } catch (caught) {
      error = caught;
    }

    it('is refused with CanonicalLimit', () => assert.ok(error instanceof CanonicalLimit));
    it('names the institution', () =>
      assert.match((error as Error).message, /<https:\/\/ld\.zdb-services\.de\/.*DE-Tue120>/));
    it('names the limit', () => assert.equal((error as CanonicalLimit).limit, MAX_CANONICAL_WORK));
  });
});
