// Reads the service's settings from the environment once, validates them and freezes them; says
// which dataset they make the server load.
import fs from 'node:fs';
import path from 'node:path';
import type { LoadRequest } from '../load/loadSources';
import { defaultMaxConnections, OWN_FILES } from './maxConnections';
import { listenOf, sparqlConfig, type Listen, type SparqlConfig } from './sparqlConfig';
import { storeConfig, type StoreConfig } from './storeConfig';
import { fileDefect } from '../util/files';
import type { LogLevel } from '../util/logger';
import { historyConfig, type HistoryConfig } from './historyConfig';
import {
  BUNDLED_DATASET,
  bundledMissing,
  DEMONSTRATION_DATASET,
  STATES_CACHE,
} from '../util/bundled';
import { openFilesLimit } from '../util/openFiles';
import { PROJECT_ROOT } from '../util/paths';
import { FETCH_COMMAND, THIRD_PARTY_DIR, thirdPartyDir } from '../util/thirdParty';

export interface Config extends HistoryConfig {
  readonly port: number;
  readonly host: string;
  /** Base of every minted IRI, without a trailing slash (`https://ld.zdb-services.de`). */
  readonly baseIri: string;
  /**
   * Base of every URL a client is told to fetch (PUBLIC_URL, no trailing slash), or '' for the
   * origin each request asked (src/http/publicOrigin.ts).
   */
  readonly publicUrl: string;
  /** Path of the N-Quads snapshot written by the loader and served at start. */
  readonly dataset: string;
  /**
   * Whether the operator named `dataset` (DATASET set): then it must exist when the server starts,
   * and the bundled dataset is never served in its place.
   */
  readonly datasetGiven: boolean;
  /** Source files served when `dataset` does not exist (the agency's real data, fetched). */
  readonly bundledDataset: readonly string[];
  /** What is served instead when the bundled files are missing: generated, and labelled so. */
  readonly demonstrationDataset: string;
  /**
   * Where the version and states of the bundled (or demonstration) sources are cached by their
   * bytes, so that a start serving them costs no canonicalisation.
   */
  readonly statesCache: string;
  /** A folder holding the third-party files by name (THIRD_PARTY_DIR), else their origins. */
  readonly thirdPartyDir: string | undefined;
  /** Absolute URL of the ISIL directory (no trailing slash), or '' for this service. */
  readonly isilDirectoryUrl: string;
  readonly logLevel: LogLevel;
  /** Byte bound of the rendered-document cache; 0 turns the cache off. */
  readonly cacheMaxBytes: number;
  /** `max-age` of the `Cache-Control` header on 200, 303 and 304 answers, in seconds. */
  readonly maxAge: number;
  /** Milliseconds a client may take to send its request headers (slow-loris guard). */
  readonly headersTimeoutMs: number;
  /** Milliseconds a whole request may take. */
  readonly requestTimeoutMs: number;
  /** Milliseconds an idle keep-alive connection is kept open. */
  readonly keepAliveTimeoutMs: number;
  /**
   * Connections each listener holds at most; at the cap, a new one closes the connection idle the
   * longest (src/process/connectionCap.ts).
   */
  readonly maxConnections: number;
  /** Milliseconds SIGTERM waits for in-flight requests before it closes sockets and exits. */
  readonly shutdownGraceMs: number;
  /**
   * How far V8 lets a heap grow past what its last full collection kept, in percent (V8's
   * `--heap-growing-percent`, set for every thread of the process at start); 0 leaves it to V8.
   */
  readonly heapGrowingPercent: number;
  /** The staff SPARQL endpoint (src/config/sparqlConfig.ts). */
  readonly sparql: SparqlConfig;
  /** The store read: embedded (the default) or a remote SPARQL endpoint (src/config/storeConfig.ts). */
  readonly store: StoreConfig;
  /** Where `/metrics` listens (METRICS_LISTEN); undefined: no metrics are kept. */
  readonly metricsListen: Listen | undefined;
  /** Where the dumps of each dataset version are written (DUMPS_DIR); empty: none are made. */
  readonly dumpsDir: string;
  /** The map's tile URL template (MAP_TILES, `{z}/{x}/{y}`); empty: no tiles, the marker alone. */
  readonly mapTiles: string;
  /** The attribution the tiles' licence asks for (MAP_ATTRIBUTION). */
  readonly mapAttribution: string;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS: readonly LogLevel[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

type Env = Readonly<Record<string, string | undefined>>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw))
    throw new ConfigError(name, `expected a whole number, got ${JSON.stringify(raw)}`);
  const value = Number(raw);
  if (value < min || value > max) {
    throw new ConfigError(name, `expected a number from ${min} to ${max}, got ${value}`);
  }
  return value;
}

