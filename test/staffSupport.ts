// Test support for the staff SPARQL endpoint: the real app with the real pool of query workers
// over a real store, a real credentials file with a user whose password the tests know, and the
// query log captured.
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createApp, createStaffApp } from '../src/http/app';
import { StaffAuth } from '../src/http/sparql/auth';
import { loadExamples } from '../src/http/sparql/editor';
import type { StaffDeps } from '../src/http/sparql/endpoint';
import { hashPassword, writeUser } from '../src/http/sparql/users';
import { createLogger } from '../src/log';
import { RemoteStaff } from '../src/store/remote/staffRemote';
import { Service } from '../src/serving/service';
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

/** A credentials file with the test user (hashed once per run: scrypt takes about 50 ms). */
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
  const config = testConfig({ SPARQL_USERS: await testUsers(), ...env });
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
  const service = new Service(config);
  const options = { baseIri: config.baseIri };
  // A Virtuoso of the app's own: Virtuoso keeps running a query its client gave up on (the
  // runaway queries of these tests ignore its MaxQueryExecutionTime), and only stopping it ends
  // them; on the run's shared server they took its cores from every test after.
  const virtuoso = adapter === 'remote' ? await startVirtuoso(60_000, 10) : undefined;
  const { dataset, store } = await openDataset(sources, config, adapter, virtuoso);
  service.use(dataset);
  let pool: StaffPool | RemoteStaff;
  if (store) {
    // The remote adapter: the queries run on the run's Virtuoso, on the version just written.
    service.storeHealth = () => store.health();
    const remote = new RemoteStaff({
      store: { endpoint: store.client.endpoint },
      workers: config.sparql.workers,
      queue: config.sparql.queue,
      timeoutMs: config.sparql.timeoutMs,
    });
    remote.serve(dataset.version);
    pool = remote;
  } else {
    const embedded = new StaffPool(config.sparql);
    embedded.serve({ sources, options, version: dataset.version });
    await poolReady(embedded);
    pool = embedded;
  }
  const auth = new StaffAuth(config.sparql.users!, config.sparql.maxFailures);
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
