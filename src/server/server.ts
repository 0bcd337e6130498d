// The server process: reads the settings, loads the dataset, listens, reloads on SIGHUP, stops on
// SIGTERM. Started by src/main.ts, once the store's thread is on its way.
import http from 'node:http';
import net from 'node:net';
import { ConfigError, datasetLoad, loadConfig, type Config } from '../config';
import { createApp } from '../http/app';
import { boundPipelining } from '../http/pipeline';
import { ALLOW } from '../http/errors';
import { CORS, versionNotSupported } from '../http/middleware';
import { createLogger, type Logger } from '../log';
import { Service } from '../serving/service';
import { Reloader } from './reloader';
import type { StoreThread } from '../store/embedded/storeThread';

/** While stopping, connections are looked at this often, for being idle (see `Connections`). */
const SWEEP_MS = 25;

/**
 * While stopping, how long a connection must have been idle before it is closed. A client that
 * got an answer just before the signal sends its next request a round trip later: closing its
 * connection in between would cut that request. One that arrives meanwhile is answered with
 * `Connection: close` instead.
 */
const IDLE_LINGER_MS = 500;

/** Node's parser errors that have a status of their own; the rest are 400. */
const CLIENT_ERRORS: Readonly<Record<string, [number, string]>> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
};

/** A request line longer than this, in a head over Node's limit, answers 414 (see below). */
const LONG_REQUEST_LINE = 8192;
/**
 * The start of a request line: a method, a space, and a target in origin, asterisk or absolute
 * form (RFC 9112 §3.2), so that words of a header value are not taken for one.
 */
const REQUEST_LINE_START = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+ (?:\/|\*|[A-Za-z][A-Za-z0-9+.-]*:\/\/)/;

/**
 * A request line with a method Node's parser does not know (`BREW / HTTP/1.1`): it never reaches
 * the app, but contract §1 answers any method but GET, HEAD and OPTIONS with 405, known or not.
 * The parser says "invalid method" of any first line it cannot read, so the line is checked to be
 * a request line (RFC 9112 §3: a token, a target, the version) before it is answered as one.
 */
const UNKNOWN_METHOD = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+ [^\s]+ HTTP\/1\.[01]\r?\n/;

/**
 * A request line whose version is well-formed (RFC 9112 §2.3: `HTTP/` DIGIT `.` DIGIT) but not one
 * Node's parser takes (`HTTP/1.2`, `HTTP/3.0`): 505, since the server does not speak it (RFC 9110
 * §15.6.6). A malformed version (`HTTP/2`, `HTTP/1.10`) is a bad request line: 400. Versions the
 * parser takes but this server does not speak (`HTTP/2.0`, `HTTP/0.9`) reach the app, whose
 * request gate answers them 505 with the same reason.
 */
const OTHER_VERSION = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+ [^\s]+ HTTP\/\d\.\d\r?\n/;

const VERSION_NOT_SUPPORTED: [number, string] = [505, 'HTTP Version Not Supported'];

/** The status of a request Node's parser refused. */
function clientErrorStatus(
  error: NodeJS.ErrnoException & { rawPacket?: Buffer },
): [number, string] {
  // The HTTP/2 connection preface (`PRI * HTTP/2.0`, RFC 9113 §3.4), sent by a client that assumes
  // HTTP/2 without asking (h2c with prior knowledge): the parser stops on its method.
  if (error.code === 'HPE_PAUSED_H2_UPGRADE') return VERSION_NOT_SUPPORTED;
  if (error.code === 'HPE_INVALID_VERSION' && error.rawPacket) {
    const line = error.rawPacket.subarray(0, 8192).toString('latin1');
    if (OTHER_VERSION.test(line)) return VERSION_NOT_SUPPORTED;
  }
  if (error.code === 'HPE_INVALID_METHOD' && error.rawPacket) {
    const line = error.rawPacket.subarray(0, 8192).toString('latin1');
    if (UNKNOWN_METHOD.test(line)) return [405, 'Method Not Allowed'];
  }
  // Node counts the request line into its header limit: when the bytes the parser failed on start
  // with a request line that is alone over half of it, the target is what is too long (RFC 9112
  // §3). Bytes from further on in the head (it came in several reads) answer 431, unless they
  // happen to start like a request line.
  if (error.code === 'HPE_HEADER_OVERFLOW' && error.rawPacket) {
    const packet = error.rawPacket;
    const end = packet.indexOf(0x0a);
    if (
      REQUEST_LINE_START.test(packet.subarray(0, 32).toString('latin1')) &&
      (end === -1 || end > LONG_REQUEST_LINE)
    )
      return [414, 'URI Too Long'];
  }
  return CLIENT_ERRORS[error.code ?? ''] ?? [400, 'Bad Request'];
}

