// The history's part of the remote layout (src/store/remote/layout.ts, remoteHistory.ts): graph
// names that refuse what a load does not make, the registry's history versions written and read
// back, events as triples, and states replayed from events.
import assert from 'node:assert/strict';
import { Parser } from 'n3';
import {
  eventsGraph,
  hashGraph,
  hashOfGraph,
  readTimeline,
  registryTriples,
  timeOfGraph,
  type HistoryStep,
} from '../../../../src/store/remote/layout';
import { statesAfterEvents } from '../../../../src/history/model';
import { eventTriples } from '../../../../src/store/remote/remoteHistory';

const HASH = '0123456789abcdef0123456789abcdef';
const step: HistoryStep = {
  version: 'abcdef012345',
  time: 1_760_000_000,
  institutions: 2,
  withdrawn: 1,
  events: 3,
};

describe('the remote layout of the history', () => {
  it('names a description graph by its hash, and refuses anything else', () => {
    assert.equal(hashGraph(HASH), `urn:isil-ld:description:${HASH}`);
    assert.equal(hashOfGraph(hashGraph(HASH)), HASH);
    assert.throws(() => hashGraph('> <urn:x'), /not a description's hash/);
    assert.equal(hashOfGraph('urn:isil-ld:description:xyz'), undefined);
  });

  it("names a version's events graph by its time", () => {
    assert.equal(timeOfGraph(eventsGraph(step.time)), step.time);
    assert.throws(() => eventsGraph(1.5), /not a version's time/);
    assert.equal(timeOfGraph('urn:isil-ld:history#time'), undefined);
  });

  it("keeps the history's versions in the registry, read back as written", () => {
    const text = registryTriples([], step.version, [step]);
    const quads = new Parser({ format: 'N-Triples' }).parse(text);
    const value = (p: string) =>
      quads.find((q) => q.predicate.value === `urn:isil-ld:history#${p}`)?.object.value;
    assert.deepEqual(
      readTimeline([
        {
          version: { value: value('version')! },
          time: { value: value('time')! },
          institutions: { value: value('institutions')! },
          withdrawn: { value: value('withdrawn')! },
          events: { value: value('events')! },
        },
      ]),
      [step],
    );
  });

  it('writes events as N-Triples, one resource each', () => {
    const lines = eventTriples(step, [
      { kind: 'created', isil: 'DE-1a', hash: HASH },
      { kind: 'withdrawn', isil: 'DE-x:y/z', successors: ['DE-1a', 'DE-2'] },
      { kind: 'deleted', isil: 'DE-3' },
    ]);
    const quads = new Parser({ format: 'N-Triples' }).parse(`${lines.join('\n')}\n`);
    assert.equal(new Set(quads.map((q) => q.subject.value)).size, 3);
    assert.ok(lines.some((l) => l.endsWith(`<urn:isil-ld:history#successors> "DE-1a DE-2" .`)));
  });

  it("replays each ISIL's state from its latest event", () => {
    const at = { version: step.version, time: step.time };
    const states = statesAfterEvents([
      { ...at, kind: 'created', isil: 'DE-1', hash: HASH },
      { ...at, kind: 'created', isil: 'DE-2', hash: HASH },
      { ...at, time: step.time + 1, kind: 'deleted', isil: 'DE-2' },
      { ...at, time: step.time + 1, kind: 'withdrawn', isil: 'DE-3', successors: ['DE-1'] },
    ]);
    assert.deepEqual(
      [...states.values()],
      [
        { isil: 'DE-1', status: 'live', hash: HASH },
        { isil: 'DE-3', status: 'withdrawn', hash: '', successors: ['DE-1'] },
      ],
    );
  });
});
