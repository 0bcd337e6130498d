// The staff SPARQL endpoint's settings (docs/sparql.md has the table): off unless SPARQL_USERS
// names a credentials file; its limits, its worker pool and, optionally, a listener of its own.
import path from 'node:path';
import { fileDefect } from '../util/files';

/** Where the endpoint listens when it has a listener of its own (SPARQL_LISTEN). */
export interface Listen {
  readonly host: string;
  readonly port: number;
}

export interface SparqlConfig {
  /** The credentials file (one `name:scrypt$…` line a user), or undefined: the endpoint is off. */
  readonly users: string | undefined;
  /** Its own listener, or undefined: `/sparql` is on the public listener. */
  readonly listen: Listen | undefined;
  /** Worker threads that run queries, each with its own store of the version served. */
  readonly workers: number;
  /** A query running longer is stopped (its worker terminated) and answered 503. */
  readonly timeoutMs: number;
  /**
   * A worker without a query for this long ends, and its copy of the data with it; the next query
   * starts one from the version's dump.
   */
  readonly idleSeconds: number;
  /** A worker whose WebAssembly and other external memory passed this is replaced between queries. */
  readonly workerMemoryBytes: number;
  /** The largest request body (a query sent by POST): 413 past it. */
  readonly maxBodyBytes: number;
  /** Result rows (solutions, or triples of a graph) past which the answer is cut. */
  readonly maxRows: number;
  /** Result bytes past which the answer is cut. */
  readonly maxResultBytes: number;
  /** Queries one user may have running or waiting: 429 past it. */
  readonly perUser: number;
  /** Queries waiting for a worker, all users together: 503 past it. */
  readonly queue: number;
  /** Failed logins from one address in a minute after which it is answered 429. */
  readonly maxFailures: number;
}

export const SPARQL_DEFAULTS = {
  workers: 2,
  timeoutMs: 30_000,
  idleSeconds: 300,
  workerMemoryMb: 2048,
  maxBodyBytes: 1024 * 1024,
  maxRows: 100_000,
  maxResultBytes: 64 * 1024 * 1024,
  perUser: 2,
  queue: 16,
  maxFailures: 10,
} as const;

type Env = Readonly<Record<string, string | undefined>>;
type Integer = (env: Env, name: string, fallback: number, min: number, max: number) => number;
type Fail = (variable: string, message: string) => Error;

/** `host:port` (an IPv6 host in brackets), as SPARQL_LISTEN and METRICS_LISTEN take it. */
export function listenOf(raw: string, fail: Fail, variable = 'SPARQL_LISTEN'): Listen {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(raw);
  const port = Number(match?.[2]);
  if (!match || port > 65535)
    throw fail(variable, `expected host:port (e.g. 127.0.0.1:8081), got ${JSON.stringify(raw)}`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

/** Why the credentials file cannot be used, or undefined: an empty one is a file without users. */
function usersDefect(file: string): string | undefined {
  const defect = fileDefect(file, 'a credentials file', 'allowed');
  return defect?.endsWith(' does not exist')
    ? `${defect}: create it with npm run sparql-user -- add NAME`
    : defect;
}

/** Reads the endpoint's settings from `env`; throws (via `fail`) naming the first bad variable. */
export function sparqlConfig(env: Env, integer: Integer, fail: Fail): SparqlConfig {
  const users = env.SPARQL_USERS ? path.resolve(env.SPARQL_USERS) : undefined;
  if (users !== undefined) {
    const defect = usersDefect(users);
    if (defect !== undefined) throw fail('SPARQL_USERS', defect);
  }
  const d = SPARQL_DEFAULTS;
  return Object.freeze({
    users,
    listen: env.SPARQL_LISTEN ? listenOf(env.SPARQL_LISTEN, fail) : undefined,
    workers: integer(env, 'SPARQL_WORKERS', d.workers, 1, 64),
    timeoutMs: integer(env, 'SPARQL_TIMEOUT_MS', d.timeoutMs, 100, 3_600_000),
    idleSeconds: integer(env, 'SPARQL_IDLE_SECONDS', d.idleSeconds, 1, 7 * 24 * 3600),
    workerMemoryBytes:
      integer(env, 'SPARQL_WORKER_MEMORY_MB', d.workerMemoryMb, 64, 65_536) * 1024 ** 2,
    maxBodyBytes: integer(env, 'SPARQL_MAX_BODY_BYTES', d.maxBodyBytes, 1024, 64 * 1024 ** 2),
    maxRows: integer(env, 'SPARQL_MAX_ROWS', d.maxRows, 1, 10_000_000),
    maxResultBytes: integer(env, 'SPARQL_MAX_RESULT_BYTES', d.maxResultBytes, 1024, 1024 ** 3),
    perUser: integer(env, 'SPARQL_PER_USER', d.perUser, 1, 1000),
    queue: integer(env, 'SPARQL_QUEUE', d.queue, 0, 10_000),
    maxFailures: integer(env, 'SPARQL_MAX_FAILURES', d.maxFailures, 1, 1_000_000),
  });
}
