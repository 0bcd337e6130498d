// Time slices for work that would hold the one JavaScript thread for seconds (loading a dataset
// while the server answers): the work pauses for a turn of the event loop every few milliseconds.

/**
 * How long a slice of background work may hold the event loop while requests wait. A request that
 * arrives meanwhile waits this long at most, and the requests queued meanwhile are all answered
 * before the next slice. 2 ms rather than 5: a reload's p99 came closer to the p99 without one, for
 * a somewhat longer reload (docs/benchmark.md, "the time slice"); much shorter, the load would
 * spend more on the turns than on its work.
 */
export const SLICE_MS = 2;

/**
 * How long one step may take while no request waits (a first load, a reload at a quiet moment):
 * each call into the store costs, so larger steps load faster; the first request that arrives
 * waits one such step at most, and then the steps shrink to a slice.
 */
export const UNCONTENDED_STEP_MS = 50;

/** A turn given up that lasted this long went to other work, not only to the event loop itself. */
const CONTENDED_MS = 0.5;

/** Resolves after one turn of the event loop (what is waiting, requests among it, runs first). */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Measures the slice that runs; `pause()` lets the event loop turn once the slice is used up. */
export class TimeSlicer {
  private started = performance.now();
  /** Milliseconds the event loop spent on other work in the last turn given up. */
  private away = 0;

  /** Resolves at once while the slice lasts, else after a turn of the event loop (a new slice). */
  async pause(): Promise<void> {
    if (performance.now() - this.started < SLICE_MS) return;
    const before = performance.now();
    await nextTurn();
    this.started = performance.now();
    this.away = this.started - before;
  }

  /**
   * Whether other work (requests) took the event loop in the last turn given up: then it is worth
   * keeping steps short; else the work may take larger steps, which cost less in all.
   */
  get contended(): boolean {
    return this.away >= CONTENDED_MS;
  }
}
