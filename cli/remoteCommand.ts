// `npm run load` into a remote store (STORE=remote): which way in the operator chose, the load,
// and its report. Every refusal is one line on stderr; the live version is untouched by a failure.
import fs from 'node:fs';
import { ConfigError, type Config } from '../src/config/config';
import type { LoadOptions, LoadReport } from '../src/load/loadSources';
import { loadRemote, type RemoteTarget } from './remote';

type Via = RemoteTarget['via'];

/** The way into the store: a flag, else the environment; exactly one of the two ways. */
export function remoteVia(
  graphStore: string | undefined,
  bulk: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Via {
  const url = graphStore ?? (bulk ? undefined : env.GRAPH_STORE_ENDPOINT || undefined);
  const dir = bulk ?? (graphStore ? undefined : env.VIRTUOSO_BULK_DIR || undefined);
  if (url && dir)
    throw new ConfigError(
      '--graph-store, --virtuoso-bulk',
      'name one way into the store, not both',
    );
  if (url) {
    try {
      const parsed = new URL(url);
      if (parsed.username || parsed.password) throw new Error('credentials in the URL');
      if (!/^https?:$/.test(parsed.protocol)) throw new Error('not http(s)');
    } catch (error) {
      throw new ConfigError(
        '--graph-store',
        `expected an http(s) URL without credentials, got ${JSON.stringify(url)} (${(error as Error).message})`,
      );
    }
    return { kind: 'graph-store', url };
  }
  if (dir) {
    if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory())
      throw new ConfigError('--virtuoso-bulk', `${JSON.stringify(dir)} is not a folder`);
    const passwordFile = env.VIRTUOSO_PASSWORD_FILE;
    const password = passwordFile
      ? fs.readFileSync(passwordFile, 'utf8').split('\n', 1)[0]!
      : env.VIRTUOSO_PASSWORD;
    if (!password)
      throw new ConfigError(
        'VIRTUOSO_PASSWORD',
        'the bulk loader runs isql, which needs the password of VIRTUOSO_USER (or VIRTUOSO_PASSWORD_FILE)',
      );
    return {
      kind: 'virtuoso-bulk',
      isql: env.VIRTUOSO_ISQL_COMMAND || 'isql-vt',
      server: env.VIRTUOSO_ISQL || '1111',
      user: env.VIRTUOSO_USER || 'dba',
      password,
      dir,
    };
  }
  throw new ConfigError(
    'GRAPH_STORE_ENDPOINT',
    'STORE=remote: name the way into the store, --graph-store URL or --virtuoso-bulk DIR (docs/scaling.md)',
  );
}

/**
 * Loads `sources` into the remote store and prints one line; `accept` sees the load's report
 * before anything is written (and throws to refuse it), `printed` after. Returns the exit code.
 */
export async function intoRemote(
  sources: readonly string[],
  config: Config,
  via: Via,
  options: Omit<LoadOptions, 'baseIri'>,
  accept: (report: LoadReport) => void = () => {},
  printed: (report: LoadReport | undefined) => void = () => {},
): Promise<number> {
  const { store } = config;
  if (store.kind !== 'remote') throw new Error('not a remote store');
  const target: RemoteTarget = {
    endpoint: store.endpoint,
    user: store.user,
    password: store.password,
    via,
  };
  const written = await loadRemote(
    sources,
    { ...options, baseIri: config.baseIri },
    config,
    target,
    accept,
  );
  printed(written.report);
  const where = via.kind === 'graph-store' ? via.url : `Virtuoso's bulk loader (${via.dir})`;
  const { history } = written;
  const logged = history?.step
    ? `; history: ${history.changes.length} events, ${history.descriptionsWritten} descriptions written`
    : '';
  process.stdout.write(
    written.unchanged
      ? `version ${written.version} is in ${store.endpoint} already: marked current${logged}\n`
      : `loaded version ${written.version} into ${store.endpoint} through ${where}: ${written.quads} quads; ` +
          `snapshot ${written.snapshotMs} ms, reading ${written.readMs} ms, transfer ${written.transferMs} ms${logged}; ` +
          `marked current (replicas switch on their next reload)\n`,
  );
  return 0;
}
