// The process's lifecycle: SIGHUP reloads the dataset, SIGTERM and SIGINT stop the server without
// losing a request (connections closed once idle, a grace period, then the store), and the end of
// the store's thread ends the process, as does the end of npm when npm started it.
import type http from 'node:http';
import net from 'node:net';
import type { Config } from '../config/config';
import type { Logger } from '../util/logger';
import type { Service } from '../documents/service';
import type { StaffStore } from '../store/staff';
import type { Store } from '../store/store';
import { isIdle, type ServerSocket } from './idle';
import type { Reloader } from './reloader';

/** While stopping, connections are looked at this often, for being idle (see `Connections`). */
const SWEEP_MS = 25;

/**
 * While stopping, how long a connection must have been idle before it is closed. A client that
 * got an answer just before the signal sends its next request a round trip later: closing its
 * connection in between would cut that request. One that arrives meanwhile is answered with
 * `Connection: close` instead.
 */
const IDLE_LINGER_MS = 500;

type Response = http.ServerResponse & { shouldKeepAlive: boolean };

const LAST_RESPONSE = Symbol('isil-ld last response');
type Tracked = ServerSocket & { [LAST_RESPONSE]?: Response };

/**
 * The connections of a server, for stopping it without losing a request (SIGTERM). Node's own
 * `close()` destroys the connections idle at that moment, and one that was idle only in the
 * instant between an answer and the client's next request lost that request: the client saw a
 * reset. Here, every answer begun after the signal says `Connection: close`, and Node closes its
 * connection once it is sent; a connection idle at the signal, or idle after an answer whose head
 * went out before it, is closed once it has stayed idle for IDLE_LINGER_MS, and never while Node
 * may hold bytes of a request (it is looked at after the event loop has read its sockets).
 * A pipelining client may find requests it sent after the one answered with `Connection: close`
 * unanswered: RFC 9112 §9.3.2 has it send them again.
 */
export class Connections {
  private readonly open = new Set<Tracked>();
  private stopping = false;

  constructor(private readonly server: http.Server) {
    server.on('connection', (socket: Tracked) => {
      this.open.add(socket);
      socket.once('close', () => this.open.delete(socket));
    });
    // Before the app's listener, which may answer at once. Node emits a request as soon as it is
    // parsed, pipelined ones too: the last one of a connection is the one to close it.
    server.prependListener('request', (req: http.IncomingMessage, res: Response) => {
      (req.socket as Tracked)[LAST_RESPONSE] = res;
      if (this.stopping) res.shouldKeepAlive = false;
    });
  }

  /** Stops taking connections and closes each once idle; `closed` is called after the last. */
  stop(closed: () => void): void {
    this.stopping = true;
    for (const socket of this.open) {
      const last = socket[LAST_RESPONSE];
      if (last && !last.headersSent) last.shouldKeepAlive = false;
    }
    // Connections the kernel accepted before the signal are taken in the poll phase of this turn
    // of the event loop; closing the listener before would reset them. `http.Server.close` would
    // also close the idle connections at once: the listener is closed as a `net.Server`'s.
    const idle = new Map<Tracked, { readonly since: number; readonly bytes: number }>();
    const sweep = () => {
      const now = performance.now();
      for (const socket of this.open) {
        const quiet = isIdle(socket);
        const seen = idle.get(socket);
        if (!quiet) idle.delete(socket);
        else if (seen?.bytes !== socket.bytesRead)
          idle.set(socket, { since: now, bytes: socket.bytesRead });
        else if (now - seen.since >= IDLE_LINGER_MS) {
          idle.delete(socket);
          socket.destroySoon();
        }
      }
    };
    setImmediate(() => {
      net.Server.prototype.close.call(this.server, () => closed());
      sweep();
    });
    // A sweep runs after the poll phase (setImmediate): bytes of a request that reached the
    // kernel before it have been read, and the connection is no longer idle.
    setInterval(() => setImmediate(sweep), SWEEP_MS).unref();
  }
}

/** What the signals act on. */
export interface Lifecycle {
  readonly config: Config;
  readonly logger: Logger;
  readonly server: http.Server;
  readonly service: Service;
  readonly store: Store;
  readonly reloader: Reloader;
  /** The staff listener (SPARQL_LISTEN) and the staff queries' store, when the endpoint is on. */
  readonly staffServer?: http.Server;
  readonly staff?: StaffStore;
  /** The metrics listener (METRICS_LISTEN): closed at once on a stop, it has no requests to finish. */
  readonly metricsServer?: http.Server;
  /** Whether npm started the server (`npm start`): it then stops when npm is gone (below). */
  readonly startedByNpm?: boolean;
}

/** How often the server looks whether npm, which started it, is still its parent. */
const PARENT_LOOK_MS = 250;

/**
 * Under `npm start` the server is npm's child (the script execs node: no shell, no tsx wrapper
 * between them), and npm passes SIGTERM and SIGINT on but not SIGHUP: `kill -HUP` sent to npm
 * ends npm alone. The server would go on orphaned, reloading nothing and out of reach of Ctrl-C;
 * instead, once it is no longer npm's child, it stops as on SIGTERM, saying which pid to signal.
 */
function stopWithParent(stop: (signal: string) => void, logger: Logger): void {
  const parent = process.ppid;
  const look = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(look);
    logger.warn(
      { npm: parent, pid: process.pid },
      'npm, which started the server, is gone (npm ends on SIGHUP and does not pass it on: send SIGHUP to the server pid to reload): stopping',
    );
    stop('npm gone');
  }, PARENT_LOOK_MS);
  look.unref();
}

/** SIGHUP reloads; SIGTERM and SIGINT stop once the requests in flight are answered. */
export function handleSignals({
  config,
  logger,
  server,
  service,
  store,
  reloader,
  staffServer,
  staff,
  metricsServer,
  startedByNpm,
}: Lifecycle): void {
  const servers = staffServer ? [server, staffServer] : [server];
  const connections = servers.map((s) => new Connections(s));
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    metricsServer?.close();
    metricsServer?.closeAllConnections();
    let open = connections.length;
    const closed = () => {
      if (--open > 0) return;
      service.close();
      void Promise.all([store.close(), staff?.close()]).finally(() => {
        logger.info('stopped');
        process.exit(0);
      });
    };
    for (const c of connections) c.stop(closed);
    setTimeout(() => {
      logger.warn('grace period over: closing the remaining connections');
      for (const s of servers) s.closeAllConnections();
    }, config.shutdownGraceMs).unref();
  };
  process.on('SIGHUP', () => {
    if (!stopping) void reloader.reload();
  });
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  if (startedByNpm) stopWithParent(stop, logger);
}
