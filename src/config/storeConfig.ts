// Which store the service reads (docs/scaling.md has the table): the embedded Oxigraph store, the
// default, or a remote SPARQL 1.1 endpoint (STORE=remote) that the loader writes dataset versions
// into. A password is taken from the environment or a file and never logged or shown.
import fs from 'node:fs';

export type StoreConfig =
  | { readonly kind: 'embedded' }
  | {
      readonly kind: 'remote';
      /** The query endpoint (`http://virtuoso:8890/sparql`): no credentials or query in it. */
      readonly endpoint: string;
      /** HTTP Basic credentials, when the endpoint asks for them. */
      readonly user: string | undefined;
      readonly password: string | undefined;
      /** Connections kept open to the store at most: its best concurrency (docs/scaling.md). */
      readonly connections: number;
      /** A public query's deadline, its retries included: past it the client gets 503. */
      readonly timeoutMs: number;
      /** Seconds between looks at which version the store marks current; 0: only on SIGHUP. */
      readonly pollSeconds: number;
    };

export const STORE_DEFAULTS = { connections: 4, timeoutMs: 10_000, pollSeconds: 0 } as const;

type Env = Readonly<Record<string, string | undefined>>;
type Integer = (env: Env, name: string, fallback: number, min: number, max: number) => number;
type Fail = (variable: string, message: string) => Error;
type Url = (name: string, raw: string) => string;

/** The password from SPARQL_ENDPOINT_PASSWORD, or the first line of SPARQL_ENDPOINT_PASSWORD_FILE. */
function password(env: Env, fail: Fail): string | undefined {
  const file = env.SPARQL_ENDPOINT_PASSWORD_FILE;
  if (file) {
    if (env.SPARQL_ENDPOINT_PASSWORD)
      throw fail('SPARQL_ENDPOINT_PASSWORD_FILE', 'set it or SPARQL_ENDPOINT_PASSWORD, not both');
    try {
      return fs.readFileSync(file, 'utf8').split('\n', 1)[0];
    } catch (error) {
      throw fail(
        'SPARQL_ENDPOINT_PASSWORD_FILE',
        `cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  return env.SPARQL_ENDPOINT_PASSWORD || undefined;
}

/** Reads the store's settings from `env`; throws (via `fail`) naming the first bad variable. */
export function storeConfig(env: Env, integer: Integer, url: Url, fail: Fail): StoreConfig {
  const kind = env.STORE || 'embedded';
  if (kind !== 'embedded' && kind !== 'remote')
    throw fail('STORE', `expected embedded or remote, got ${JSON.stringify(env.STORE)}`);
  const remoteOnly = [
    'SPARQL_ENDPOINT',
    'SPARQL_ENDPOINT_USER',
    'SPARQL_ENDPOINT_PASSWORD',
    'SPARQL_ENDPOINT_PASSWORD_FILE',
  ];
  if (kind === 'embedded') {
    // A remote endpoint named without STORE=remote is a forgotten setting, not one to ignore.
    const stray = remoteOnly.find((name) => env[name]);
    if (stray) throw fail(stray, 'is read only with STORE=remote');
    return Object.freeze({ kind });
  }
  if (!env.SPARQL_ENDPOINT)
    throw fail('SPARQL_ENDPOINT', 'STORE=remote needs the URL of the store’s SPARQL endpoint');
  const d = STORE_DEFAULTS;
  const user = env.SPARQL_ENDPOINT_USER || undefined;
  const secret = password(env, fail);
  if (secret !== undefined && user === undefined)
    throw fail('SPARQL_ENDPOINT_USER', 'a password is set for the store but no user');
  return Object.freeze({
    kind,
    endpoint: url('SPARQL_ENDPOINT', env.SPARQL_ENDPOINT),
    user,
    password: secret,
    connections: integer(env, 'STORE_CONNECTIONS', d.connections, 1, 256),
    timeoutMs: integer(env, 'STORE_TIMEOUT_MS', d.timeoutMs, 100, 600_000),
    pollSeconds: integer(env, 'STORE_POLL_SECONDS', d.pollSeconds, 0, 86_400),
  });
}
