// Listening: the HTTP server the app answers on, with Node's time-outs set, pipelining bounded, and
// a short plain answer of the right status for what Node's parser refuses before the app sees it
// (contract §1: a bad request line, an unknown method, an HTTP version not spoken, heads too long).
import http from 'node:http';
import type net from 'node:net';
import type { Config } from '../config/config';
import { createApp, createStaffApp } from '../http/app';
import { Metrics } from './metrics';
import type { StaffDeps } from '../http/deps';
import { ALLOW } from '../http/errors';
import { CORS, versionNotSupported } from '../http/middleware';
import { boundPipelining } from '../http/pipeline';
import type { Logger } from '../util/logger';
import { Service } from '../documents/service';
import type { StoreHealth } from '../store/store';
import { capConnections } from './connectionCap';

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

/**
 * The bytes of the read the parser failed on, from the start of the request it failed on: a read
 * may hold requests before it, pipelined, which were taken (`bytesParsed` is where it failed).
 */
function failedRequest(
  error: NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number },
) {
  const packet = error.rawPacket;
  if (!packet) return undefined;
  const before = packet.lastIndexOf('\r\n\r\n', Math.max(0, (error.bytesParsed ?? 0) - 4));
  return before < 0 ? packet : packet.subarray(before + 4);
}

/** The status and reason of a request Node's parser refused (contract §1). */
export function clientErrorStatus(
  error: NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number },
): [number, string] {
  // The HTTP/2 connection preface (`PRI * HTTP/2.0`, RFC 9113 §3.4), sent by a client that assumes
  // HTTP/2 without asking (h2c with prior knowledge): the parser stops on its method.
  if (error.code === 'HPE_PAUSED_H2_UPGRADE') return VERSION_NOT_SUPPORTED;
  const packet = failedRequest(error);
  if (error.code === 'HPE_INVALID_VERSION' && packet) {
    const line = packet.subarray(0, 8192).toString('latin1');
    if (OTHER_VERSION.test(line)) return VERSION_NOT_SUPPORTED;
  }
  if (error.code === 'HPE_INVALID_METHOD' && packet) {
    const line = packet.subarray(0, 8192).toString('latin1');
    if (UNKNOWN_METHOD.test(line)) return [405, 'Method Not Allowed'];
  }
  // Node counts the request line into its header limit: when the bytes the parser failed on start
  // with a request line that is alone over half of it, the target is what is too long (RFC 9112
  // §3). Bytes from further on in the head (it came in several reads) answer 431, unless they
  // happen to start like a request line.
  if (error.code === 'HPE_HEADER_OVERFLOW' && packet) {
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
    ...(status === 503 ? ['Retry-After: 1'] : []),
    ...Object.entries(CORS).map(([name, value]) => `${name}: ${value}`),
    'Connection: close',
  ];
  return `${headers.join('\r\n')}\r\n\r\n`;
}

/** What the staff endpoint needs besides the service: made in main.ts when SPARQL_USERS is set. */
export type StaffParts = Omit<StaffDeps, 'service' | 'config' | 'logger'>;

/** What the servers are built with besides the settings and the logger. */
export interface ServerParts {
  /** Whether the store answers, for /readyz. */
  readonly storeHealth: () => StoreHealth;
  /** The staff endpoint's parts, when SPARQL_USERS is set. */
  readonly staff?: StaffParts | undefined;
}

/**
 * The public server, and the staff listener's when SPARQL_LISTEN gives the endpoint one: the
 * endpoint is then on that one alone, and the public listener answers 404 for `/sparql`.
 */
export function startServer(
  config: Config,
  logger: Logger,
  { storeHealth, staff: staffParts }: ServerParts,
): { server: http.Server; service: Service; staffServer?: http.Server } {
  const service = new Service(config, {
    storeHealth,
    // Each dataset version's search index and dumps are made as soon as the version is served.
    search: {
      eager: true,
      onBuilt: (report) => logger.info(report, 'search index built'),
      onFailed: (version, err, answering) =>
        logger.error(
          { err, version, answering: answering ?? null },
          answering === undefined
            ? 'search index not built: search answers 503 until it is built again'
            : 'search index not built: search answers from the previous one',
        ),
    },
    dumps: {
      eager: true,
      onMade: (set, ms) =>
        logger.info({ version: set.version, files: set.files, ms }, 'dumps made'),
      onFailed: (version, err) => logger.error({ err, version }, 'dumps not made'),
    },
    // Counted from the first request on, when the process keeps metrics (METRICS_LISTEN).
    ...(config.metricsListen ? { metrics: (served: Service) => new Metrics(served) } : {}),
  });
  if (service.dumps.unusable) logger.error(`${service.dumps.unusable}: no dumps are made`);
  const staff: StaffDeps | undefined = staffParts && { ...staffParts, service, config, logger };
  const separate = staff !== undefined && config.sparql.listen !== undefined;
  const app = createApp({ service, logger, ...(staff && !separate ? { staff } : {}) });
  const server = httpServer(config, app, logger);
  if (!separate) return { server, service };
  return {
    server,
    service,
    staffServer: httpServer(config, createStaffApp({ service, logger, staff }), logger),
  };
}

/** The answer to a connection over MAX_CONNECTIONS when none can be closed for it. */
const FULL = 'Every connection is busy; try again in a second.\n';

function httpServer(config: Config, app: http.RequestListener, logger: Logger): http.Server {
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
  // The last request Node parsed on each connection: a refusal pipelined behind it waits for its
  // answer.
  const last = new WeakMap<net.Socket, http.ServerResponse>();
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) =>
    last.set(req.socket, res),
  );
  const refusing = new WeakSet<net.Socket>();
  // A request Node cannot take gets a short plain answer instead of a reset connection.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: net.Socket) => {
    // The parser says it again of every later read while the refusal waits.
    if (refusing.has(socket)) return;
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const [status, reason] = clientErrorStatus(error);
    // A 505 says which versions the server speaks (RFC 9110 §15.6.6), as the app's does.
    const body = `${status === 505 ? versionNotSupported().message : reason}\n`;
    const answer = `${rawHead(status, reason, body.length, 'text/plain;charset=utf-8')}${body}`;
    const pending = last.get(socket);
    if (!pending || pending.writableFinished) {
      socket.end(answer);
      return;
    }
    // Pipelined behind requests whose answers are not sent yet: the refusal follows them, as
    // answers keep the order of the requests (RFC 9112 §9.3.2). Written at once, it ended the
    // connection and the earlier answers were lost.
    refusing.add(socket);
    pending.once('close', () => {
      refusing.delete(socket);
      if (pending.writableFinished && socket.writable) socket.end(answer);
      else socket.destroy();
    });
  });
  capConnections(
    server,
    config.maxConnections,
    (socket) => {
      socket.end(
        `${rawHead(503, 'Service Unavailable', FULL.length, 'text/plain;charset=utf-8')}${FULL}`,
      );
      socket.destroySoon();
    },
    (report) =>
      logger.warn(
        report,
        'MAX_CONNECTIONS reached: idle connections closed for new ones, new ones refused when none was idle (at most one line a minute)',
      ),
  );
  // Node hands CONNECT to this event, not to the app, and drops the connection when nobody listens.
  server.on('connect', (_req, socket) => {
    socket.end(rawHead(405, 'Method Not Allowed', 0));
  });
  return server;
}
