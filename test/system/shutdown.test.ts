// SIGTERM on the real process loses nothing: keep-alive clients under load get every answer they
// asked for on an established connection, each answer begun after the signal says
// `Connection: close`, idle connections are closed without cutting a request, and the process
// exits once the last answer is out. Raw sockets, so that a reset is seen as one.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/util/paths';
import {
  type LogLine,
  onLogLines,
  REAL_DATA,
  needsThirdParty,
  readWhenThere,
  serverEnv,
} from '../support';

const MAIN = path.join(PROJECT_ROOT, 'src', 'main.ts');

/** The ISILs of the bundled name list: institutions the bundled dataset serves. */
function bundledIsils(): string[] {
  const list = path.join(REAL_DATA, 'lobid-organisations_isil-sigel-name_2023-11.tsv');
  return readWhenThere(list)
    .toString('utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t')[1])
    .filter((isil): isil is string => /^[A-Z]{2}-[A-Za-z0-9-]+$/.test(isil ?? ''));
}

interface Server {
  readonly child: ChildProcess;
  readonly port: number;
  readonly lines: LogLine[];
  readonly exit: Promise<number | null>;
  /** Calls `each` with every log line from now on. */
  onLine(each: (line: LogLine) => void): void;
}

/** The server process with the bundled dataset, once it is ready. */
async function startProcess(): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: serverEnv({
      // Long, so that nothing but the shutdown closes a connection or ends the process.
      KEEP_ALIVE_TIMEOUT_MS: '60000',
      SHUTDOWN_GRACE_MS: '60000',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines: LogLine[] = [];
  const listeners: ((line: LogLine) => void)[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    onLogLines(child.stdout!, (line) => {
      lines.push(line);
      for (const each of listeners) each(line);
      if (line.msg === 'listening') resolve((line.address as { port: number }).port);
    });
    child.once('exit', () => reject(new Error('the server exited before listening')));
  });
  for (let i = 0; ; i++) {
    if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) break;
    if (i === 600) throw new Error('never ready');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, port, lines, exit, onLine: (each) => listeners.push(each) };
}

interface Answer {
  readonly status: number;
  readonly head: string;
  readonly body: Buffer;
  header(name: string): string | undefined;
}

/**
 * One keep-alive connection read as raw bytes: `ask` writes a request and resolves with its
 * whole answer (head, then as many bytes as its Content-Length says), or rejects when the
 * connection fails or closes first.
 */
