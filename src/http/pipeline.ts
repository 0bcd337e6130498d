// Bounds the work one connection can queue: pipelined requests beyond PIPELINE_DEPTH wait on the
// socket, which stops being read, instead of all entering the app at once.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Requests of one connection in the app at once. HTTP/1.1 answers pipelined requests in order
 * (RFC 9112 §9.3.2), so a client gains nothing from more: a later answer waits for the earlier
 * ones anyway. Node parses every request of a read (up to 64 KiB, some hundreds of GETs) before
 * the app sees the first; those past the bound wait here, and the socket is not read again until
 * they are in. Without a bound, eight connections pipelining 50,000 GETs for uncached documents
 * each started a render, and the server stalled for 29–100 s at up to 3.1 GB.
 */
export const PIPELINE_DEPTH = 4;

interface Connection {
  readonly socket: Socket & { _paused?: boolean };
  /** Requests of the connection in the app, not answered yet. */
  active: number;
  /** Requests parsed and not yet handed to the app, oldest first. */
  readonly waiting: [IncomingMessage, ServerResponse][];
  /** Whether this module paused the socket (Node pauses it too, for its own reasons). */
  paused: boolean;
  /** Whether handing in the waiting requests is scheduled for the next turn. */
  scheduled: boolean;
}

const CONNECTION = Symbol('isil-ld pipelined connection');
type Tracked = Socket & { [CONNECTION]?: Connection };

/**
 * `listener`, with at most `depth` requests of each connection in it at once. A request counts
 * until its response closes (sent, or the connection gone), also one answered synchronously: a
 * pipelined answer waits in Node's queue for the ones before it, so it is work in memory like any
 * other. The one request of a connection that is not pipelining (the common case, a keep-alive
 * client waiting for each answer) gives its place back at once when answered synchronously (a
 * cached document), at no cost. Waiting requests are handed in on the next turn of the event
 * loop, `depth` at a time: Node flushes a connection's queued answers in a chain of ticks that
 * never yields, so a connection whose requests all entered at once held every other client (a
 * cached document took 3.3 s beside eight pipelining connections).
 */
export function boundPipelining(
  listener: RequestListener,
  depth = PIPELINE_DEPTH,
): RequestListener {
  const start = (connection: Connection, req: IncomingMessage, res: ServerResponse) => {
    connection.active++;
    listener(req, res);
    if (res.writableEnded && connection.active === 1 && connection.waiting.length === 0) {
      connection.active--;
      return;
    }
    res.once('close', () => {
      connection.active--;
      if (connection.waiting.length > 0 && !connection.scheduled) {
        connection.scheduled = true;
        setImmediate(pump, connection);
      } else if (connection.waiting.length === 0) resume(connection);
    });
  };
  const pump = (connection: Connection) => {
    connection.scheduled = false;
    const { socket, waiting } = connection;
    // A connection gone: what waits is never answered.
    if (socket.destroyed) waiting.length = 0;
    while (connection.active < depth && waiting.length > 0) {
      const [req, res] = waiting.shift()!;
      start(connection, req, res);
    }
    if (waiting.length === 0) resume(connection);
  };
  /**
   * Reads the socket again once every request read is in, unless Node paused it itself (its
   * answers are not being taken: Node resumes it on drain).
   */
  const resume = (connection: Connection) => {
    if (!connection.paused) return;
    connection.paused = false;
    const { socket } = connection;
    if (!socket._paused && !socket.destroyed) socket.resume();
  };
  return (req, res) => {
    const socket = req.socket as Tracked;
    let connection = socket[CONNECTION];
    if (!connection)
      connection = socket[CONNECTION] = {
        socket,
        active: 0,
        waiting: [],
        paused: false,
        scheduled: false,
      };
    if (connection.active < depth && connection.waiting.length === 0) {
      start(connection, req, res);
      return;
    }
    connection.waiting.push([req, res]);
    // Not read again until these are in: what the client sends meanwhile waits in the kernel.
    if (!connection.paused) {
      connection.paused = true;
      socket.pause();
    }
  };
}
