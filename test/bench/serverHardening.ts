// Bench of the server's hardening against the real server process: what a bystander
// sees (1) while one staff user's queries are given up in a loop, the client closing its
// connection (FIN) each time, and (2) while idle connections are held up to the process's
// open-files limit. Prints its figures; about 35 s in all (`staff` or `idle` for one part). `npx tsx test/bench/serverHardening.ts`
import fs from 'node:fs';
import net from 'node:net';
import { startServerProcess, usersFile } from '../support/serverProcess';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The value at quantile `q` of `xs` (nearest rank). */
function quantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
}

const basic = (name: string, password: string) =>
  `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;

/** A query that runs until it is stopped: a cross product of every triple, three times. */
const RUNAWAY = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }';

/** A form POST of `query` on a raw socket, closed with a FIN after `afterMs`. */
function giveUp(port: number, query: string, afterMs: number): Promise<void> {
  return new Promise((resolve) => {
    const body = `query=${encodeURIComponent(query)}`;
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(
        `POST /sparql HTTP/1.1\r\nHost: bench\r\nAuthorization: ${basic('alice', 'a-pass-word')}\r\n` +
          `Accept: application/sparql-results+json\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
          `Content-Length: ${body.length}\r\n\r\n${body}`,
      );
      setTimeout(() => socket.end(), afterMs);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
    socket.resume();
  });
}

/** A staff client giving up: bob's ASK, one after the other, while alice gives up two runaway queries in a loop. */
async function staffGiveUps(): Promise<void> {
  const users = await usersFile({ alice: 'a-pass-word', bob: 'b-pass-word' });
  const server = await startServerProcess({
    env: { SPARQL_USERS: users, SPARQL_WORKERS: '2', SPARQL_TIMEOUT_MS: '10000' },
  });
  const url = `http://127.0.0.1:${server.port}/sparql`;
  try {
    // The workers load the dataset after the public side serves it.
    for (let i = 0; i < 300; i++) {
      const r = await fetch(`${url}?query=${encodeURIComponent('ASK {}')}`, {
        headers: { Authorization: basic('bob', 'b-pass-word') },
      });
      if (r.status === 200) break;
      await sleep(100);
    }
    let looping = true;
    const loop = async () => {
      while (looping) await giveUp(server.port, RUNAWAY, 200);
    };
    const loops = [loop(), loop()];
    const asks: { status: number; ms: number }[] = [];
    const until = performance.now() + 12_000;
    await sleep(300);
    while (performance.now() < until) {
      const t = performance.now();
      const status = await fetch(`${url}?query=${encodeURIComponent('ASK { ?s ?p ?o }')}`, {
        headers: {
          Authorization: basic('bob', 'b-pass-word'),
          Accept: 'application/sparql-results+json',
        },
        signal: AbortSignal.timeout(40_000),
      }).then(
        async (r) => (await r.arrayBuffer(), r.status),
        () => 0,
      );
      asks.push({ status, ms: performance.now() - t });
      await sleep(100);
    }
    looping = false;
    await Promise.all(loops);
    const ms = asks.map((a) => a.ms);
    const statuses: Record<number, number> = {};
    for (const a of asks) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    const outcomes: Record<string, number> = {};
    for (const l of server.lines)
      if (l.msg === 'sparql query' && l.user === 'alice')
        outcomes[String(l.outcome)] = (outcomes[String(l.outcome)] ?? 0) + 1;
    console.log(
      `staff give-ups, 12 s (FIN after 200 ms, SPARQL_TIMEOUT_MS=10000): bob's ASKs ${asks.length}, ` +
        `statuses ${JSON.stringify(statuses)}, p50 ${quantile(ms, 0.5).toFixed(1)} ms, ` +
        `max ${Math.max(...ms).toFixed(0)} ms; alice's outcomes ${JSON.stringify(outcomes)}`,
    );
  } finally {
    server.child.kill('SIGKILL');
    await server.exit;
  }
}

/**
 * A GET on a new connection of its own, raw (fetch may try a reset request again): whether its
 * answer was a 200 within 2 s.
 */
function rawGet(port: number, path: string): Promise<boolean> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n`),
    );
    socket.setTimeout(2000, () => socket.destroy());
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answer.startsWith('HTTP/1.1 200')));
  });
}

/**
 * Connections: new clients' GETs while idle connections are held up to the open-files limit; with
 * `reconnect`, each held connection the server closes is opened again 10 ms later.
 */
async function idleHold(reconnect: boolean): Promise<void> {
  const openFiles = 512;
  const server = await startServerProcess({ openFiles });
  const held = new Set<net.Socket>();
  let holding = true;
  const hold = () => {
    if (!holding) return;
    const socket = net.connect(server.port, '127.0.0.1');
    held.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      held.delete(socket);
      if (reconnect) setTimeout(hold, 10);
    });
  };
  try {
    for (let i = 0; i < openFiles * 2; i++) hold();
    await sleep(2000);
    const results: { ok: boolean; ms: number }[] = [];
    for (let i = 0; i < 40; i++) {
      const t = performance.now();
      const ok = await rawGet(server.port, '/healthz');
      results.push({ ok, ms: performance.now() - t });
      await sleep(50);
    }
    const ok = results.filter((r) => r.ok);
    console.log(
      `connections, ${openFiles * 2} idle connections ${reconnect ? 'held and opened again when closed' : 'opened once and held'} against ulimit -n ${openFiles}: ` +
        `new clients answered ${ok.length}/${results.length}, ` +
        `p50 of those ${quantile(
          ok.map((r) => r.ms),
          0.5,
        ).toFixed(
          1,
        )} ms; the server's open files at the end ${fs.readdirSync(`/proc/${server.pid}/fd`).length}`,
    );
  } finally {
    holding = false;
    for (const socket of held) socket.destroy();
    server.child.kill('SIGKILL');
    await server.exit;
  }
}

async function main(): Promise<void> {
  const only = process.argv[2];
  if (!only || only === 'staff') await staffGiveUps();
  if (!only || only === 'idle') await idleHold(false);
  if (!only || only === 'idle') await idleHold(true);
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
