// The queue in front of the search index's thread: that thread answers one question at a
// time, so a question waits for those before it. Each client (a remote address) waits in a queue
// of its own, and the next question is the first of the client with the fewest questions at the
// thread (of those, the one whose last turn is the oldest), so that one client's flood waits behind
// itself and not in front of everyone. A client has at most `perClient` questions waiting and all
// clients at most `queue`; when it is full, a client with fewer waiting pushes out the newest
// question of the client with the most, so that a few clients cannot lock the others out (the
// question refused, or pushed out, fails at once: `SearchBusy`). A question whose client has gone
// (its `signal` aborted) leaves the queue at once, never to run.

/** Who asks: the client's address, and a signal aborted once the client has gone. */
export interface Asker {
  readonly client: string;
  readonly signal?: AbortSignal;
}

/** The queue is full (`perClient` false: for everyone; true: for this client). */
export class SearchBusy extends Error {
  constructor(readonly perClient: boolean) {
    super(
      perClient
        ? 'Too many of your searches are waiting; try again in a second.'
        : 'Search is busy; try again in a second.',
    );
    this.name = 'SearchBusy';
  }
}

/** The client went away before its question's turn: the question was dropped, not run. */
export class ClientGone extends Error {
  constructor() {
    super('the client went away before its question ran');
    this.name = 'ClientGone';
  }
}

export interface QueueLimits {
  /**
   * Questions handed to the thread at once. One: the thread answers in order, so a second handed
   * early is one more that a client arriving next waits for (a person's search during a flood of
   * heavy ones: 6 of 10 within a second with two, 15 of 15 with one), and the thread's wait for
   * the next (a message each way) did not show in the suggestions' rate.
   */
  readonly running: number;
  /** Questions waiting, of all clients. */
  readonly queue: number;
  /** Questions waiting, of one client. */
  readonly perClient: number;
}

/** 56 a client: the 50 connections of a load test from one address, or of a proxy, fit. */
export const QUEUE_LIMITS: QueueLimits = { running: 1, queue: 64, perClient: 56 };

interface Waiting {
  readonly client: string;
  readonly signal: AbortSignal | undefined;
  readonly start: (done: () => void) => void;
  readonly left: () => void;
  readonly refuse: (error: Error) => void;
}

export class SearchQueue {
  /** The questions waiting, by client. */
  private readonly clients = new Map<string, Waiting[]>();
  private waitingCount = 0;
  private runningCount = 0;
  /** The questions at the thread, by client. */
  private readonly runningOf = new Map<string, number>();
  /** The turn each client with questions waiting or at the thread had last (turns are counted). */
  private readonly lastTurn = new Map<string, number>();
  private turns = 0;

  constructor(readonly limits: QueueLimits = QUEUE_LIMITS) {}

  /** How many questions wait for their turn. */
  get waiting(): number {
    return this.waitingCount;
  }

  /**
   * Resolves on `asker`'s turn with the function to call once its question is answered; rejects
   * with `SearchBusy` when the queue is full, or `ClientGone` when the client leaves first.
   */
  turn(asker: Asker): Promise<() => void> {
    const { client, signal } = asker;
    if (signal?.aborted) return Promise.reject(new ClientGone());
    if (this.runningCount < this.limits.running && this.waitingCount === 0)
      return Promise.resolve(this.started(client));
    const mine = this.clients.get(client);
    if ((mine?.length ?? 0) >= this.limits.perClient) return Promise.reject(new SearchBusy(true));
    if (this.waitingCount >= this.limits.queue && !this.pushOut(mine?.length ?? 0))
      return Promise.reject(new SearchBusy(false));
    return new Promise((resolve, reject) => {
      const left = () => {
        this.remove(waiting);
        reject(new ClientGone());
      };
      const waiting: Waiting = { client, signal, start: resolve, left, refuse: reject };
      signal?.addEventListener('abort', left, { once: true });
      if (mine) mine.push(waiting);
      else this.clients.set(client, [waiting]);
      this.waitingCount++;
    });
  }

  /**
   * Makes room in a full queue for a client with `having` questions waiting: the newest question
   * of the client with the most goes, if that client would still have more than this one.
   */
  private pushOut(having: number): boolean {
    let fullest: Waiting[] | undefined;
    for (const queue of this.clients.values())
      if (queue.length > (fullest?.length ?? 0)) fullest = queue;
    if (!fullest || fullest.length <= having + 1) return false;
    const newest = fullest[fullest.length - 1]!;
    this.remove(newest);
    newest.signal?.removeEventListener('abort', newest.left);
    newest.refuse(new SearchBusy(true));
    return true;
  }

  /** One more question of `client` runs; the function ends it and gives the next its turn. */
  private started(client: string): () => void {
    this.runningCount++;
    this.runningOf.set(client, (this.runningOf.get(client) ?? 0) + 1);
    this.lastTurn.set(client, ++this.turns);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.runningCount--;
      const left = this.runningOf.get(client)! - 1;
      if (left === 0) this.runningOf.delete(client);
      else this.runningOf.set(client, left);
      this.forgetIdle(client);
      this.next();
    };
  }

  /**
   * The first question of the client with the fewest at the thread runs; of equals, of the one
   * whose last turn is the oldest (a client that had none goes first). At most `queue` clients wait.
   */
  private next(): void {
    while (this.runningCount < this.limits.running && this.waitingCount > 0) {
      let chosen: [string, Waiting[]] | undefined;
      let best = [Infinity, Infinity];
      for (const [client, queue] of this.clients) {
        const key = [this.runningOf.get(client) ?? 0, this.lastTurn.get(client) ?? 0];
        if (key[0]! < best[0]! || (key[0] === best[0] && key[1]! < best[1]!))
          [chosen, best] = [[client, queue], key];
      }
      const [client, queue] = chosen!;
      const waiting = queue.shift()!;
      this.waitingCount--;
      if (queue.length === 0) this.clients.delete(client);
      waiting.signal?.removeEventListener('abort', waiting.left);
      waiting.start(this.started(client));
    }
  }

  /** A client with nothing waiting and nothing at the thread is forgotten. */
  private forgetIdle(client: string): void {
    if (!this.clients.has(client) && !this.runningOf.has(client)) this.lastTurn.delete(client);
  }

  private remove(waiting: Waiting): void {
    const queue = this.clients.get(waiting.client);
    const at = queue?.indexOf(waiting) ?? -1;
    if (!queue || at < 0) return;
    queue.splice(at, 1);
    this.waitingCount--;
    if (queue.length === 0) this.clients.delete(waiting.client);
    this.forgetIdle(waiting.client);
  }
}
