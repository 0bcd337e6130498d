// The remote store's HTTP client: SPARQL 1.1 Protocol queries to one endpoint over a
// keep-alive pool of a few connections, each with a deadline. A query is a read, so a failure to
// connect, a reset connection or a 502/503/504 is tried again, with a growing pause, while the
// deadline allows; past it the query fails with StoreTimeout. Virtuoso answers a query it stopped
// at its own time limit with 200 and a partial result ("anytime" queries, `X-SQL-State: S1TAT`):
// that is a time-out here too, never a result.
import http from 'node:http';
import https from 'node:https';
import { StoreTimeout, StoreUnavailable } from '../store';

export { StoreTimeout, StoreUnavailable };

export interface ClientSettings {
  /** The endpoint's URL (`http://127.0.0.1:8890/sparql`). */
  readonly endpoint: string;
  /** HTTP Basic credentials, when the endpoint asks for them. */
  readonly user?: string;
  readonly password?: string;
  /** Connections kept open to the endpoint at most: its best concurrency (docs/scaling.md). */
  readonly connections: number;
  /** A query's deadline, its retries included. */
  readonly deadlineMs: number;
  /**
   * How long a store that cannot be reached is tried again within the deadline (default: the
   * whole deadline). A loader's deadline is long for its big writes, but an operator whose store
   * is down or whose endpoint is mistyped wants to hear so in seconds, not minutes.
   */
  readonly retryMs?: number;
}

/** The store refused the query (4xx): its status and its message, never retried. */
export class StoreRefused extends Error {
  override name = 'StoreRefused';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface Answer {
  readonly contentType: string;
  readonly body: string;
}

/** Node's errors of a connection that did not work out: worth another try. */
const TRANSIENT = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
const RETRY_STATUS = new Set([502, 503, 504]);
/** The start of Virtuoso's error text for a query it could not compile or type (see `once`). */
const QUERY_FAULT = /^Virtuoso (37000|42\w{3}|22\w{3}) Error /;
const FIRST_PAUSE_MS = 50;

class Transient extends Error {}

/** A keep-alive pool of at most `connections` to the store at `url`. */
export function keepAliveAgent(url: URL, connections: number): http.Agent {
  const Agent = url.protocol === 'https:' ? https.Agent : http.Agent;
  return new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
}

/** The `Authorization` field for HTTP Basic credentials, when there is a user. */
export function basicAuthorization(user?: string, password?: string): string | undefined {
  return user === undefined
    ? undefined
    : `Basic ${Buffer.from(`${user}:${password ?? ''}`).toString('base64')}`;
}

export class SparqlClient {
  private readonly url: URL;
  private readonly agent: http.Agent;
  private readonly authorization: string | undefined;
  /** The `Server` field of the store's last answer: tells a store's own query pragmas apart. */
  private server = '';

  /** Whether the store is Virtuoso, by its last answer (false before the first). */
  get isVirtuoso(): boolean {
    return this.server.startsWith('Virtuoso/');
  }

  /** The endpoint's URL. */
  get endpoint(): string {
    return this.settings.endpoint;
  }

  constructor(private readonly settings: ClientSettings) {
    this.url = new URL(settings.endpoint);
    this.agent = keepAliveAgent(this.url, settings.connections);
    this.authorization = basicAuthorization(settings.user, settings.password);
  }

  /**
   * Sends `query` by form POST (Virtuoso can hang on a direct `application/sparql-query` POST),
   * asking for `accept`; resolves with the answer, or rejects with one of the errors above.
   */
  async query(
    query: string,
    accept: string,
    deadlineMs = this.settings.deadlineMs,
    /** Stops the query (and its retries) when the client it is for went away. */
    signal?: AbortSignal,
  ): Promise<Answer> {
    const deadline = Date.now() + deadlineMs;
    const giveUp = Math.min(deadline, Date.now() + (this.settings.retryMs ?? deadlineMs));
    let pause = FIRST_PAUSE_MS;
    for (let attempt = 1; ; attempt++) {
      const left = deadline - Date.now();
      if (left <= 0) throw new StoreTimeout(`the store did not answer within ${deadlineMs} ms`);
      try {
        return await this.once(query, accept, left, signal);
      } catch (error) {
        if (!(error instanceof Transient) || signal?.aborted) throw error;
        if (giveUp - Date.now() <= pause)
          throw new StoreUnavailable(
            `the store at ${this.url.host} cannot be reached: ${error.message} (${attempt} tries)`,
          );
        await new Promise((resolve) => setTimeout(resolve, pause));
        pause *= 2;
      }
    }
  }

  close(): void {
    this.agent.destroy();
  }

  private once(
    query: string,
    accept: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<Answer> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const body = new URLSearchParams({ query }).toString();
    const request = this.url.protocol === 'https:' ? https.request : http.request;
    return new Promise<Answer>((resolve, reject) => {
      const req = request(this.url, {
        method: 'POST',
        agent: this.agent,
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
        headers: {
          Accept: accept,
          'Content-Type': 'application/x-www-form-urlencoded',
          'Content-Length': String(Buffer.byteLength(body)),
          ...(this.authorization ? { Authorization: this.authorization } : {}),
        },
      });
      req.on('response', (res) => {
        this.server = String(res.headers.server ?? '');
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => reject(new Transient(error.message)));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (RETRY_STATUS.has(status)) return reject(new Transient(`HTTP ${status}`));
          // Virtuoso's own time limit (MaxQueryExecutionTime) ends a query with 500 and S1T00.
          if (status === 500 && /\bS1T00\b/.test(text))
            return reject(
              new StoreTimeout(
                `the store stopped the query at its own time limit: ${text.split('\n')[0]}`,
              ),
            );
          // Virtuoso answers a query it cannot compile (an unknown function, a type error) with 500
          // and a SQL state of the client's classes: 37000 syntax, 42xxx undefined or denied,
          // 22xxx data. That is the query's fault, not the store's: refused, never retried.
          if (status === 500 && QUERY_FAULT.test(text))
            return reject(new StoreRefused(400, text.split('\n')[0]!.slice(0, 2000)));
          if (status >= 400)
            return reject(
              status >= 500
                ? new StoreUnavailable(`the store answered ${status}: ${text.slice(0, 500)}`)
                : new StoreRefused(status, text.slice(0, 2000)),
            );
          if (String(res.headers['x-sql-state'] ?? '').toUpperCase() === 'S1TAT')
            return reject(
              new StoreTimeout(
                `the store stopped the query at its own time limit and sent a partial result: ${String(res.headers['x-sql-message'] ?? '')}`,
              ),
            );
          resolve({ contentType: String(res.headers['content-type'] ?? ''), body: text });
        });
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error.name === 'AbortError' || error.name === 'TimeoutError')
          reject(new StoreTimeout(`the store did not answer within the deadline`));
        else if (TRANSIENT.has(error.code ?? '') || /socket hang up/.test(error.message))
          reject(new Transient(`${error.code ?? ''} ${error.message}`.trim()));
        else reject(new StoreUnavailable(error.message));
      });
      req.end(body);
    });
  }
}
