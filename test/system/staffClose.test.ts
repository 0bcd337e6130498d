// A staff query whose client closes its connection, normally (FIN) or with a reset (RST), frees
// its worker at once, on the real process: the query is logged `abandoned`, and another user's
// ASK, queued behind it on the one worker, is answered within seconds, not after the time limit.
import assert from 'node:assert/strict';
import net from 'node:net';
import { startServerProcess, usersFile, type ServerProcess } from '../support/serverProcess';

const basic = (name: string, password: string) =>
  `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;

/** Runs until stopped: a cross product of every triple, four times. */
const RUNAWAY = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }';

/** Alice's runaway query on a raw socket of its own, connected. */
function runaway(port: number): Promise<net.Socket> {
  const body = `query=${encodeURIComponent(RUNAWAY)}`;
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(
        `POST /sparql HTTP/1.1\r\nHost: test\r\nAuthorization: ${basic('alice', 'alice-pw')}\r\n` +
          'Accept: application/sparql-results+json\r\n' +
          'Content-Type: application/x-www-form-urlencoded\r\n' +
          `Content-Length: ${body.length}\r\n\r\n${body}`,
      );
      resolve(socket);
    });
    socket.on('error', () => undefined);
    socket.resume();
  });
}

/** Bob's ASK: its status and how long it took, in ms. */
async function bobAsks(port: number): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await fetch(
    `http://127.0.0.1:${port}/sparql?query=${encodeURIComponent('ASK { ?s ?p ?o }')}`,
    {
      headers: { Authorization: basic('bob', 'bob-pw'), Accept: 'application/sparql-results+json' },
      signal: AbortSignal.timeout(20_000),
    },
  );
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
}

describe('a staff query whose client closes its connection', function () {
  this.timeout(60_000);
  let server: ServerProcess;

  before(async () => {
    const users = await usersFile({ alice: 'alice-pw', bob: 'bob-pw' });
    // One worker: bob's ASK waits behind alice's query until that worker is free.
    server = await startServerProcess({
      env: { SPARQL_USERS: users, SPARQL_WORKERS: '1', SPARQL_TIMEOUT_MS: '20000' },
    });
    for (let i = 0; i < 300 && (await bobAsks(server.port)).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 100));
  });

  after(async () => {
    server.child.kill('SIGKILL');
    await server.exit;
  });

  for (const [kind, close] of [
    ['FIN (socket.end)', (socket: net.Socket) => socket.end()],
    ['RST (socket.resetAndDestroy)', (socket: net.Socket) => socket.resetAndDestroy()],
  ] as const) {
    it(`${kind}: logged abandoned, and the next user's ASK is answered within 10 s`, async () => {
      const socket = await runaway(server.port);
      // The query is in the worker, and bob's ASK queued behind it.
      await new Promise((r) => setTimeout(r, 500));
      const ask = bobAsks(server.port);
      await new Promise((r) => setTimeout(r, 200));
      const closedAt = performance.now();
      close(socket);
      const logged = await server.line(
        (l) => l.msg === 'sparql query' && l.user === 'alice' && (l.ms as number) >= 500,
        15_000,
      );
      const { status, ms } = await ask;
      assert.equal(logged.outcome, 'abandoned');
      assert.equal(status, 200);
      // Without the fix, the ASK waited for the time limit (20 s) and got a 503.
      assert.ok(ms < 10_000, `bob waited ${Math.round(ms)} ms`);
      assert.ok(performance.now() - closedAt < 10_000);
      server.lines.length = 0;
    });
  }
});
