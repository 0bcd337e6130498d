// Bounds the renders of uncached documents: how many run at once, and how many may wait. A flood
// of requests for documents that are not cached must not turn into an unbounded queue of store
// queries and serializations (each holds its description and text until it is answered).

/**
 * Renders that run at once. The store's thread answers one query at a time and the serializers
 * run in this thread: a few dozen keep both threads busy, more only hold memory.
 */
export const RENDERS_IN_FLIGHT = 32;

/**
 * Renders that may wait for a place. With at most PIPELINE_DEPTH requests of each connection in
 * the app (src/http/pipeline.ts), this many waiting renders is room for a few hundred connections
 * asking for uncached documents at once; past it, a request is answered 503 at once.
 */
export const RENDERS_WAITING = 1024;

/** A render refused because RENDERS_IN_FLIGHT run and RENDERS_WAITING wait: answered 503. */
export class RendersBusy extends Error {
  override name = 'RendersBusy';
  constructor() {
    super('Too many documents are being rendered; try again shortly.');
  }
}

/** A FIFO of renders with a bound on those that run and on those that wait. */
export class RenderQueue {
  private running = 0;
  private readonly waiting: ((() => void) | undefined)[] = [];
  /** Index of the first waiting render in `waiting` (shifting an array is O(n)). */
  private head = 0;

  constructor(
    readonly inFlight = RENDERS_IN_FLIGHT,
    readonly maxWaiting = RENDERS_WAITING,
  ) {}

  /** Renders running now. */
  get active(): number {
    return this.running;
  }

  /** Renders waiting for a place. */
  get queued(): number {
    return this.waiting.length - this.head;
  }

  /**
   * Runs `render` when a place is free, in the order asked; rejects with RendersBusy at once when
   * the queue is full.
   */
  run<T>(render: () => Promise<T>): Promise<T> {
    if (this.running < this.inFlight) return this.start(render);
    if (this.queued >= this.maxWaiting) return Promise.reject(new RendersBusy());
    return new Promise<T>((resolve, reject) => {
      this.waiting.push(() => this.start(render).then(resolve, reject));
    });
  }

  private start<T>(render: () => Promise<T>): Promise<T> {
    this.running++;
    let done: Promise<T>;
    try {
      done = render();
    } catch (error) {
      done = Promise.reject(error as Error);
    }
    return done.finally(() => {
      this.running--;
      this.next();
    });
  }

  private next(): void {
    const { waiting } = this;
    if (this.head === waiting.length) return;
    const start = waiting[this.head]!;
    // Dropped from the array at once, so that a long queue holds no closure already run.
    waiting[this.head++] = undefined;
    if (this.head === waiting.length) {
      waiting.length = 0;
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= waiting.length) {
      waiting.splice(0, this.head);
      this.head = 0;
    }
    start();
  }
}
