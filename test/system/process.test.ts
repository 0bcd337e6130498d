// The process as operators run it: settings checked at start, readiness, JSON logs, SIGTERM.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/util/paths';
import { onLogLines, serverEnv, type LogLine, needsThirdParty } from '../support';

const MAIN = path.join(PROJECT_ROOT, 'src', 'main.ts');

/** A process's settings: short time-outs for the slow-client tests, a long grace to watch it. */
function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  return serverEnv({
    HEADERS_TIMEOUT_MS: '1500',
    REQUEST_TIMEOUT_MS: '3000',
    KEEP_ALIVE_TIMEOUT_MS: '60000',
    SHUTDOWN_GRACE_MS: '60000',
    ...extra,
  });
}

describe('the server process', () => {
  before(needsThirdParty);
  for (const [variable, value] of [
    ['PORT', 'abc'],
    ['BASE_IRI', 'ftp://example.org'],
    ['LOG_LEVEL', 'loud'],
    ['ISIL_DIRECTORY_URL', 'sigel.example.org'],
  ]) {
    it(`refuses to start with ${variable}=${value}, naming the variable`, () => {
      const run = spawnSync(process.execPath, ['--import', 'tsx', MAIN], {
        env: env({ [variable!]: value! }),
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.equal(run.status, 2);
      assert.match(run.stderr, new RegExp(`^configuration error: ${variable}: `, 'm'));
    });
  }

  it('refuses a BASE_IRI with a trailing newline in one line, exit 2, no stack trace', () => {
    // It passed the check and then crashed the loader with a stack trace.
    const run = spawnSync(process.execPath, ['--import', 'tsx', MAIN], {
      env: env({ BASE_IRI: 'https://ld.zdb-services.de\n' }),
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(run.status, 2);
    assert.equal(
      run.stderr,
      'configuration error: BASE_IRI: expected an absolute http(s) URL without spaces, control characters, `|`, `^`, query, fragment or credentials, got "https://ld.zdb-services.de\\n"\n',
    );
  });

  it('refuses an OAI_TOKEN_KEY too short in one line, exit 2, without the key', () => {
    const key = 'too-short-a-secret';
    const run = spawnSync(process.execPath, ['--import', 'tsx', MAIN], {
      env: env({ OAI_TOKEN_KEY: key }),
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(run.status, 2);
    assert.equal(
      run.stderr,
      'configuration error: OAI_TOKEN_KEY: expected a secret of at least 32 bytes (openssl rand -base64 32 makes one), got 18\n',
    );
    assert.ok(!run.stdout.includes(key));
  });

  describe('started with the bundled dataset', () => {
    let child: ChildProcess;
    let base: string;
    const lines: LogLine[] = [];
    let exit: Promise<number | null>;

    before(async function () {
      this.timeout(40_000);
      child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
        env: env({}),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      exit = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
      const listening = new Promise<string>((resolve, reject) => {
        onLogLines(child.stdout!, (line) => {
          lines.push(line);
          if (line.msg === 'listening')
            resolve(`http://127.0.0.1:${(line.address as { port: number }).port}`);
        });
        child.once('exit', () => reject(new Error('the server exited before listening')));
      });
      base = await listening;
      // 30 s: a busy machine took 11 s to start; 300 polls at 100 ms.
      for (let i = 0; i < 300; i++) {
        if ((await fetch(`${base}/readyz`)).status === 200) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('never ready');
    });

    after(() => child.kill('SIGKILL'));

    it('/healthz answers', async () => assert.equal((await fetch(`${base}/healthz`)).status, 200));
    it('/readyz tells the dataset the log says was loaded', async () => {
      const body = (await (await fetch(`${base}/readyz`)).json()) as Record<string, unknown>;
      // The line is written as the dataset is swapped in; it may reach us after /readyz's answer.
      let loaded: Record<string, unknown> | undefined;
      while (!(loaded = lines.find((l) => l.msg === 'dataset loaded')))
        await new Promise((r) => setTimeout(r, 10));
      assert.ok((body.institutions as number) > 0);
      for (const key of ['version', 'institutions', 'withdrawn', 'triples'])
        assert.equal(body[key], loaded[key], key);
    });
    it('logs one JSON line per request, with its id', async () => {
      const res = await fetch(`${base}/resource/organisations/DE-1a`, {
        redirect: 'manual',
        headers: { 'X-Request-Id': 'log-test-1' },
      });
      assert.equal(res.status, 303);
      await new Promise((r) => setTimeout(r, 200));
      const line = lines.find((l) => l.reqId === 'log-test-1');
      assert.ok(line, 'a log line with the request id');
      assert.equal(line.status, 303);
      assert.equal(line.method, 'GET');
    });
    it('a client that half-closes after its request still gets the whole answer, made in the store thread', async () => {
      // Requested nowhere else here: not in the cache, so the answer is made after the client's FIN.
      const document = '/data/organisations/DE-1a.nt';
      const { port } = new URL(base);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', () =>
          socket.end(`GET ${document} HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\n`),
        );
        let text = '';
        socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
      const split = answer.indexOf('\r\n\r\n');
      assert.match(answer.slice(0, split), /^HTTP\/1\.1 200 /);
      assert.equal(answer.slice(split + 4), await (await fetch(`${base}${document}`)).text());
    });
    it('a client that never finishes its headers is cut off after HEADERS_TIMEOUT_MS', async function () {
      this.timeout(10_000);
      const { port } = new URL(base);
      const started = Date.now();
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', () =>
          socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: '),
        );
        let text = '';
        socket.on('data', (d) => (text += d.toString()));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
        socket.setTimeout(8000, () => reject(new Error('still open after 8 s')));
      });
      assert.match(answer, /^HTTP\/1\.1 408/);
      assert.ok(Date.now() - started < 5000);
    });
    it('SIGTERM with a request in flight: it is answered in full with Connection: close, its connection closed, new connections refused, exit 0', async () => {
      const document = '/data/organisations/DE-1a.ttl';
      const expected = Buffer.from(await (await fetch(`${base}${document}`)).arrayBuffer());
      const { port } = new URL(base);
      // The request head arrives in two parts: the signal comes between them, while Node holds
      // a started request on this connection (which closeIdleConnections leaves alone).
      const socket = net.connect(Number(port), '127.0.0.1');
      await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      // The whole response: its head, then as many bytes as its Content-Length says.
      const response = new Promise<{ head: string; body: Buffer }>((resolve, reject) => {
        let received = Buffer.alloc(0);
        socket.on('data', (c: Buffer) => {
          received = Buffer.concat([received, c]);
          const split = received.indexOf('\r\n\r\n');
          if (split < 0) return;
          const head = received.subarray(0, split).toString('latin1');
          const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1]);
          if (received.length - split - 4 >= length)
            resolve({ head, body: received.subarray(split + 4) });
        });
        socket.once('close', () => reject(new Error('closed before the whole response')));
      });
      socket.write(`GET ${document} HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
      // Written right before server.close() in the same turn of the child's event loop.
      const shuttingDown = () => lines.some((l) => String(l.msg).startsWith('shutting down'));
      child.kill('SIGTERM');
      while (!shuttingDown()) await new Promise((r) => setTimeout(r, 10));
      socket.write('Accept-Encoding: identity\r\n\r\n');
      const closed = new Promise((resolve) => socket.once('close', resolve));
      const { head, body } = await response;
      // The client keeps the connection (keep-alive time-out and grace period 60 s here): the
      // server closes it once the answer is out, or the process would wait a minute to exit.
      await closed;
      assert.match(head, /^HTTP\/1\.1 200 /);
      assert.match(head, /\r\nconnection: close(\r\n|$)/i, 'an answer begun after the signal');
      assert.match(head, new RegExp(`\r\ncontent-length: ${expected.length}\r\n`, 'i'));
      assert.deepEqual(body, expected, 'the whole document');

      const refused = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
        const late = net.connect(Number(port), '127.0.0.1', () => {
          late.destroy();
          resolve(undefined);
        });
        late.once('error', resolve);
      });
      assert.equal(refused?.code, 'ECONNREFUSED', 'a connection after the signal is refused');
      assert.equal(await exit, 0);
      assert.ok(lines.some((l) => l.msg === 'stopped'));
    });
  });
  it('SIGTERM while the first load runs: the load is abandoned, exit 0, nothing logged as failed', async function () {
    this.timeout(40_000);
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
      env: env({}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exit = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    const lines: LogLine[] = [];
    let signalled = false;
    onLogLines(child.stdout!, (line) => {
      lines.push(line);
      // The bundled dataset takes seconds to load: the signal comes right after listening.
      if (line.msg === 'listening' && !signalled) {
        signalled = true;
        child.kill('SIGTERM');
      }
    });
    assert.equal(await exit, 0);
    const messages = lines.map((l) => l.msg);
    assert.ok(signalled);
    assert.ok(messages.includes('stopped'), messages.join(' | '));
    assert.ok(!messages.includes('dataset loaded'), 'the signal came before the load ended');
    assert.deepEqual(
      lines.filter((l) => (l.level as number) >= 50),
      [],
      'nothing at level error or fatal',
    );
  });
});
