// Time slices (src/util/timeSlice.ts): background work goes on without a turn of the event loop
// while its slice lasts, and gives a turn up once the slice is used.
import assert from 'node:assert/strict';
import { nextTurn, SLICE_MS, TimeSlicer } from '../../../src/util/timeSlice';

/** Holds the thread for `ms`, as a step of work does. */
function work(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('TimeSlicer', () => {
  it('lets nothing else run while its slice lasts', async () => {
    const slicer = new TimeSlicer();
    let ran = false;
    setImmediate(() => (ran = true));
    await slicer.pause();
    assert.equal(ran, false);
    await nextTurn();
    assert.equal(ran, true);
  });

  it('gives the event loop a turn once its slice is used up', async () => {
    const slicer = new TimeSlicer();
    let ran = false;
    setImmediate(() => (ran = true));
    work(SLICE_MS + 1);
    await slicer.pause();
    assert.equal(ran, true);
  });

  it('starts a new slice after the turn it gave up', async () => {
    const slicer = new TimeSlicer();
    work(SLICE_MS + 1);
    await slicer.pause();
    let ran = false;
    setImmediate(() => (ran = true));
    await slicer.pause();
    assert.equal(ran, false);
  });

  it('says it is contended when other work took the turn it gave up', async () => {
    const slicer = new TimeSlicer();
    assert.equal(slicer.contended, false);
    setImmediate(() => work(3));
    work(SLICE_MS + 1);
    await slicer.pause();
    assert.equal(slicer.contended, true);
  });
});
