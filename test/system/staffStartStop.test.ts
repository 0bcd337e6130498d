// The staff endpoint of a real server process at its two edges (docs/sparql.md): the first query
// after a start, while the workers load the version served, waits for them within its time limit
// or is told they are loading; a routine stop (SIGTERM) during a staff query is logged at info,
// with no error line and no stack trace.
import assert from 'node:assert/strict';
import {
  generatedSnapshot,
  startServerProcess,
  usersFile,
  type ServerProcess,
} from '../support/serverProcess';
import { basic, STAFF } from '../staffSupport';

const COUNT_ALL = 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }';

/** A staff query to the public listener, as a form POST. */
function staffQuery(server: ServerProcess): Promise<Response> {
  return fetch(`http://127.0.0.1:${server.port}/sparql`, {
    method: 'POST',
    headers: {
      Authorization: basic(),
      'Content-Type': 'application/x-www-form-urlencoded',
      Accept: 'application/sparql-results+json',
    },
    body: new URLSearchParams({ query: COUNT_ALL }).toString(),
  });
}

/** The states of the staff workers, as /readyz lists them. */
async function workerStates(server: ServerProcess): Promise<string[]> {
  const ready = (await (await fetch(`http://127.0.0.1:${server.port}/readyz`)).json()) as {
    sparql: { workers: { state: string }[] };
  };
  return ready.sparql.workers.map((w) => w.state);
}

async function start(env: Record<string, string> = {}): Promise<ServerProcess> {
  return startServerProcess({
    env: { SPARQL_USERS: await usersFile({ [STAFF.name]: STAFF.password }), ...env },
  });
}

async function stop(server: ServerProcess | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null) return;
  server.child.kill('SIGTERM');
  await server.exit;
}

describe('the staff endpoint at start and stop (a real process)', function () {
  this.timeout(180_000);

  describe('the first query while the workers load', () => {
    let server: ServerProcess | undefined;
    afterEach(() => stop(server));

    it('waits for them within SPARQL_TIMEOUT_MS and is answered', async () => {
      server = await start({ SPARQL_TIMEOUT_MS: '120000' });
      const res = await staffQuery(server);
      assert.equal(res.status, 200, await res.clone().text());
      const body = (await res.json()) as { results: { bindings: unknown[] } };
      assert.equal(body.results.bindings.length, 1);
    });

    it('past its time limit, is a 503 saying the workers are loading, with Retry-After', async () => {
      // Enough institutions that the workers still load when the query comes, on any machine.
      server = await start({ SPARQL_TIMEOUT_MS: '100', DATASET: generatedSnapshot(3000) });
      assert.ok((await workerStates(server)).includes('loading'), 'the workers are loading');
      const res = await staffQuery(server);
      const text = await res.text();
      assert.equal(res.status, 503, text);
      assert.ok(Number(res.headers.get('retry-after')) >= 1);
      assert.match(text, /loading/);
      assert.doesNotMatch(text, /became free/);
    });
  });

  describe('a stop (SIGTERM) during a staff query', () => {
    let server: ServerProcess;
    let answered: Promise<number>;
    before(async () => {
      server = await start();
      answered = staffQuery(server).then(
        (res) => res.status,
        () => 0,
      );
      // The query waits for the loading workers when the signal comes.
      await new Promise((resolve) => setTimeout(resolve, 200));
      server.child.kill('SIGTERM');
      await server.exit;
      await answered;
    });

    it('is logged at info: shutting down, then stopped', () => {
      const messages = server.lines.map((l) => `${String(l.level)} ${String(l.msg)}`);
      assert.ok(messages.includes('30 stopped'), messages.join('\n'));
    });

    it('logs no error line and no stack trace', () => {
      const errors = server.lines.filter((l) => Number(l.level) >= 50);
      assert.deepEqual(errors, []);
      assert.ok(!server.lines.some((l) => JSON.stringify(l).includes('"stack"')));
    });
  });
});