class Connection {
  readonly socket: net.Socket;
  /** Whether the server ended the connection (a FIN), and whether it was reset. */
  ended = false;
  error: NodeJS.ErrnoException | undefined;
  readonly closed: Promise<void>;
  private received = Buffer.alloc(0);
  private waiting: { resolve: (a: Answer) => void; reject: (e: Error) => void } | undefined;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.parse();
    });
    socket.on('end', () => (this.ended = true));
    socket.on('error', (error) => (this.error = error));
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.waiting?.reject(this.error ?? new Error('closed before the whole answer'));
        this.waiting = undefined;
        resolve();
      }),
    );
  }

  /** A connection, or the error that refused it (ECONNREFUSED once the listener is closed). */
  static open(port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new Connection(socket));
      });
      socket.once('error', reject);
    });
  }

  ask(target: string): Promise<Answer> {
    assert.equal(this.waiting, undefined, 'one request at a time: no pipelining');
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n\r\n`,
      );
    });
  }

  private parse(): void {
    const split = this.received.indexOf('\r\n\r\n');
    if (split < 0 || !this.waiting) return;
    const head = this.received.subarray(0, split).toString('latin1');
    const header = (name: string) =>
      new RegExp(`\r\n${name}: ([^\r]*)`, 'i').exec(head)?.[1]?.trim();
    const length = Number(header('Content-Length'));
    if (this.received.length - split - 4 < length) return;
    const body = this.received.subarray(split + 4, split + 4 + length);
    this.received = this.received.subarray(split + 4 + length);
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting.resolve({ status, head, body, header });
  }
}

describe('SIGTERM', function () {
  before(needsThirdParty);
  this.timeout(120_000);

  describe('under load from keep-alive clients', () => {
    const CLIENTS = 20;
    /** Cached: rendered before the load. The others are asked for once each: uncached. */
    const HOT = 10;
    const isils = bundledIsils();
    const hot = isils.slice(0, HOT).map((isil) => `/data/organisations/${isil}.ttl`);
    const uncached = isils
      .slice(HOT)
      .flatMap((isil) => ['nt', 'rdf', 'jsonld'].map((f) => `/data/organisations/${isil}.${f}`));

    let server: Server;
    let answers = 0;
    let closeAnswers = 0;
    /** Requests written on an established connection that got no whole answer. */
    const failed: string[] = [];
    /** Connections that ended with a reset (ECONNRESET, EPIPE) rather than a FIN. */
    const resets: string[] = [];
    /** Keep-alive answers on a connection the server then closed without `Connection: close`. */
    const closedWithoutSaying: string[] = [];
    /** Answers of another status than a document's, a redirect's or a withdrawn ISIL's. */
    const unexpected: string[] = [];
    /** New connections refused once the listener was closed: not failures, counted apart. */
    let refused = 0;
    let signalledAt = 0;
    let lastAnswerAt = 0;
    let exitedAt = 0;
    let code: number | null;

    /** One client: requests back to back over keep-alive, a new connection when one is closed. */
    async function client(index: number): Promise<void> {
      let next = index;
      for (;;) {
        let connection: Connection;
        try {
          connection = await Connection.open(server.port);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ECONNREFUSED') throw error;
          refused++;
          return;
        }
        let last: Answer | undefined;
        for (;;) {
          // Cached and uncached in turn.
          const target =
            next % 2 === 0 ? hot[next % HOT]! : uncached[(next * 7919) % uncached.length]!;
          next += CLIENTS;
          let answer: Answer;
          try {
            answer = await connection.ask(target);
          } catch (error) {
            failed.push(`${target}: ${(error as Error).message}`);
            break;
          }
          answers++;
          lastAnswerAt = Date.now();
          last = answer;
          if (![200, 301, 404, 410].includes(answer.status))
            unexpected.push(`${target}: ${answer.status}`);
          if (answer.header('Connection') === 'close') {
            closeAnswers++;
            break;
          }
        }
        await connection.closed;
        if (connection.error) resets.push(`${connection.error.code}`);
        if (last && last.header('Connection') !== 'close')
          closedWithoutSaying.push(last.head.split('\r\n')[0]!);
      }
    }

    before(async function () {
      this.timeout(120_000);
      server = await startProcess();
      for (const target of hot)
        await (await fetch(`http://127.0.0.1:${server.port}${target}`)).text();
      const clients = Array.from({ length: CLIENTS }, (_, i) => client(i));
      // Under load for a while, then the signal, while every client asks.
      await new Promise((r) => setTimeout(r, 1500));
      assert.ok(answers > CLIENTS, `the load runs (${answers} answers)`);
      signalledAt = Date.now();
      server.child.kill('SIGTERM');
      await Promise.all(clients);
      code = await server.exit;
      exitedAt = Date.now();
    });

    after(() => server?.child.kill('SIGKILL'));

    it('no request written on an established connection failed', () =>
      assert.deepEqual(failed, []));
    it('no connection was reset', () => assert.deepEqual(resets, []));
    it('every answer was a document, a redirect or a 404 or 410 of the data', () =>
      assert.deepEqual(unexpected, []));
    it('every connection the server closed was told so by its last answer (Connection: close)', () =>
      assert.deepEqual(closedWithoutSaying, []));
    it('each client got a Connection: close answer, then a refused connection', () => {
      assert.equal(closeAnswers, CLIENTS);
      assert.equal(refused, CLIENTS);
    });
    it('the process exited 0 after the last answer, before the grace period', () => {
      assert.equal(code, 0);
      assert.ok(lastAnswerAt >= signalledAt);
      assert.ok(exitedAt - signalledAt < 30_000, `${exitedAt - signalledAt} ms`);
      const messages = server.lines.map((line) => line.msg);
      assert.ok(messages.includes('stopped'));
      assert.ok(!messages.includes('grace period over: closing the remaining connections'));
    });
  });

  describe('with idle keep-alive connections', () => {
    let server: Server;
    let kept: Connection;
    let idle: Connection;
    let fresh: Connection;
    let answer: Answer;
    let code: number | null;

    before(async function () {
      this.timeout(120_000);
      server = await startProcess();
      kept = await Connection.open(server.port);
      const first = await kept.ask('/data/organisations/DE-1a.ttl');
      assert.equal(first.header('Connection'), 'keep-alive');
      idle = await Connection.open(server.port);
      assert.equal((await idle.ask('/healthz')).status, 200);
      // Connected, never asked: nothing read on it yet.
      fresh = await Connection.open(server.port);
      // The next request on the kept connection goes out the moment the process says it stops:
      // a client that sent it a moment after its last answer, as a keep-alive client does.
      const asked = new Promise<Answer>((resolve, reject) =>
        server.onLine((line) => {
          if (String(line.msg).startsWith('shutting down'))
            kept.ask('/data/organisations/DE-1a.nt').then(resolve, reject);
        }),
      );
      server.child.kill('SIGTERM');
      answer = await asked;
      await Promise.all([kept.closed, idle.closed, fresh.closed]);
      code = await server.exit;
    });

    after(() => server?.child.kill('SIGKILL'));

    it('a request sent on a connection idle at the signal is answered in full', () => {
      assert.equal(answer.status, 200);
      assert.match(answer.body.toString('utf8'), /DE-1a/);
    });
    it('that answer says Connection: close, and the server closes the connection after it', () => {
      assert.equal(answer.header('Connection'), 'close');
      assert.ok(kept.ended);
      assert.equal(kept.error, undefined);
    });
    it('an idle connection is closed by the server, without a reset', () => {
      assert.ok(idle.ended);
      assert.equal(idle.error, undefined);
    });
    it('a connection that never asked is closed too, without a reset', () => {
      assert.ok(fresh.ended);
      assert.equal(fresh.error, undefined);
    });
    it('the process exits 0 without waiting for the grace period', () => {
      assert.equal(code, 0);
      assert.ok(!server.lines.some((line) => String(line.msg).startsWith('grace period over')));
    });
  });
});
