// The server as a process of its own, over a small generated snapshot: for the tests and benches
// that need the real listener, its signals or its file-descriptor limit.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { generateSnapshot } from '../../cli/generate';
import { hashPassword, writeUser } from '../../src/http/sparql/users';
import { PROJECT_ROOT } from '../../src/util/paths';
import { BASE, serverEnv, tempDir, type LogLine } from '../support';

export const MAIN = path.join(PROJECT_ROOT, 'src', 'main.ts');

/** A snapshot of `count` generated institutions, written once per process and count. */
const snapshots = new Map<number, string>();
export function generatedSnapshot(count: number): string {
  let file = snapshots.get(count);
  if (file) return file;
  file = path.join(tempDir(), `generated-${count}.nq`);
  fs.writeFileSync(file, [...generateSnapshot({ count, seed: 7, base: BASE })].join(''));
  snapshots.set(count, file);
  return file;
}

/** A credentials file with each of `users` (name → password). */
export async function usersFile(users: Readonly<Record<string, string>>): Promise<string> {
  const file = path.join(tempDir(), 'sparql-users');
  for (const [name, password] of Object.entries(users))
    writeUser(file, name, await hashPassword(password));
  return file;
}

export interface ServerProcess {
  readonly child: ChildProcess;
  /** The server's own process id (the child's, unless it was started through a wrapper). */
  readonly pid: number;
  readonly port: number;
  readonly lines: LogLine[];
  readonly exit: Promise<number | null>;
  /** Resolves with the first log line from now on (or already written) that `test` accepts. */
  line(test: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
}

export interface StartOptions {
  /** Settings over `serverEnv`'s; DATASET defaults to a generated snapshot of 200 institutions. */
  readonly env?: Record<string, string>;
  /** The open-files limit the server runs with (`ulimit -n`, soft and hard). */
  readonly openFiles?: number;
  /** The command instead of `node --import tsx src/main.ts` (`npm start`). */
  readonly command?: readonly string[];
}

/** Starts the server and resolves once `/readyz` answers 200. */
export async function startServerProcess(options: StartOptions = {}): Promise<ServerProcess> {
  const env = serverEnv({ DATASET: generatedSnapshot(200), ...options.env });
  const command = options.command ?? [process.execPath, '--import', 'tsx', MAIN];
  const [file, ...args] = options.openFiles
    ? ['sh', '-c', `ulimit -n ${options.openFiles} && exec "$@"`, 'sh', ...command]
    : command;
  const child = spawn(file!, args, { env, cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines: LogLine[] = [];
  const waiting = new Set<(line: LogLine) => void>();
  // Every JSON line; npm's own lines (`> isil-ld@0.1.0 start`) are not the server's.
  let buffered = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const text = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!text.startsWith('{')) continue;
      const line = JSON.parse(text) as LogLine;
      lines.push(line);
      for (const each of waiting) each(line);
    }
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const line = (test: (line: LogLine) => boolean, timeoutMs = 30_000) => {
    const seen = lines.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise<LogLine>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(each);
        reject(new Error(`no such log line within ${timeoutMs} ms; stderr: ${stderr}`));
      }, timeoutMs);
      const each = (l: LogLine) => {
        if (!test(l)) return;
        clearTimeout(timer);
        waiting.delete(each);
        resolve(l);
      };
      waiting.add(each);
    });
  };
  const listening = await Promise.race([
    line((l) => l.msg === 'listening', 60_000),
    exit.then((code) => {
      throw new Error(`the server exited (${code}) before listening: ${stderr}`);
    }),
  ]);
  const port = (listening.address as { port: number }).port;
  for (let i = 0; i < 600; i++) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    const pid = (listening.pid as number | undefined) ?? child.pid!;
    if (ready) return { child, pid, port, lines, exit, line };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('the server was not ready within 60 s');
}
