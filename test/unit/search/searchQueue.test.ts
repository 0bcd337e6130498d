// The queue in front of the search index's thread: turns by client, bounds, and the
// questions of clients gone dropped before they run.
import assert from 'node:assert/strict';
import { ClientGone, SearchBusy, SearchQueue } from '../../../src/search/searchQueue';

const LIMITS = { running: 1, queue: 6, perClient: 3 };

/** Whose questions ran, in order, as `turn` gives them their turns. */
function recorder(queue: SearchQueue) {
  const ran: string[] = [];
  const ask = (client: string, signal?: AbortSignal) =>
    queue.turn({ client, ...(signal ? { signal } : {}) }).then((done) => {
      ran.push(client);
      // The question is answered in a later turn of the event loop, as the thread's answer is.
      setImmediate(done);
    });
  return { ran, ask };
}

describe('SearchQueue', () => {
  it("a client's flood waits behind itself: another client's question runs next", async () => {
    const queue = new SearchQueue(LIMITS);
    const { ran, ask } = recorder(queue);
    // a's first runs at once; b and c, who had no turn yet, go before a's next.
    const all = [ask('a'), ask('a'), ask('a'), ask('a'), ask('b'), ask('c')];
    await Promise.all(all);
    assert.deepEqual(ran, ['a', 'b', 'c', 'a', 'a', 'a']);
  });

  it('goes to the client with the fewest questions at the thread', async () => {
    const queue = new SearchQueue({ running: 2, queue: 6, perClient: 6 });
    const { ran, ask } = recorder(queue);
    // Two of a's run at once; b, queued after three more of a's, runs at the first free place.
    const all = [ask('a'), ask('a'), ask('a'), ask('a'), ask('a'), ask('b')];
    await Promise.all(all);
    assert.equal(ran.indexOf('b'), 2);
  });

  it("refuses a client's question past its share (429)", async () => {
    const queue = new SearchQueue(LIMITS);
    const { ask } = recorder(queue);
    const admitted = [ask('a'), ask('a'), ask('a'), ask('a')];
    await assert.rejects(ask('a'), (e: unknown) => e instanceof SearchBusy && e.perClient);
    await Promise.all(admitted);
    assert.equal(queue.waiting, 0);
  });

  it("a full queue makes room for a client by pushing out the fullest client's newest", async () => {
    const queue = new SearchQueue({ running: 1, queue: 4, perClient: 4 });
    const { ran, ask } = recorder(queue);
    const first = ask('a');
    const waiting = [ask('a'), ask('a'), ask('a')];
    const pushed = ask('a');
    const b = ask('b');
    await assert.rejects(pushed, (e: unknown) => e instanceof SearchBusy && e.perClient);
    assert.equal(queue.waiting, 4);
    await Promise.all([first, ...waiting, b]);
    assert.deepEqual(ran, ['a', 'b', 'a', 'a', 'a']);
  });

  it('refuses a question when the queue is full of clients with one each (503)', async () => {
    const queue = new SearchQueue({ running: 1, queue: 3, perClient: 3 });
    const { ask } = recorder(queue);
    const admitted = [ask('a'), ask('b'), ask('c'), ask('d')];
    assert.equal(queue.waiting, 3);
    await assert.rejects(ask('e'), (e: unknown) => e instanceof SearchBusy && !e.perClient);
    await Promise.all(admitted);
  });

  it('drops the question of a client gone, before it runs, and frees its place', async () => {
    const queue = new SearchQueue(LIMITS);
    const { ran, ask } = recorder(queue);
    const first = ask('a');
    const leaving = new AbortController();
    const gone = ask('b', leaving.signal);
    const stays = ask('c');
    assert.equal(queue.waiting, 2);
    leaving.abort();
    await assert.rejects(gone, ClientGone);
    assert.equal(queue.waiting, 1);
    await Promise.all([first, stays]);
    assert.deepEqual(ran, ['a', 'c']);
    const already = new AbortController();
    already.abort();
    await assert.rejects(ask('d', already.signal), ClientGone);
  });
});