/** What an http(s) URL setting must be, said when one is refused. */
const HTTP_URL_RULE =
  'expected an absolute http(s) URL without spaces, control characters, `|`, `^`, query, fragment or credentials';

/**
 * An http(s) URL setting (BASE_IRI, PUBLIC_URL, ISIL_DIRECTORY_URL, SPARQL_ENDPOINT) as it is used, so that
 * the value checked is the value used: the WHATWG URL's serialization (scheme and host in lower
 * case, the default port dropped, dot segments resolved, characters a path cannot hold
 * percent-encoded), without a trailing slash. Refused rather than repaired: whitespace and control
 * characters anywhere (the URL parser drops them at the ends and inside, a loader given the typed
 * value crashed on them), a query or a fragment even empty (`…/?` broke every minted IRI), and
 * what an IRI cannot hold (RFC 3987: `|`, `^`).
 */
function httpUrl(name: string, raw: string): string {
  const refused = () => new ConfigError(name, `${HTTP_URL_RULE}, got ${JSON.stringify(raw)}`);
  if (/[\s\x00-\x1f\x7f?#|^]/.test(raw)) throw refused();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused();
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, `expected an http or https URL, got ${JSON.stringify(raw)}`);
  }
  if (url.username || url.password) throw refused();
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** DUMPS_DIR: a folder (made when missing), or empty for none; a file there is refused. */
function dumpsDir(env: Env): string {
  if (env.DUMPS_DIR === '') return '';
  const dir = path.resolve(env.DUMPS_DIR || path.join(PROJECT_ROOT, 'data', 'dumps'));
  if (fs.existsSync(dir) && !isFolder(dir))
    throw new ConfigError(
      'DUMPS_DIR',
      `expected a folder for the dumps, got the file ${JSON.stringify(dir)}`,
    );
  return dir;
}

/** MAP_TILES: an http(s) URL template with {z}, {x} and {y}, or empty (no tiles). */
function mapTiles(env: Env): string {
  const raw = env.MAP_TILES ?? 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';
  if (raw === '') return '';
  if (!/^https?:\/\/[^\s"'<>]+$/.test(raw) || !['{z}', '{x}', '{y}'].every((p) => raw.includes(p)))
    throw new ConfigError(
      'MAP_TILES',
      `expected an http(s) URL template with {z}, {x} and {y}, or empty, got ${JSON.stringify(raw)}`,
    );
  return raw;
}

/** Builds the configuration from `env`; throws a `ConfigError` naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(
      'LOG_LEVEL',
      `expected one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(env.LOG_LEVEL)}`,
    );
  }
  const host = env.HOST || '0.0.0.0';
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(host)) {
    throw new ConfigError(
      'HOST',
      `expected a host name or IP address, got ${JSON.stringify(host)}`,
    );
  }
  const directory = env.ISIL_DIRECTORY_URL ?? '';
  const dataset = path.resolve(env.DATASET || path.join(PROJECT_ROOT, 'data', 'dataset.nq'));
  // A path that does not exist is fine (the bundled dataset is served, the loader writes it);
  // one that is a folder would have the server load every file in it as if it were the snapshot.
  if (isFolder(dataset)) {
    throw new ConfigError(
      'DATASET',
      `expected the path of a snapshot file (npm run load writes it), got the folder ${JSON.stringify(dataset)}`,
    );
  }
  const headersTimeoutMs = integer(env, 'HEADERS_TIMEOUT_MS', 10_000, 1, 600_000);
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 1, 600_000);
  // Node refuses a server whose head may take longer than the whole request (a RangeError thrown
  // from http.createServer): said here, with the variables' names.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(
      'HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS',
      `the time for the headers (${headersTimeoutMs} ms) must not exceed the time for the whole request (${requestTimeoutMs} ms)`,
    );
  }
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const baseIri = httpUrl('BASE_IRI', env.BASE_IRI || 'https://ld.zdb-services.de');
  return Object.freeze({
    port,
    host,
    baseIri,
    publicUrl: env.PUBLIC_URL ? httpUrl('PUBLIC_URL', env.PUBLIC_URL) : '',
    dataset,
    datasetGiven: Boolean(env.DATASET),
    bundledDataset: BUNDLED_DATASET,
    demonstrationDataset: DEMONSTRATION_DATASET,
    statesCache: STATES_CACHE,
    thirdPartyDir: thirdPartyFolder(env.THIRD_PARTY_DIR),
    isilDirectoryUrl: directory === '' ? '' : httpUrl('ISIL_DIRECTORY_URL', directory),
    logLevel,
    cacheMaxBytes: integer(env, 'CACHE_MAX_BYTES', 256 * 1024 * 1024, 0, 64 * 1024 ** 3),
    maxAge: integer(env, 'CACHE_MAX_AGE', 3600, 0, 31_536_000),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 1, 600_000),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    maxConnections: maxConnections(env, openFilesLimit()),
    heapGrowingPercent: heapGrowingPercent(env),
    sparql: sparqlConfig(env, integer, (name, message) => new ConfigError(name, message)),
    store: storeConfig(env, integer, httpUrl, (name, message) => new ConfigError(name, message)),
    metricsListen: metricsListen(env, port),
    dumpsDir: dumpsDir(env),
    ...historyConfig(
      env,
      { dataset, baseIri },
      integer,
      (name, message) => new ConfigError(name, message),
    ),
    mapTiles: mapTiles(env),
    mapAttribution: (env.MAP_ATTRIBUTION ?? '© OpenStreetMap contributors').slice(0, 300),
  });
}

/**
 * MAX_CONNECTIONS: by default derived from the open-files limit; more than the limit leaves past
 * the process's own files is refused, since past it the kernel's connections are reset unanswered.
 */
export function maxConnections(env: Env, openFiles: number | undefined): number {
  const fallback = defaultMaxConnections(openFiles);
  const most = openFiles === undefined ? 1_000_000 : Math.max(16, openFiles - OWN_FILES);
  const value = integer(env, 'MAX_CONNECTIONS', fallback, 1, 1_000_000);
  if (value > most)
    throw new ConfigError(
      'MAX_CONNECTIONS',
      `expected at most ${most} (the open-files limit, ulimit -n, is ${openFiles}, and the process keeps ${OWN_FILES} for its own files), got ${value}`,
    );
  return value;
}

/**
 * HEAP_GROWING_PERCENT: 0 (V8's own heuristics) or 10 to 1000. Below 10 a heap would be collected
 * again after growing by a few percent, most of the process's time spent collecting (V8's own
 * least is 10%): a value such as `1`, meant as a factor, is refused rather than served slowly.
 */
function heapGrowingPercent(env: Env): number {
  const value = integer(env, 'HEAP_GROWING_PERCENT', 100, 0, 1000);
  if (value > 0 && value < 10)
    throw new ConfigError(
      'HEAP_GROWING_PERCENT',
      `expected 0 (V8's own) or a percentage from 10 to 1000, got ${value}`,
    );
  return value;
}

/** METRICS_LISTEN: never the public port, where anyone could read them. */
function metricsListen(env: NodeJS.ProcessEnv, port: number): Listen | undefined {
  if (!env.METRICS_LISTEN) return undefined;
  const listen = listenOf(
    env.METRICS_LISTEN,
    (name, message) => new ConfigError(name, message),
    'METRICS_LISTEN',
  );
  if (listen.port === port && port !== 0)
    throw new ConfigError(
      'METRICS_LISTEN, PORT',
      `the metrics need a port of their own, not the public one (${port})`,
    );
  return listen;
}

/** THIRD_PARTY_DIR: a folder that is there, when set; the files in it are checked as they are read. */
function thirdPartyFolder(value: string | undefined): string | undefined {
  const dir = thirdPartyDir({ [THIRD_PARTY_DIR]: value });
  if (dir !== undefined && !isFolder(dir))
    throw new ConfigError(
      THIRD_PARTY_DIR,
      `expected a folder holding the third-party files by name (data/sources.json), got ${JSON.stringify(value)}`,
    );
  return dir;
}

/** Whether `file` is a folder; a path that cannot be looked at (ENOTDIR, EACCES) is not one. */
function isFolder(file: string): boolean {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/**
 * Whether anything is at `file`, a dangling link included. A path that cannot be looked at (a
 * part of it is a file, or not searchable) counts as something there: `datasetDefect` says why.
 */
function somethingAt(file: string): boolean {
  try {
    return fs.lstatSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true;
  }
}

/**
 * Why DATASET cannot be served (a folder, a FIFO, a symbolic link in a loop, an empty file, one that is
 * missing): at start a configuration error, on reload a refusal that keeps the data being served.
 */
export function datasetDefect(file: string): string | undefined {
  return fileDefect(file, 'a snapshot file (npm run load writes one)');
}

/** What the server loads, and where it comes from. */
export interface DatasetLoad extends LoadRequest {
  /** Whether the sources are the snapshot at DATASET (else the bundled dataset). */
  readonly snapshot: boolean;
  /** Whether they are the generated demonstration data, the bundled files being missing. */
  readonly demonstration?: boolean;
  /** Whether the version is the one a remote store marks current (`sources`: its endpoint). */
  readonly remote?: boolean;
}

/**
 * What the server loads, at start and on SIGHUP: the snapshot at DATASET, or the bundled dataset
 * when DATASET is not set and its default path holds no snapshot (the demonstration dataset while
 * the bundled files are missing). One function for every place that asks (the settings' check at
 * start, the first load, every reload). Throws a ConfigError when DATASET is set and cannot be
 * served, or, on reload (`served`: what the data served was loaded from), when what was served is
 * gone: the bundled data never silently replaces an operator's snapshot, nor the demonstration
 * data the real bundled data.
 */
export function datasetLoad(config: Config, served?: DatasetLoad): DatasetLoad {
  const options = { baseIri: config.baseIri };
  // The snapshot's trailer, or the cache of the bundled sources, gives the version and states.
  const cached = { ...options, statesCache: config.statesCache };
  // A remote store serves the version the loader marked current there: DATASET is not read.
  if (config.store.kind === 'remote')
    return { sources: [config.store.endpoint], options, snapshot: false, remote: true };
  if (!somethingAt(config.dataset) && !config.datasetGiven && !served?.snapshot) {
    const missing = bundledMissing();
    if (missing.length === 0)
      return { sources: config.bundledDataset, options: cached, snapshot: false };
    if (served && !served.demonstration)
      throw new ConfigError(
        THIRD_PARTY_DIR,
        `the bundled dataset's files are missing or changed in data/third-party/ (${missing.join(', ')}; ${FETCH_COMMAND} fetches them): the real data served is not replaced by the demonstration data`,
      );
    return {
      sources: [config.demonstrationDataset],
      options: cached,
      snapshot: false,
      demonstration: true,
    };
  }
  const defect = datasetDefect(config.dataset);
  if (defect !== undefined) throw new ConfigError('DATASET', defect);
  return { sources: [config.dataset], options: { ...options, reuseStates: true }, snapshot: true };
}
