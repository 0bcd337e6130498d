// A real Virtuoso Open Source 7 (Debian's virtuoso-opensource-7-bin, which .ci/packages installs)
// for the tests of the remote store: its configuration written into a temporary folder, started on
// free local ports, waited for until its SPARQL endpoint answers, stopped and removed after.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { RemoteTarget } from '../../cli/remote';

export const VIRTUOSO = '/usr/bin/virtuoso-t';
const ISQL = '/usr/bin/isql-vt';

export interface Virtuoso {
  /** Its SPARQL endpoint: `http://127.0.0.1:<port>/sparql`. */
  readonly endpoint: string;
  /** The folder it runs in (its database, its log, and files it may bulk-load). */
  readonly dir: string;
  /** Runs SQL through isql as dba; resolves with what isql printed. Throws when isql fails. */
  isql(sql: string): string;
  /** Bulk-loads `file` (copied into its folder) into the named graph `graph`, then checkpoints. */
  load(file: string, graph: string): void;
  /** Its SQL port (isql's). */
  readonly sqlPort: number;
  /**
   * Opens its Graph Store Protocol endpoint to writes without a login (`GRANT SPARQL_UPDATE TO
   * "SPARQL"`: in a test's own server only) and returns its URL.
   */
  openGraphStore(): string;
  /** Stops it with SIGKILL: what a crash or an OOM kill does (its folder stays). */
  kill(): Promise<void>;
  /** Starts it again on the same ports and folder after `kill` or `pause`; resolves once it answers. */
  restart(): Promise<void>;
  /** SIGSTOP / SIGCONT: a server that takes connections and answers nothing (a slow store). */
  pause(): void;
  /** Its process's id now (a restart gives it another). */
  readonly pid: number;
  resume(): void;
  stop(): Promise<void>;
}

export const virtuosoInstalled = (): boolean => fs.existsSync(VIRTUOSO) && fs.existsSync(ISQL);

/** A TCP port no one listens on now (asked of the kernel). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function ini(
  dir: string,
  sqlPort: number,
  httpPort: number,
  maxSeconds: number,
  buffers: number,
  maxRows: number,
): string {
  return `[Database]
DatabaseFile = ${dir}/virtuoso.db
ErrorLogFile = ${dir}/virtuoso.log
LockFile = ${dir}/virtuoso.lck
TransactionFile = ${dir}/virtuoso.trx
xa_persistent_file = ${dir}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = ${dir}/virtuoso-temp.db
TransactionFile = ${dir}/virtuoso-temp.trx
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:${sqlPort}
DirsAllowed = ., ${dir}
NumberOfBuffers = ${buffers}
MaxDirtyBuffers = ${Math.round(buffers * 0.75)}
MaxQueryMem = 500M

[HTTPServer]
ServerPort = 127.0.0.1:${httpPort}
ServerRoot = ${dir}
ServerThreads = 10
MaxClientConnections = 10

[SPARQL]
ResultSetMaxRows = ${maxRows}
MaxQueryExecutionTime = ${maxSeconds}
`;
}

/**
 * Starts a Virtuoso of its own; rejects when it does not answer within `ms`. `maxSeconds` is its
 * own limit on a query's time (MaxQueryExecutionTime); `buffers` its page cache in pages of 8 KiB
 * (Virtuoso's guide: about two thirds of the memory it may use; the tests' 10,000 are 80 MB);
 * `maxRows` the most rows it gives in one answer, silently (ResultSetMaxRows).
 */
