// Bounds the work one connection can queue: pipelined requests beyond PIPELINE_DEPTH wait on the
// socket, which stops being read, instead of all entering the app at once.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Requests of one connection in the app at once. HTTP/1.1 answers pipelined requests in order
 * (RFC 9112 §9.3.2), so a client gains nothing from more: a later answer waits for the earlier
 * ones anyway. Node parses every request of a read (up to 64 KiB, some hundreds of GETs) before
 * the app sees the first; those past the bound wait here, and the socket is not read again until
 * they are in. Without a bound, connections pipelining thousands of GETs for uncached documents
 * each started a render, and the server stalled for a minute at gigabytes (docs/benchmark.md,
 * "pipelining bounded").
 */
export const PIPELINE_DEPTH = 4;

interface Connection {
  readonly socket: ServerSocket;
  /** Requests of the connection in the app, not answered yet. */
  active: number;
  /** Requests parsed and not yet handed to the app, oldest first from `head`. */
  readonly waiting: ([IncomingMessage, ServerResponse] | undefined)[];
  /** Index of the oldest waiting request in `waiting` (shifting a long array is O(n)). */
  head: number;
  /** Whether this module paused the socket (Node pauses it too, for its own reasons). */
  paused: boolean;
  /** Whether handing in the waiting requests is scheduled for the next turn. */
  scheduled: boolean;
}

/** What Node keeps on a server's socket: its handle, and the response it is writing. */
type ServerSocket = Socket & {
  _paused?: boolean;
  _httpMessage?: ServerResponse | null;
  /** The libuv handle: `reading` and the calls that start and stop it. */
  _handle?: { reading: boolean; readStart(): number; readStop(): number } | null;
};

const CONNECTION = Symbol('isil-ld pipelined connection');
type Tracked = ServerSocket & { [CONNECTION]?: Connection };

const waitingCount = (connection: Connection) => connection.waiting.length - connection.head;

/**
 * Stops reading the connection. Node's HTTP parser reads the socket's handle itself ("consumes"
 * it), and `socket.pause()` then does not stop the handle: tens of thousands of pipelined requests
 * were parsed past a paused socket. So the handle's reading is stopped, as Node's own
 * `onSocketPause` does for a consumed socket; the parser finishes the read it is in (at most 64
 * KiB).
 */
function pause(connection: Connection): void {
  connection.paused = true;
  const handle = connection.socket._handle;
  if (handle?.reading) {
    handle.reading = false;
    handle.readStop();
  }
}

/**
 * Reads the connection again once every request read is in, unless Node paused it itself (its
 * answers are not being taken: Node starts reading again on drain).
 */
function resume(connection: Connection): void {
  if (!connection.paused) return;
  connection.paused = false;
  const { socket } = connection;
  const handle = socket._handle;
  if (socket._paused || socket.destroyed || !handle || handle.reading) return;
  handle.reading = true;
  handle.readStart();
}

/**
 * `listener`, with at most `depth` requests of each connection in it at once. A request counts
 * until its response closes (sent, or the connection gone), also one answered synchronously whose
 * answer waits in Node's queue behind an earlier one: that is work in memory like any other. The
 * request whose answer is the one being written (the common case, a keep-alive client waiting for
 * each answer) gives its place back at once when answered synchronously (a cached document).
 * Waiting requests are handed in on the next turn of the event loop, `depth` at a time: Node
 * flushes a connection's queued answers in a chain of ticks that never yields, so a connection
 * whose requests all entered at once held every other client for seconds (docs/benchmark.md,
 * "pipelining bounded").
 */
export function boundPipelining(
  listener: RequestListener,
  depth = PIPELINE_DEPTH,
): RequestListener {
  const start = (connection: Connection, req: IncomingMessage, res: ServerResponse) => {
    connection.active++;
    listener(req, res);
    if (res.writableEnded && connection.socket._httpMessage === res) {
      connection.active--;
      return;
    }
    res.once('close', () => {
      connection.active--;
      if (waitingCount(connection) > 0) {
        if (!connection.scheduled) {
          connection.scheduled = true;
          setImmediate(pump, connection);
        }
      } else resume(connection);
    });
  };
  const pump = (connection: Connection) => {
    connection.scheduled = false;
    const { socket, waiting } = connection;
    // A connection gone: what waits is never answered.
    if (socket.destroyed) {
      waiting.length = 0;
      connection.head = 0;
      return;
    }
    while (connection.active < depth && connection.head < waiting.length) {
      const [req, res] = waiting[connection.head]!;
      waiting[connection.head++] = undefined;
      start(connection, req, res);
    }
    if (connection.head === waiting.length) {
      waiting.length = 0;
      connection.head = 0;
      resume(connection);
    }
  };
  return (req, res) => {
    const socket = req.socket as Tracked;
    let connection = socket[CONNECTION];
    if (!connection)
      connection = socket[CONNECTION] = {
        socket,
        active: 0,
        waiting: [],
        head: 0,
        paused: false,
        scheduled: false,
      };
    if (connection.active < depth && waitingCount(connection) === 0) {
      start(connection, req, res);
      return;
    }
    connection.waiting.push([req, res]);
    // Not read again until these are in: what the client sends meanwhile waits in the kernel.
    // Paused again on every request that waits: Node resumes what it paused itself on drain.
    pause(connection);
  };
}
