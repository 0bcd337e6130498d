// What an update sends to a remote store (a script, not a test): the bytes that reach Virtuoso
// (its HTTP port, its SQL port, which isql talks to, and the files its bulk loader reads) while
// `load --update` of a day's 100 changed records (30 created, 50 updated, 10 withdrawn, 10
// deleted) writes a version over the bench's 17,000 generated institutions, against those of the
// full load of the base's snapshot. Counted by proxies in front of both ports and at the bulk
// folder's file writes. Alone:
//   npx tsx test/bench/remoteUpdate.ts [--count 17000]
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadRemote, type RemoteTarget } from '../../cli/remote';
import { updateRemote } from '../../cli/remoteUpdate';
import { commitVersion } from '../../src/load/commit/commitVersion';
import { loadSources } from '../../src/load/loadSources';
import { prepareUpdate } from '../../src/update/applyUpdate';
import { PROJECT_ROOT } from '../../src/util/paths';
import { bulkTarget, startVirtuoso } from '../servers/virtuoso';
import { updateSet } from '../support/updateSet';

const { values } = parseArgs({ options: { count: { type: 'string', default: '17000' } } });
const COUNT = Number(values.count);
/** The goal (docs/benchmark.md): the update's bytes against the full load's. */
const GOAL = 0.05;
const BASE = 'https://ld.zdb-services.de';
const WORK = path.join(PROJECT_ROOT, '.bench', 'remote-update');
const log = (text: string) => process.stdout.write(`${text}\n`);
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;

/** Bytes sent towards the store, by what carried them. */
const sent = { http: 0, sql: 0, files: 0 };
const total = () => sent.http + sent.sql + sent.files;

/** A proxy on a free port that forwards to `port` and counts what the client sends. */
function countingProxy(port: number, into: 'http' | 'sql'): Promise<net.Server & { port: number }> {
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    client.on('data', (chunk: Buffer) => (sent[into] += chunk.length));
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(Object.assign(server, { port: (server.address() as net.AddressInfo).port })),
    ),
  );
}

/** Counts the bytes written to files under `dir` (the bulk loader's folder) from now on. */
function countFilesIn(dir: string): void {
  const watched = new Set<number>();
  const { openSync, closeSync, writeSync, writeFileSync } = fs;
  // A closed descriptor's number is given to the next file opened: it is watched no more.
  fs.closeSync = ((fd: number) => {
    watched.delete(fd);
    closeSync(fd);
  }) as typeof fs.closeSync;
  fs.openSync = ((file: fs.PathLike, ...rest: unknown[]) => {
    const fd = (openSync as (...args: unknown[]) => number)(file, ...rest);
    if (String(file).startsWith(dir)) watched.add(fd);
    return fd;
  }) as typeof fs.openSync;
  fs.writeSync = ((fd: number, ...rest: unknown[]) => {
    const n = (writeSync as (...args: unknown[]) => number)(fd, ...rest);
    if (watched.has(fd)) sent.files += n;
    return n;
  }) as typeof fs.writeSync;
  fs.writeFileSync = ((
    file: fs.PathOrFileDescriptor,
    data: string | Buffer,
    ...rest: unknown[]
  ) => {
    (writeFileSync as (...args: unknown[]) => void)(file, data, ...rest);
    if (String(file).startsWith(dir)) sent.files += Buffer.byteLength(data);
  }) as typeof fs.writeFileSync;
}

async function main(): Promise<void> {
  fs.rmSync(WORK, { recursive: true, force: true });
  fs.mkdirSync(WORK, { recursive: true });
  const set = updateSet(COUNT);
  const files = { base: path.join(WORK, 'base.pica'), update: path.join(WORK, 'update.xml') };
  fs.writeFileSync(files.base, set.base);
  fs.writeFileSync(files.update, set.update);
  const dataset = path.join(WORK, 'dataset.nq');
  const loaded = await loadSources([files.base], { baseIri: BASE });
  try {
    await commitVersion(loaded, {
      dataset,
      baseIri: BASE,
      historyDir: WORK,
      historyKeepVersions: 0,
    });
  } finally {
    loaded.dataset.free();
  }
  const virtuoso = await startVirtuoso();
  const http = await countingProxy(Number(new URL(virtuoso.endpoint).port), 'http');
  const sql = await countingProxy(virtuoso.sqlPort, 'sql');
  try {
    const direct = bulkTarget(virtuoso);
    const target: RemoteTarget = {
      endpoint: `http://127.0.0.1:${http.port}/sparql`,
      via: {
        ...(direct.via as Extract<RemoteTarget['via'], { kind: 'virtuoso-bulk' }>),
        server: String(sql.port),
      },
    };
    countFilesIn(virtuoso.dir);
    const config = { baseIri: BASE, dataset };
    await loadRemote([dataset], { baseIri: BASE }, config, target);
    const full = { ...sent, total: total() };
    Object.assign(sent, { http: 0, sql: 0, files: 0 });
    const prepared = await prepareUpdate([files.update], dataset, { baseIri: BASE });
    let written;
    try {
      written = await updateRemote(prepared, config, target, [files.update]);
    } finally {
      prepared.loaded.canonical?.snapshot?.discard();
      prepared.loaded.dataset.free();
    }
    const update = { ...sent, total: total() };
    const ratio = update.total / full.total;
    const parts = (s: typeof full) =>
      `${mb(s.total)}: HTTP ${mb(s.http)}, isql ${mb(s.sql)}, bulk files ${mb(s.files)}`;
    log(
      `remote update: 100 changed records over ${COUNT} generated institutions, Virtuoso's bulk loader`,
    );
    log(`  full load of the base's snapshot: ${parts(full)}`);
    log(`  update (${written.quads} of ${written.triples} quads sent): ${parts(update)}`);
    log('');
    log('| remote update | figure | goal | |');
    log('|---|---|---|---|');
    log(
      `| bytes sent to Virtuoso by the update of 100 changed records over ${COUNT.toLocaleString('en')} institutions / by a full load (${mb(update.total)} / ${mb(full.total)}) | ${ratio.toFixed(4)}× | ≤ ${GOAL}× | ${ratio <= GOAL ? 'PASS' : 'MISS'} |`,
    );
  } finally {
    http.close();
    sql.close();
    await virtuoso.stop();
    fs.rmSync(WORK, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
