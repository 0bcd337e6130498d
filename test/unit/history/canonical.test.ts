// The history's canonical forms: a description's canonical text whatever its labels and order,
// its hash, the version of a set of states, and the states as a trailer keeps them.
import assert from 'node:assert/strict';
import {
  CanonicalLimit,
  canonicalDescription,
  compactStates,
  institutionHash,
  readCompactStates,
  versionOf,
} from '../../../src/history/canonical';
import type { InstitutionState } from '../../../src/history/model';

const R = 'https://ld.zdb-services.de/resource/organisations/DE-1a';
const V = 'http://www.w3.org/2006/vcard/ns#';
const LINES = [
  `<${R}> <${V}adr> _:a .`,
  `_:a <${V}locality> "Berlin" .`,
  `<${R}> <http://www.w3.org/2002/07/owl#sameAs> <http://www.wikidata.org/entity/Q1> .`,
  `<${R}> <${V}adr> _:a .`,
];

const STATES: InstitutionState[] = [
  { isil: 'DE-2', status: 'live', hash: 'b'.repeat(32) },
  { isil: 'DE-1', status: 'withdrawn', hash: 'a'.repeat(32), successors: ['DE-2'] },
];

describe('canonical forms', () => {
  const text = canonicalDescription(R, LINES.join('\n'));

  it('a description is the same text in any order and under any labels', () =>
    assert.equal(
      canonicalDescription(R, [...LINES].reverse().join('\n').replaceAll('_:a', '_:other')),
      text,
    ));
  it('a description is deduplicated, one triple a line, blank nodes from _:b0', () =>
    assert.equal(text.split('\n').filter(Boolean).length, 3));
  it('an institution’s hash is 32 hex digits of its text', () =>
    assert.match(institutionHash(text), /^[0-9a-f]{32}$/));
  it('a version is 12 hex digits, whatever the order of its states', () => {
    assert.match(versionOf(STATES, 'r'), /^[0-9a-f]{12}$/);
    assert.equal(versionOf([...STATES].reverse(), 'r'), versionOf(STATES, 'r'));
  });
  it('a version changes with a hash, a status, a successor and the rest', () => {
    const version = versionOf(STATES, 'r');
    const [live, withdrawn] = STATES as [InstitutionState, InstitutionState];
    assert.notEqual(versionOf([{ ...live, hash: 'c'.repeat(32) }, withdrawn], 'r'), version);
    assert.notEqual(versionOf([{ ...live, status: 'withdrawn' }, withdrawn], 'r'), version);
    assert.notEqual(versionOf([live, { ...withdrawn, successors: [] }], 'r'), version);
    assert.notEqual(versionOf(STATES, 's'), version);
  });
  it('states survive their compact form, in ISIL order', () => {
    const map = new Map(STATES.map((s) => [s.isil, s]));
    const compact = compactStates(map);
    assert.deepEqual(compact[0], ['DE-1', 'a'.repeat(32), ['DE-2']]);
    assert.deepEqual(
      readCompactStates(JSON.parse(JSON.stringify(compact))),
      new Map([...map].reverse()),
    );
  });
  it('a compact form of another shape is no states', () =>
    assert.equal(readCompactStates([['DE-1', 3]]), undefined));
  it('a description past the work limit throws CanonicalLimit naming its subject', () => {
    const knot = [`<${R}> <${V}part> _:l0n0 .`];
    for (let level = 0; level < 12; level++)
      for (const a of [0, 1, 2])
        for (const b of [0, 1, 2]) knot.push(`_:l${level}n${a} <${V}part> _:l${level + 1}n${b} .`);
    assert.throws(
      () => canonicalDescription(R, knot.join('\n')),
      (error: unknown) => error instanceof CanonicalLimit && error.message.includes(`<${R}>`),
    );
  });
});
