import assert from 'node:assert/strict';
import { relabelled, snapshotBlocks } from '../../../src/update/snapshotBlocks';

const BASE = 'https://ld.example.org';
const G = (isil: string) => `<${BASE}/data/organisations/${isil}>`;
const R = (isil: string) => `<${BASE}/resource/organisations/${isil}>`;
const N = '<http://xmlns.com/foaf/0.1/name>';
const A = '<http://www.w3.org/2006/vcard/ns#hasAddress>';

describe('snapshotBlocks', () => {
  const lines = [
    `${R('DE-1')} ${N} "Eins" ${G('DE-1')} .`,
    `${R('DE-1')} ${A} _:d0b0 ${G('DE-1')} .`,
    '# chunk',
    `_:d0b0 ${N} "Adresse" ${G('DE-1')} .`,
    `${R('DE-2')} ${N} "Zwei" ${G('DE-2')} .`,
    `<https://www.wikidata.org/entity/Q1> <http://www.w3.org/2002/07/owl#sameAs> ${R('DE-2')} <${BASE}/data/links> .`,
    `${R('DE-3')} ${N} "in the rest" ${G('DE-3')} .`,
  ];
  // Read in pieces that cut lines and a character in two.
  const bytes = Buffer.from(`${lines.join('\n')}\n`);
  const pieces = [bytes.subarray(0, 7), bytes.subarray(7, 150), bytes.subarray(150)];
  const blocks = [...snapshotBlocks(pieces, BASE)];

  it('gathers each description’s lines, chunk marks left out', () => {
    assert.deepEqual(blocks[0], { isil: 'DE-1', lines: [lines[0], lines[1], lines[3]] });
    assert.deepEqual(blocks[1], { isil: 'DE-2', lines: [lines[4]] });
  });

  it('takes every line from the first outside a description on as the rest', () => {
    assert.deepEqual(blocks.slice(2), [{ isil: undefined, lines: [lines[5], lines[6]] }]);
  });
});

describe('relabelled', () => {
  it('moves the labels of subjects and objects to another description’s', () => {
    assert.equal(
      relabelled(`_:d3b0 ${A} _:d3b1 ${G('X')} .`, '_:d3b', '_:d12b'),
      `_:d12b0 ${A} _:d12b1 ${G('X')} .`,
    );
  });

  it('leaves a literal that reads like a label as it is', () => {
    const line = `${R('X')} ${N} "_:d3b0 is no node" ${G('X')} .`;
    assert.equal(relabelled(line, '_:d3b', '_:d4b'), line);
  });

  it('leaves another description’s labels as they are', () => {
    const line = `_:d31b0 ${A} _:d31b1 ${G('X')} .`;
    assert.equal(relabelled(line, '_:d3b', '_:d4b'), line);
  });
});