/**
 * The head of an answer written to the socket, before or without the app: CORS on every response
 * (contract §6), `Allow` on a 405 (RFC 9110 §15.5.6), and the connection closed.
 */
function rawHead(status: number, reason: string, length: number, type?: string): string {
  const headers = [
    `HTTP/1.1 ${status} ${reason}`,
    ...(type ? [`Content-Type: ${type}`] : []),
    `Content-Length: ${length}`,
    ...(status === 405 ? [`Allow: ${ALLOW}`] : []),
    ...Object.entries(CORS).map(([name, value]) => `${name}: ${value}`),
    'Connection: close',
  ];
  return `${headers.join('\r\n')}\r\n\r\n`;
}

/** What Node keeps on a server's socket that tells whether the connection is between requests. */
type ServerSocket = net.Socket & {
  /** The response being written on it (Node's own `closeIdleConnections` reads it too). */
  _httpMessage?: http.ServerResponse | null;
  /** Its HTTP parser: `duration()` is 0 while no request is partly read (Node's idle test). */
  parser?: { duration(): number } | null;
};

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
class Connections {
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
        const quiet =
          !socket._httpMessage && (socket.bytesRead === 0 || socket.parser?.duration() === 0);
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

export function startServer(
  config: Config,
  logger: Logger,
): { server: http.Server; service: Service } {
  const service = new Service(config);
  const app = createApp({ service, logger });
  const server = http.createServer(
    {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      // Node enforces both time-outs only when it checks its connections (every 30 s by default).
      connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs),
      // The app refuses an HTTP/1.1 request without Host itself (requestGate), with the headers
      // every answer carries; Node's own refusal would be a bare 400.
      requireHostHeader: false,
    },
    boundPipelining(app),
  );
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  // A client may half-close its side once its request is sent (RFC 9112 §9.6 leaves the other
  // side open; `nc -q`, some scripts). Node's default aborts the request at that FIN, so an answer
  // still being made (an uncached document, from the store's thread) was never sent. With this,
  // Node ends the connection after the answer instead. Undocumented, but Node's own tests use it.
  (server as http.Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  // A request Node cannot take gets a short plain answer instead of a reset connection.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const [status, reason] = clientErrorStatus(error);
    // A 505 says which versions the server speaks (RFC 9110 §15.6.6), as the app's does.
    const body = `${status === 505 ? versionNotSupported().message : reason}\n`;
    socket.end(`${rawHead(status, reason, body.length, 'text/plain;charset=utf-8')}${body}`);
  });
  // Node hands CONNECT to this event, not to the app, and drops the connection when nobody listens.
  server.on('connect', (_req, socket) => {
    socket.end(rawHead(405, 'Method Not Allowed', 0));
  });
  return { server, service };
}

/**
 * Runs the server with `storeThread`, which src/main.ts started before this module loaded;
 * `onStoreExit` takes the handler for its end, now that there is a logger to tell it to.
 */
export function main(
  storeThread: StoreThread,
  onStoreExit: (handler: (error: Error) => void) => void,
): void {
  let config: Config;
  try {
    config = loadConfig();
    // A DATASET the operator set that cannot be served (missing, a folder, a FIFO, a link in a
    // loop, empty) stops the process before it listens: one line, exit 2.
    datasetLoad(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const { server, service } = startServer(config, logger);
  const connections = new Connections(server);
  // Without the thread of the store being served nothing uncached can be answered, so its end is
  // the process's (a supervisor starts it again). The thread of a store a reload replaced is
  // terminated once its queries are answered, and a failed load's thread fails that load only.
  onStoreExit((error) => {
    logger.fatal({ err: error }, 'the store thread stopped');
    process.exit(1);
  });
  const reloader = new Reloader(service, logger, storeThread);
  // Listen first, so /healthz answers and /readyz says 503 while the dataset loads.
  server.listen(config.port, config.host, () => {
    const address = server.address();
    logger.info({ address }, 'listening');
    setImmediate(() => {
      reloader.start().catch((error: unknown) => {
        logger.fatal({ err: error }, 'the dataset could not be loaded');
        process.exit(1);
      });
    });
  });
  server.on('error', (error) => {
    logger.fatal({ err: error }, 'the server could not listen');
    process.exit(1);
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    connections.stop(() => {
      service.close();
      void storeThread.close().finally(() => {
        logger.info('stopped');
        process.exit(0);
      });
    });
    setTimeout(() => {
      logger.warn('grace period over: closing the remaining connections');
      server.closeAllConnections();
    }, config.shutdownGraceMs).unref();
  };
  process.on('SIGHUP', () => {
    if (!stopping) void reloader.reload();
  });
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
