// Test support: the real app over a real store loaded from fixtures, and RDF graph comparison.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { DataFactory, Parser, type Quad } from 'n3';
import { isomorphic } from 'rdf-isomorphic';
import { JsonLdParser } from 'jsonld-streaming-parser';
import { RdfXmlParser } from 'rdfxml-streaming-parser';
import { loadConfig, type Config } from '../src/config/config';
import { createApp } from '../src/http/app';
import { createLogger } from '../src/util/logger';
import { CONTEXT } from '../src/rdf/context';
import { Service, type ServiceParts } from '../src/documents/service';
import { loadSources, type LoadReport } from '../src/load/loadSources';
import type { Dataset } from '../src/store/dataset';
import { SparqlStore } from '../src/store/remote/sparqlStore';
import { loadRemote } from '../cli/remote';
import { bulkTarget, sharedVirtuoso, virtuosoInstalled, type Virtuoso } from './servers/virtuoso';
import { PROJECT_ROOT } from '../src/util/paths';
import {
  FETCH_COMMAND,
  THIRD_PARTY_DIR,
  THIRD_PARTY_FOLDER,
  thirdPartyFiles,
  thirdPartyIntact,
  thirdPartyPath,
} from '../src/util/thirdParty';

/** The project's own fixtures (fixtures/README.md): small, hand-written. */
export const FIXTURES = path.join(PROJECT_ROOT, 'fixtures');
/** The third-party data files (data/sources.json), where `npm run fetch-data` puts them. */
export const REAL_DATA = path.join(THIRD_PARTY_FOLDER, 'data', 'real');
/** The third-party conformance suites and schemas, likewise. */
export const CONFORMANCE = path.join(THIRD_PARTY_FOLDER, 'conformance');
/** The real document served by the original service for DE-1a (December 2021). */
export const DE_1A_RDF = thirdPartyPath('data/real/zdb-lds_DE-1a_2021-12.rdf');

/**
 * A third-party file's bytes for a test module's constants, or none when it is missing: a module
 * still loads then, and its suites skip or fail in their `before(needsThirdParty)`.
 */
export function readWhenThere(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch {
    return Buffer.alloc(0);
  }
}

let missingThirdParty: string[] | undefined;

/**
 * A mocha `before` hook for the suites that read third-party files: with any of them missing or
 * not intact, the suite is skipped with a message, except in CI (CI=true), where that fails, so
 * that no test is silently lost there. The setup of the run (test/setup.ts) fetched what it could.
 */
export function needsThirdParty(this: Mocha.Context): void {
  missingThirdParty ??= [...thirdPartyFiles().keys()].filter((name) => !thirdPartyIntact(name));
  if (missingThirdParty.length === 0) return;
  const message = `${missingThirdParty.length} third-party files missing from ${THIRD_PARTY_FOLDER} (${missingThirdParty[0]}, …): ${FETCH_COMMAND}, or ${THIRD_PARTY_DIR}=<folder> npm test, fetches them`;
  if (process.env.CI) throw new Error(message);
  this.skip();
}
export const BASE = 'https://ld.zdb-services.de';
export const DE_1A = `${BASE}/resource/organisations/DE-1a`;

const TEST_DUMPS = path.join(os.tmpdir(), `isil-ld-test-dumps-${process.pid}`);
process.once('exit', () => fs.rmSync(TEST_DUMPS, { recursive: true, force: true }));

/**
 * The settings of a test. DATASET is not set unless `env` sets it: a reload then serves the
 * bundled dataset, as `npm start` does on a fresh clone (a DATASET that is set must exist).
 */
/**
 * The PUBLIC_URL of the apps the tests build: every URL a client is told is absolute on it.
 * Supertest asks each request on a port of its own, and what names the origin asked (documents,
 * their ETags, the cache) would differ from one request to the next; a test of the origin asked
 * sets PUBLIC_URL to '' (or starts a server process).
 */
export const PUBLIC = 'http://isil.test';

