// The quads outside the descriptions, in their canonical linear order: the same lines whatever
// labels and order the store gives, a chain labelled from the description it hangs below, and a
// chain of 100,000 blank nodes.
import assert from 'node:assert/strict';
import { restLines, type TextQuad } from '../../../src/load/describe/restLabels';

const NEXT = '<http://example.org/next>';
const VALUE = '<http://example.org/value>';

/** A chain of `length` alike blank nodes below the anchor `_:top`, each labelled `_:<prefix><i>`. */
function chain(length: number, prefix: string): TextQuad[] {
  const quads: TextQuad[] = [{ s: '_:top', p: NEXT, o: `_:${prefix}0`, g: '' }];
  for (let i = 0; i < length - 1; i++)
    quads.push({ s: `_:${prefix}${i}`, p: NEXT, o: `_:${prefix}${i + 1}`, g: '' });
  quads.push({ s: `_:${prefix}${length - 1}`, p: VALUE, o: '"end"', g: '' });
  return quads;
}

describe('the rest’s canonical lines', () => {
  const anchors = new Map([['_:top', '_:d0b3']]);

  it('do not depend on the labels or the order the store gives', () => {
    assert.deepEqual(
      restLines([...chain(50, 'y')].reverse(), anchors),
      restLines(chain(50, 'x'), anchors),
    );
  });
  it('keep the label a description gave the node a chain hangs below', () =>
    assert.ok(restLines(chain(3, 'x'), anchors).some((line) => line.startsWith('_:d0b3 '))));
  it('give every node of an alike chain a label of its own', () => {
    const labels = new Set(restLines(chain(50, 'x'), anchors).map((line) => line.split(' ')[0]));
    assert.equal(labels.size, 51, 'the 50 and the anchor');
  });
  it('are sorted', () => {
    const lines = restLines(chain(50, 'x'), anchors);
    assert.deepEqual(lines, [...lines].sort());
  });
  it('keep the graph of each quad', () =>
    assert.deepEqual(restLines([{ s: '<a>', p: NEXT, o: '"x"', g: '<g>' }], new Map()), [
      `<a> ${NEXT} "x" <g> .`,
    ]));
  // A walk quadratic in the chain's length would not end within the test's guard; the figure is
  // benchmark.md's ("a chain of 100,000 blank nodes").
  it('label a chain of 100,000 blank nodes, each a label of its own, the same for any order', () => {
    const lines = restLines(chain(100_000, 'x'), anchors);
    assert.equal(lines.length, 100_001);
    assert.equal(new Set(lines.map((line) => line.split(' ')[0])).size, 100_001);
    assert.deepEqual(restLines(chain(100_000, 'y').reverse(), anchors), lines);
  });
});
