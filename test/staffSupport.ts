// Test support for the staff SPARQL endpoint: the real app with the real pool of query workers
// over a real store, a real credentials file with a user whose password the tests know, and the
// query log captured.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { createApp, createStaffApp } from '../src/http/app';
import { StaffAuth } from '../src/http/sparql/auth';
import { loadExamples } from '../src/http/sparql/editor';
import type { StaffDeps } from '../src/http/deps';
import { hashPassword, writeUser } from '../src/http/sparql/users';
import { createLogger } from '../src/util/logger';
import { RemoteStaff } from '../src/store/remote/staffRemote';
import { Service } from '../src/documents/service';
import { StaffPool } from '../src/store/embedded/staffPool';
import { startVirtuoso } from './servers/virtuoso';
import { type Adapter, DE_1A_RDF, type LogLine, tempDir, openDataset, testConfig } from './support';

export const STAFF = { name: 'alice', password: 'correct horse battery' } as const;
export const SMALL = [DE_1A_RDF];

/** The `Authorization` header of the test user, or of `name` with `password`. */
export function basic(name: string = STAFF.name, password: string = STAFF.password): string {
  return `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;
}

let usersFile: string | undefined;

/** A credentials file with the test user (hashed once per run: scrypt is slow by design). */
export async function testUsers(): Promise<string> {
  if (usersFile && fs.existsSync(usersFile)) return usersFile;
  const file = path.join(tempDir(), 'sparql-users');
  writeUser(file, STAFF.name, await hashPassword(STAFF.password));
  usersFile = file;
  return file;
}

/** Resolves once `pool` has a worker of the newest version ready. */
export async function poolReady(pool: StaffPool, version?: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (
      pool
        .workers()
        .some((w) => w.state !== 'loading' && (version === undefined || w.version === version))
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the SPARQL workers did not load within 30 s');
}

export interface StaffApp {
  readonly app: ReturnType<typeof createApp>;
  readonly staffApp: ReturnType<typeof createApp>;
  readonly service: Service;
  /** The staff store: the embedded pool of workers, or the remote adapter. */
  readonly pool: StaffPool | RemoteStaff;
  readonly log: LogLine[];
  readonly logText: () => string;
  readonly version: string;
  close(): Promise<void>;
}

/** The app with the endpoint on, over `sources`, with settings from `env` (SPARQL_* included). */
export async function buildStaffApp(
  sources: readonly string[] = SMALL,
  env: Record<string, string> = {},
  adapter: Adapter = 'embedded',
): Promise<StaffApp> {
  // No PUBLIC_URL: the endpoint's URL (sd:endpoint, the base of a query) is the one asked.
  const config = testConfig({ SPARQL_USERS: await testUsers(), PUBLIC_URL: '', ...env });
  const log: LogLine[] = [];
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      for (const line of chunk.toString().split('\n'))
        if (line) log.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const logger = createLogger('info', sink);
  const options = { baseIri: config.baseIri };
  // A Virtuoso of the app's own: Virtuoso keeps running a query its client gave up on (the
  // runaway queries of these tests ignore its MaxQueryExecutionTime), and only stopping it ends
  // them; on the run's shared server they took its cores from every test after.
  const virtuoso = adapter === 'remote' ? await startVirtuoso(60_000, 10) : undefined;
  const { dataset, store } = await openDataset(sources, config, adapter, virtuoso);
  const service = new Service(config, store && { storeHealth: () => store.health() });
  service.use(dataset);
  let pool: StaffPool | RemoteStaff;
  if (store) {
    // The remote adapter: the queries run on the run's Virtuoso, on the version just written.
    const remote = new RemoteStaff({
      store: { endpoint: store.client.endpoint },
      workers: config.sparql.workers,
      queue: config.sparql.queue,
      timeoutMs: config.sparql.timeoutMs,
    });
    remote.serve(undefined, dataset.version);
    pool = remote;
  } else {
    const embedded = new StaffPool(config.sparql);
    embedded.serve({ sources, options }, dataset.version);
    await poolReady(embedded);
    pool = embedded;
  }
  const auth = new StaffAuth(config.sparql.users!, config.sparql.maxFailures, {
    error: (message) => logger.error(message),
    warn: (message) => logger.warn(message),
  });
  const staff: StaffDeps = { service, config, logger, staff: pool, auth, examples: loadExamples() };
  return {
    app: createApp({ service, logger, staff }),
    staffApp: createStaffApp({ service, logger, staff }),
    service,
    pool,
    log,
    logText: () => text,
    version: dataset.version,
    close: async () => {
      await pool.close();
      await store?.close();
      service.close();
      await virtuoso?.stop();
    },
  };
}

/** One GET on a connection of its own; resolves with the status and the milliseconds it took. */
export function getOnce(
  port: number,
  pathname: string,
  headers: http.OutgoingHttpHeaders = {},
): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: pathname, headers, agent: false, timeout: FLOOD_TIMEOUT_MS },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, ms: performance.now() - started }));
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`${pathname}: no answer in ${FLOOD_TIMEOUT_MS} ms`)),
    );
    req.on('error', reject);
  });
}

/** The longest a request of a flood waits for its answer before it is given up. */
const FLOOD_TIMEOUT_MS = 30_000;

/**
 * A flood's client, in a thread of its own, so that a bystander's latency is the server's and not
 * that of the test's event loop handling hundreds of answers first. Every request has a deadline.
 */
const FLOOD_CLIENT = `
const http = require('node:http');
const { parentPort, workerData: { port, authorizations, addresses, timeout } } = require('node:worker_threads');
const statuses = {};
let left = authorizations.length;
const started = performance.now();
const count = (status) => {
  statuses[status] = (statuses[status] ?? 0) + 1;
  if (--left === 0) parentPort.postMessage({ statuses, ms: performance.now() - started });
};
authorizations.forEach((authorization, i) => {
  // From 127.0.0.2 on when spread: every 127/8 address is this host's loopback.
  const localAddress = addresses > 1 ? '127.0.0.' + (2 + (i % addresses)) : undefined;
  const headers = authorization ? { Authorization: authorization } : {};
  const req = http.get(
    { host: '127.0.0.1', port, path: '/sparql?query=ASK%7B%7D', headers, localAddress, agent: false, timeout },
    (res) => { res.resume(); res.on('end', () => count(res.statusCode)); },
  );
  req.on('timeout', () => req.destroy());
  req.on('error', () => count(0));
});`;

export interface Flood {
  /** How many answers had each status (0: none came). */
  readonly statuses: Record<string, number>;
  /** From the first request sent to the last answer. */
  readonly ms: number;
  /** The bystander's requests meanwhile. */
  readonly probes: readonly { status: number; ms: number }[];
}

/**
 * One `/sparql` GET a login of `authorizations` (none when undefined) sent at once to the server
 * on 127.0.0.1:`port`, from `addresses` source addresses (127.0.0.2 on; at most 250), while
 * `probe` (the bystander) runs every `every` ms until the last is answered.
 */
export async function floodWhileProbing(
  port: number,
  authorizations: readonly (string | undefined)[],
  probe: () => Promise<{ status: number; ms: number }>,
  { addresses = 1, every = 50 } = {},
): Promise<Flood> {
  if (addresses > 250) throw new Error('at most 250 source addresses');
  const worker = new Worker(FLOOD_CLIENT, {
    eval: true,
    workerData: { port, authorizations, addresses, timeout: FLOOD_TIMEOUT_MS },
  });
  try {
    let done = false;
    const answered = new Promise<{ statuses: Record<string, number>; ms: number }>(
      (resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      },
    ).finally(() => (done = true));
    const probes: { status: number; ms: number }[] = [];
    while (!done) {
      probes.push(await probe());
      await new Promise((resolve) => setTimeout(resolve, every));
    }
    return { ...(await answered), probes };
  } finally {
    await worker.terminate();
  }
}