export async function startVirtuoso(
  ms = 60_000,
  maxSeconds = 60,
  buffers = 10_000,
  maxRows = 1_000_000,
  attempt = 1,
): Promise<Virtuoso> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isil-ld-virtuoso-'));
  const sqlPort = await freePort();
  const httpPort = await freePort();
  fs.writeFileSync(
    path.join(dir, 'virtuoso.ini'),
    ini(dir, sqlPort, httpPort, maxSeconds, buffers, maxRows),
  );
  let child!: ChildProcess;
  let exited!: Promise<number | null>;
  const spawnServer = () => {
    child = spawn(VIRTUOSO, ['-c', 'virtuoso.ini', '+foreground'], { cwd: dir, stdio: 'ignore' });
    // The run's shared server lives until the test process exits (killed then, below): it must not
    // keep the process alive once the last test has run.
    child.unref();
    exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  };
  spawnServer();
  // A test run that ends without stopping it (a failure, ^C) leaves no server behind.
  const onExit = () => {
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  const endpoint = `http://127.0.0.1:${httpPort}/sparql`;
  const isql = (sql: string): string => {
    const run = spawnSync(ISQL, [String(sqlPort), 'dba', 'dba', `exec=${sql}`], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (run.status !== 0 || /\*\*\* Error/.test(run.stdout + run.stderr))
      throw new Error(`isql: ${sql}: ${run.stdout}${run.stderr}`);
    return run.stdout;
  };
  const stop = async () => {
    process.removeListener('exit', onExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      const killed = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killed);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const answering = async (): Promise<void> => {
    const until = Date.now() + ms;
    for (;;) {
      if (child.exitCode !== null) {
        const log = fs.readFileSync(path.join(dir, 'virtuoso.log'), 'utf8').slice(-2000);
        await stop();
        throw new Error(`Virtuoso exited at start (code ${child.exitCode}): ${log}`);
      }
      try {
        const res = await fetch(`${endpoint}?query=${encodeURIComponent('ASK {}')}`, {
          signal: AbortSignal.timeout(2000),
        });
        if (res.ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > until) {
        await stop();
        throw new Error(`Virtuoso did not answer at ${endpoint} within ${ms} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  try {
    await answering();
  } catch (error) {
    // A free port is free when asked, not when Virtuoso binds it: another process of a busy
    // machine may take it meanwhile. New ports, a few times; any other failure stands.
    if (attempt < 3 && /Failed to start listening/.test((error as Error).message))
      return startVirtuoso(ms, maxSeconds, buffers, maxRows, attempt + 1);
    throw error;
  }
  const load = (file: string, graph: string) => {
    const name = `load-${Date.now()}-${path.basename(file)}`;
    fs.copyFileSync(file, path.join(dir, name));
    isql(`ld_dir('${dir}', '${name}', '${graph}'); rdf_loader_run(); checkpoint;`);
  };
  const kill = async () => {
    child.kill('SIGKILL');
    await exited;
  };
  const restart = async () => {
    if (child.exitCode === null && child.signalCode === null) await kill();
    fs.rmSync(path.join(dir, 'virtuoso.lck'), { force: true });
    spawnServer();
    await answering();
  };
  const openGraphStore = () => {
    isql('GRANT SPARQL_UPDATE TO "SPARQL";');
    return endpoint.replace(/\/sparql$/, '/sparql-graph-crud');
  };
  return {
    endpoint,
    dir,
    isql,
    load,
    sqlPort,
    openGraphStore,
    kill,
    restart,
    get pid() {
      return child.pid!;
    },
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    stop,
  };
}

/** The way `npm run load` writes into `virtuoso`: its bulk loader, through isql as dba. */
export function bulkTarget(virtuoso: Virtuoso): RemoteTarget {
  return {
    endpoint: virtuoso.endpoint,
    via: {
      kind: 'virtuoso-bulk',
      isql: ISQL,
      server: String(virtuoso.sqlPort),
      user: 'dba',
      password: 'dba',
      dir: virtuoso.dir,
    },
  };
}

let shared: Promise<Virtuoso> | undefined;

/**
 * One Virtuoso for every test of a run that needs one (it takes seconds to start): started on first
 * use, killed when the run's process exits. Tests that stop or kill their server start their own.
 */
export function sharedVirtuoso(): Promise<Virtuoso> {
  shared ??= startVirtuoso(60_000, 10);
  return shared;
}
