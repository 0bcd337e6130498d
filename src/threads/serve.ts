// The answering side of every worker thread of the project (see client.ts): each request of a
// batch is handed to `handle`, and its answer or error goes back with the request's id.
import { parentPort } from 'node:worker_threads';
import type { Answer, Asking, Batch } from './protocol';
import { toWire } from './wire';

/**
 * Answers are sent at least this often while a batch is worked through, so that the asking thread
 * works on the first answers while this one works on the next: a batch from 50 connections
 * answered only at its end kept the store's thread and the HTTP thread taking turns.
 */
const REPLY_EVERY_MS = 1;

/** Answers every request this worker thread is sent with `handle` (synchronous or not). */
export function serve<Q, A>(handle: (request: Q) => A | Promise<A>): void {
  const port = parentPort;
  if (!port) throw new Error('this module runs as a worker thread');
  /** Answers made while a batch is handled, sent together. */
  let ready: Answer<A>[] | undefined;
  const send = (answer: Answer<A>) => {
    if (ready) ready.push(answer);
    else port.postMessage([answer] satisfies Batch<Answer<A>>);
  };
  const answerOf = (id: number, request: Q): void => {
    try {
      const answer = handle(request);
      if (answer instanceof Promise)
        answer.then(
          (value: A) => send({ id, answer: value }),
          (error: unknown) => send({ id, error: toWire(error) }),
        );
      else send({ id, answer });
    } catch (error) {
      send({ id, error: toWire(error) });
    }
  };
  port.on('message', (batch: Batch<Asking<Q>>) => {
    ready = [];
    let since = performance.now();
    try {
      for (const { id, request } of batch) {
        answerOf(id, request);
        if (ready.length > 0 && performance.now() - since >= REPLY_EVERY_MS) {
          port.postMessage(ready);
          ready = [];
          since = performance.now();
        }
      }
    } finally {
      const last = ready;
      ready = undefined;
      if (last.length > 0) port.postMessage(last);
    }
  });
}
