// Caps the connections a server holds (MAX_CONNECTIONS): at the cap, a new connection closes the
// connection idle the longest, and is refused with a 503 only when every connection is busy.
import type http from 'node:http';
import type net from 'node:net';
import { isIdle, type ServerSocket } from './idle';

/** What the cap did since it last said so. */
export interface CapReport {
  readonly max: number;
  /** Idle connections closed to make room for new ones. */
  readonly closedIdle: number;
  /** New connections refused (503) because every connection was busy. */
  readonly refused: number;
}

/**
 * A connection younger than this is not closed for a newer one: its client may not have been
 * read yet, and a burst of connections accepted in one go would otherwise close each other's.
 */
const YOUNG_MS = 250;

const ACCEPTED = Symbol('isil-ld accepted at');
type Capped = ServerSocket & { [ACCEPTED]?: number };

/** How often, at most, the cap says what it did: a flood makes one line a minute, not thousands. */
const REPORT_MS = 60_000;

/**
 * Holds `server` to `max` connections. Connections are kept in the order of their last request
 * (a Set keeps insertion order; a request moves its connection to the end), so the first idle one
 * found is the one idle the longest: a socket that never sent anything first. A connection with a
 * request partly read or being answered is never closed. A new connection that finds no idle one
 * is answered with `refuse` and closed. `report` is called on the first closing and then at most
 * once per REPORT_MS.
 */
export function capConnections(
  server: http.Server,
  max: number,
  refuse: (socket: net.Socket) => void,
  report: (what: CapReport) => void,
): void {
  const open = new Set<Capped>();
  let closedIdle = 0;
  let refused = 0;
  let reported = -Infinity;
  const tell = () => {
    const now = performance.now();
    if (now - reported < REPORT_MS) return;
    reported = now;
    report({ max, closedIdle, refused });
    closedIdle = refused = 0;
  };
  // Before Node's own listener, so that a refused connection is answered before anything else.
  server.prependListener('connection', (socket: Capped) => {
    const now = performance.now();
    if (open.size >= max) {
      let oldest: Capped | undefined;
      for (const candidate of open)
        if (isIdle(candidate) && now - candidate[ACCEPTED]! >= YOUNG_MS) {
          oldest = candidate;
          break;
        }
      if (oldest === undefined) {
        refused++;
        tell();
        refuse(socket);
        return;
      }
      open.delete(oldest);
      oldest.destroy();
      closedIdle++;
      tell();
    }
    socket[ACCEPTED] = now;
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  server.prependListener('request', (req: http.IncomingMessage) => {
    const socket = req.socket as ServerSocket;
    if (open.delete(socket)) open.add(socket);
  });
}