/** The path and query of a URL on PUBLIC (a Location, a Link), to ask an app with supertest. */
export function local(url: string | undefined): string {
  if (!url?.startsWith(`${PUBLIC}/`)) throw new Error(`${url} is not on ${PUBLIC}`);
  return url.slice(PUBLIC.length);
}

export function testConfig(env: Record<string, string> = {}): Config {
  // Dumps, when a test asks for them, go to a folder of the run's own; so do the bundled
  // sources' cached states.
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DUMPS_DIR: TEST_DUMPS,
    PUBLIC_URL: PUBLIC,
    ...env,
  });
  return Object.freeze({ ...config, statesCache: path.join(TEST_DUMPS, 'states') });
}

/** The store adapters the shared suites run against (the contract, withdrawn ISILs, staff). */
export type Adapter = 'embedded' | 'remote';

/**
 * Both adapters where Virtuoso is installed, and always in CI (whose scripts install it: a missing
 * server fails there instead of skipping the remote half).
 */
export const ADAPTERS: readonly Adapter[] =
  virtuosoInstalled() || process.env.CI ? ['embedded', 'remote'] : ['embedded'];

/**
 * `sources` as a dataset of `adapter`: loaded in this thread (embedded), or written into the
 * run's Virtuoso (or `server`) as a new version by the loader's remote path (Virtuoso's bulk loader) and opened
 * through the remote adapter, as a replica opens it.
 */
export async function openDataset(
  sources: readonly string[],
  config: Config,
  adapter: Adapter = 'embedded',
  server?: Virtuoso,
): Promise<{ dataset: Dataset; report?: LoadReport; store?: SparqlStore }> {
  if (adapter === 'embedded') return loadSources(sources, { baseIri: config.baseIri });
  const virtuoso = server ?? (await sharedVirtuoso());
  await loadRemote(sources, { baseIri: config.baseIri }, config, bulkTarget(virtuoso));
  const store = new SparqlStore(
    { endpoint: virtuoso.endpoint, connections: 4, deadlineMs: 10_000 },
    config.baseIri,
  );
  return { ...(await store.open()), store };
}

/** The app over a store loaded from `sources` (default: the real DE-1a document). */
export async function buildApp(
  sources: readonly string[] = [DE_1A_RDF],
  env: Record<string, string> = {},
  adapter: Adapter = 'embedded',
  parts: ServiceParts = {},
) {
  const config = testConfig(env);
  const { dataset, report, store } = await openDataset(sources, config, adapter);
  const service = new Service(config, {
    ...parts,
    ...(store && { storeHealth: () => store.health() }),
  });
  service.use(dataset);
  const app = createApp({ service, logger: createLogger('silent') });
  return { app, service, config, report };
}

/**
 * The environment of a server process a test starts: on a free local port, DATASET not set (the
 * bundled dataset is served: a DATASET that is set must exist), JSON logs at info; then `extra`.
 */
export function serverEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: '0',
    DATASET: '',
    LOG_LEVEL: 'info',
    // No dumps in the background of a test's server unless the test asks (they would load it).
    DUMPS_DIR: '',
    ...extra,
  };
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'isil-ld-test-'));
}

/** Every quad a streaming RDF/JS parser makes of `text`. */
export async function streamQuads(parser: NodeJS.ReadWriteStream, text: string): Promise<Quad[]> {
  const quads: Quad[] = [];
  await new Promise<void>((resolve, reject) => {
    Readable.from([text])
      .pipe(parser)
      .on('data', (q: Quad) => quads.push(q))
      .on('error', reject)
      .on('end', resolve);
  });
  return quads;
}

export function parseRdfXml(text: string, baseIRI = `${BASE}/`): Promise<Quad[]> {
  return streamQuads(new RdfXmlParser({ baseIRI }), text);
}

/**
 * The quads of a JSON-LD document, read by jsonld-streaming-parser with the service's context for
 * any context it names (the round-trip tests fetch it from the service instead).
 */
export function parseJsonLd(text: string, baseIRI = `${BASE}/`): Promise<Quad[]> {
  const documentLoader = { load: async () => ({ '@context': CONTEXT }) };
  return streamQuads(new JsonLdParser({ baseIRI, documentLoader }), text);
}

