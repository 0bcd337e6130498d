// Whether a server's connection is between requests: the test both the stop (SIGTERM) and the
// connection cap use to choose the connections they may close without cutting a request.
import type http from 'node:http';
import type net from 'node:net';

/** What Node keeps on a server's socket that tells whether the connection is between requests. */
export type ServerSocket = net.Socket & {
  /** The response being written on it (Node's own `closeIdleConnections` reads it too). */
  _httpMessage?: http.ServerResponse | null;
  /** Its HTTP parser: `duration()` is 0 while no request is partly read (Node's idle test). */
  parser?: { duration(): number } | null;
};

/** No answer being made or written, and no request partly read (or nothing read at all). */
export function isIdle(socket: ServerSocket): boolean {
  return !socket._httpMessage && (socket.bytesRead === 0 || socket.parser?.duration() === 0);
}
