// MAX_CONNECTIONS on the real process: idle connections held up to the cap do not keep a new
// client out (the one idle the longest is closed for it), a connection with a request partly read
// is never closed for another, and when every connection is busy a new one gets a 503.
import assert from 'node:assert/strict';
import net from 'node:net';
import { startServerProcess, type ServerProcess } from '../support/serverProcess';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A connection that sends `text` (nothing: an idle one) and keeps what it is answered. */
function connection(
  port: number,
  text = '',
): Promise<{ socket: net.Socket; answer: () => string }> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = net.connect(port, '127.0.0.1', () => {
      if (text) socket.write(text);
      resolve({ socket, answer: () => answer });
    });
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
  });
}

/** A GET on a new connection of its own: the answer's first line and headers, or '' if none came. */
async function newClient(port: number): Promise<string> {
  const { socket, answer } = await connection(
    port,
    'GET /healthz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n',
  );
  await new Promise<void>((resolve) => {
    socket.setTimeout(2000, () => socket.destroy());
    socket.on('close', () => resolve());
  });
  return answer();
}

describe('MAX_CONNECTIONS', function () {
  this.timeout(60_000);
  const MAX = 20;
  let server: ServerProcess;
  const held: net.Socket[] = [];

  before(async () => {
    server = await startServerProcess({ env: { MAX_CONNECTIONS: String(MAX) } });
  });

  afterEach(() => {
    for (const socket of held.splice(0)) socket.destroy();
  });

  after(async () => {
    server.child.kill('SIGKILL');
    await server.exit;
  });

  it('is said in the listening line', () => {
    const listening = server.lines.find((l) => l.msg === 'listening')!;
    assert.equal(listening.maxConnections, MAX);
    assert.equal(typeof listening.pid, 'number');
  });

  it('with twice as many idle connections held, every new client is answered, and the server holds at most the cap', async () => {
    // In two rounds: a connection younger than 250 ms is not closed for a newer one.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < MAX; i++) held.push((await connection(server.port)).socket);
      await sleep(300);
    }
    const answers: string[] = [];
    for (let i = 0; i < 10; i++) answers.push(await newClient(server.port));
    assert.deepEqual(
      answers.map((a) => a.split('\r\n')[0]),
      Array(10).fill('HTTP/1.1 200 OK'),
    );
    await sleep(300);
    const open = held.filter((s) => !s.destroyed && !s.readableEnded).length;
    assert.ok(open <= MAX, `${open} idle connections still open`);
    // The ones closed were the oldest: the first round, then the second's oldest for the clients.
    assert.ok(held.slice(0, MAX).every((s) => s.destroyed || s.readableEnded));
    assert.ok(held.slice(-5).every((s) => !s.destroyed && !s.readableEnded));
    const warned = await server.line((l) => String(l.msg).startsWith('MAX_CONNECTIONS reached'));
    assert.equal(warned.max, MAX);
  });

  it('never closes a connection with a request partly read: when every one is busy, a new one gets 503 with Retry-After, and the partial requests are answered once sent', async () => {
    const partial = [];
    for (let i = 0; i < MAX; i++) {
      const c = await connection(server.port, 'GET /healthz HTTP/1.1\r\nHost: test\r\n');
      held.push(c.socket);
      partial.push(c);
    }
    await sleep(300);
    const refused = await newClient(server.port);
    assert.match(refused, /^HTTP\/1\.1 503 Service Unavailable\r\n/);
    assert.match(refused, /\r\nRetry-After: 1\r\n/);
    for (const c of partial) c.socket.write('\r\n');
    await sleep(500);
    assert.deepEqual(
      partial.map((c) => c.answer().split('\r\n')[0]),
      Array(MAX).fill('HTTP/1.1 200 OK'),
    );
  });
});
