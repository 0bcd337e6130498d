// A real Virtuoso Open Source 7 (Debian's virtuoso-opensource-7-bin, which .ci/packages installs)
// for the tests of the remote store: its configuration written into a temporary folder, started on
// free local ports, waited for until its SPARQL endpoint answers, stopped and removed after.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

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

function ini(dir: string, sqlPort: number, httpPort: number, maxSeconds: number): string {
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
NumberOfBuffers = 10000
MaxDirtyBuffers = 6000
MaxQueryMem = 500M

[HTTPServer]
ServerPort = 127.0.0.1:${httpPort}
ServerRoot = ${dir}
ServerThreads = 10
MaxClientConnections = 10

[SPARQL]
ResultSetMaxRows = 1000000
MaxQueryExecutionTime = ${maxSeconds}
`;
}

/**
 * Starts a Virtuoso of its own; rejects when it does not answer within `ms`. `maxSeconds` is its
 * own limit on a query's time (MaxQueryExecutionTime).
 */
export async function startVirtuoso(ms = 60_000, maxSeconds = 60): Promise<Virtuoso> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isil-ld-virtuoso-'));
  const sqlPort = await freePort();
  const httpPort = await freePort();
  fs.writeFileSync(path.join(dir, 'virtuoso.ini'), ini(dir, sqlPort, httpPort, maxSeconds));
  const child: ChildProcess = spawn(VIRTUOSO, ['-c', 'virtuoso.ini', '+foreground'], {
    cwd: dir,
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
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
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killed = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killed);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
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
  const load = (file: string, graph: string) => {
    const name = `load-${Date.now()}-${path.basename(file)}`;
    fs.copyFileSync(file, path.join(dir, name));
    isql(`ld_dir('${dir}', '${name}', '${graph}'); rdf_loader_run(); checkpoint;`);
  };
  return { endpoint, dir, isql, load, stop };
}