export function parseTurtle(text: string, format = 'text/turtle'): Quad[] {
  return new Parser({ format, baseIRI: `${BASE}/` }).parse(text);
}

/** Distinct triples (RDF graphs are sets; a document may repeat a triple). */
export function distinct(quads: readonly Quad[]): Quad[] {
  const seen = new Map<string, Quad>();
  for (const q of quads)
    seen.set(
      `${q.subject.termType}${q.subject.value} ${q.predicate.value} ${q.object.termType}${q.object.value}${q.object.termType === 'Literal' ? `@${q.object.language}^^${q.object.datatype.value}` : ''}`,
      q,
    );
  return [...seen.values()];
}

export function sameGraph(actual: readonly Quad[], expected: readonly Quad[]): boolean {
  return isomorphic(distinct(actual), distinct(expected));
}

/** The quads as triples: each in the default graph. */
export function asTriples(quads: readonly Quad[]): Quad[] {
  return quads.map((quad) => DataFactory.quad(quad.subject, quad.predicate, quad.object));
}

/**
 * The quads of a snapshot as triples, after checking that each is in the graph of the description
 * of `isil` (the store keeps every description in a graph of its own).
 */
export function triplesOfDescription(quads: readonly Quad[], isil: string): Quad[] {
  const graph = `${BASE}/data/organisations/${isil}`;
  const elsewhere = quads.find((quad) => quad.graph.value !== graph);
  if (elsewhere) throw new Error(`a quad outside <${graph}>: in <${elsewhere.graph.value}>`);
  return asTriples(quads);
}

export interface RawResponse {
  readonly status: number;
  readonly headers: import('node:http').IncomingHttpHeaders;
  readonly body: Buffer;
}

/** One request over a real socket, the body left as sent (supertest decodes content codings). */
export async function rawRequest(
  app: import('express').Express,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<RawResponse> {
  const http = await import('node:http');
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as import('node:net').AddressInfo;
  try {
    return await new Promise<RawResponse>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port, path, method, headers, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        },
      );
      req.setTimeout(10_000, () => req.destroy(new Error('timed out')));
      req.on('error', reject);
      req.end();
    });
  } finally {
    server.close();
  }
}

/** A line of the server's JSON log. */
export type LogLine = Record<string, unknown>;

/** Calls `each` with every JSON line the server writes to `stream`, in order. */
export function onLogLines(stream: NodeJS.ReadableStream, each: (line: LogLine) => void): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = JSON.parse(buffered.slice(0, nl)) as LogLine;
      buffered = buffered.slice(nl + 1);
      each(line);
    }
  });
}

/**
 * A supertest body parser that keeps any body as text: supertest leaves RDF media types it does
 * not know unparsed (`res.text` undefined). Use with `.buffer(true).parse(asText)`.
 */
export function asText(
  res: import('superagent').Response,
  done: (error: Error | null, body: string) => void,
): void {
  const stream = res as unknown as NodeJS.ReadableStream;
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (text += chunk));
  stream.on('end', () => done(null, text));
}

/**
 * N-Triples of `DE-Knot`: five blank nodes a level, each pointing at all five of the next, eight
 * levels deep (5^8 ways down, spelt out by every node's content), past the canonicaliser's work
 * limit.
 */
export function knotNTriples(): string {
  const org = `${BASE}/resource/organisations`;
  const v = 'http://www.w3.org/2006/vcard/ns#';
  const foaf = 'http://xmlns.com/foaf/0.1/';
  const lines = [
    `<${org}/DE-Knot> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${foaf}Organization> .`,
    `<${org}/DE-Knot> <${foaf}name> "Knot" .`,
  ];
  for (let k = 0; k < 5; k++) lines.push(`<${org}/DE-Knot> <${v}part> _:l0n${k} .`);
  for (let level = 0; level < 7; level++)
    for (let a = 0; a < 5; a++)
      for (let b = 0; b < 5; b++) lines.push(`_:l${level}n${a} <${v}part> _:l${level + 1}n${b} .`);
  return `${lines.join('\n')}\n`;
}
