// The staff endpoint in the server process as operators run it: its settings checked at start, a
// listener of its own (SPARQL_LISTEN), the example queries on the bundled data, and the W3C SPARQL
// 1.1 Protocol and Service Description suites (rdf-test-suite, offline) against the running
// endpoint. The protocol suite sends no credentials: a proxy of the harness adds them, and records
// every status, so that a 401 cannot pass a test that expects a 4xx.
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadExamples } from '../../src/http/sparql/editor';
import { PROJECT_ROOT } from '../../src/util/paths';
import {
  CONFORMANCE,
  type LogLine,
  tempDir,
  onLogLines,
  serverEnv,
  needsThirdParty,
} from '../support';
import { basic, testUsers } from '../staffSupport';

const MAIN = path.join(PROJECT_ROOT, 'src', 'main.ts');
const RUNNER = path.join(PROJECT_ROOT, 'node_modules', 'rdf-test-suite', 'bin', 'Runner.js');
/** The runner takes the engine's path relative to its working folder (the project's). */
const ENGINE = path.join('test', 'conformance', 'noEngine.cjs');
const W3C = 'http://www.w3.org/2009/sparql/docs/tests/data-sparql11/';
/** The tests that need an endpoint that takes updates, or loads graphs into it, do not apply. */
const NOT_APPLICABLE = '#(update_|query_dataset_|query_multiple_dataset)';

/** Runs rdf-test-suite on a manifest of the fetched conformance suites (data/third-party/conformance/); resolves with its report. */
function suite(folder: string, manifest: string, options: Record<string, string>): Promise<string> {
  const args = [
    RUNNER,
    ENGINE,
    `${W3C}${manifest}/manifest.ttl`,
    '-m',
    `${W3C}${manifest}/~${path.join(CONFORMANCE, folder)}/`,
    '-i',
    JSON.stringify(options),
    '--skip',
    NOT_APPLICABLE,
    '-d',
    '20000',
  ];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { encoding: 'utf8', timeout: 120_000, cwd: PROJECT_ROOT },
      (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
    );
  });
}

/** A proxy that adds the staff credentials to every request, and records the statuses. */
function credentialProxy(target: string, statuses: number[]): Promise<http.Server> {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host, authorization: basic() },
      },
      (answer) => {
        statuses.push(answer.statusCode!);
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(forward);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('the staff endpoint in the server process', function () {
  before(needsThirdParty);
  this.timeout(120_000);

  it('refuses to start with a credentials file that is missing, malformed or over its bound, or a bad SPARQL_* setting', async () => {
    const broken = path.join(tempDir(), 'users');
    fs.writeFileSync(broken, 'alice:not-a-hash\n');
    const huge = path.join(tempDir(), 'users');
    fs.writeFileSync(huge, '');
    fs.truncateSync(huge, 303 * 1024 * 1024); // sparse: no disk taken
    for (const [variable, extra] of [
      ['SPARQL_USERS', { SPARQL_USERS: '/nonexistent/users' }],
      ['SPARQL_USERS', { SPARQL_USERS: broken }],
      ['SPARQL_USERS', { SPARQL_USERS: huge }],
      ['SPARQL_LISTEN', { SPARQL_USERS: await testUsers(), SPARQL_LISTEN: 'localhost' }],
      ['SPARQL_WORKERS', { SPARQL_USERS: await testUsers(), SPARQL_WORKERS: '0' }],
      ['SPARQL_TIMEOUT_MS', { SPARQL_USERS: await testUsers(), SPARQL_TIMEOUT_MS: 'soon' }],
    ] as const) {
      const run = spawnSync(process.execPath, ['--import', 'tsx', MAIN], {
        env: serverEnv(extra),
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.equal(run.status, 2, run.stderr);
      assert.match(run.stderr, new RegExp(`^configuration error: ${variable}: `, 'm'));
    }
  });

  describe('on a listener of its own, over the bundled dataset', () => {
    let child: ChildProcess;
    let publicBase: string;
    let staffBase: string;
    const lines: LogLine[] = [];

    before(async function () {
      this.timeout(120_000);
      child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
        env: serverEnv({ SPARQL_USERS: await testUsers(), SPARQL_LISTEN: '127.0.0.1:0' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const address = (msg: string) =>
        new Promise<string>((resolve, reject) => {
          onLogLines(child.stdout!, (line) => {
            if (line.msg === msg) resolve(`http://127.0.0.1:${(line.address as AddressInfo).port}`);
          });
          child.once('exit', () => reject(new Error('the server exited before listening')));
        });
      onLogLines(child.stdout!, (line) => lines.push(line));
      [publicBase, staffBase] = await Promise.all([
        address('listening'),
        address('the staff SPARQL endpoint is listening'),
      ]);
      for (let i = 0; i < 1200; i++) {
        const ready = await fetch(`${staffBase}/readyz`);
        if (ready.status === 200) {
          const body = (await ready.json()) as { sparql: { workers: { state: string }[] } };
          if (body.sparql.workers.some((w) => w.state === 'idle')) return;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the staff endpoint never became ready');
    });

    after(() => child.kill('SIGKILL'));

    it('answers 404 for /sparql on the public listener, saying where it is not', async () => {
      const res = await fetch(`${publicBase}/sparql?query=ASK%7B%7D`, {
        headers: { Authorization: basic() },
      });
      assert.equal(res.status, 404);
      assert.match(await res.text(), /not on this listener/);
      assert.equal((await fetch(`${staffBase}/data/organisations/DE-1a.ttl`)).status, 404);
    });

    it('runs every example query on the bundled data, each with rows', async () => {
      const examples = loadExamples();
      assert.ok(examples.length >= 8);
      for (const example of examples) {
        const res = await fetch(`${staffBase}/sparql`, {
          method: 'POST',
          headers: {
            Authorization: basic(),
            'Content-Type': 'application/sparql-query',
            Accept: 'application/sparql-results+json, application/n-triples;q=0.9',
          },
          body: example.text,
        });
        assert.equal(res.status, 200, `${example.name}: ${res.status}`);
        const text = await res.text();
        const rows = res.headers.get('content-type')!.startsWith('application/n-triples')
          ? text.split('\n').filter((l) => l.trim() !== '').length
          : ((j: { boolean?: boolean; results?: { bindings: unknown[] } }) =>
              j.boolean === true ? 1 : (j.results?.bindings.length ?? 0))(JSON.parse(text));
        assert.ok(rows > 0, `${example.name} returns rows`);
      }
    });

    it('passes the 21 tests of the W3C SPARQL 1.1 Protocol suite that apply to a read-only endpoint', async () => {
      const statuses: number[] = [];
      const proxy = await credentialProxy(staffBase, statuses);
      try {
        const { port } = proxy.address() as AddressInfo;
        const report = await suite('sparql11-protocol', 'protocol', {
          protocolEndpoint: `http://127.0.0.1:${port}/sparql`,
        });
        process.stdout.write(`\n${report}\n`);
        assert.match(report, /✔ 21 \/ 21 tests succeeded!/);
        assert.ok(statuses.length >= 21);
        assert.ok(!statuses.includes(401), 'no test passed on a 401');
      } finally {
        proxy.close();
      }
    });

    it('passes the W3C SPARQL 1.1 Service Description suite, without credentials', async () => {
      const report = await suite('sparql11-service-description', 'service-description', {
        serviceDescriptionEndpoint: `${staffBase}/sparql`,
      });
      process.stdout.write(`\n${report}\n`);
      assert.match(report, /✔ 3 \/ 3 tests succeeded!/);
    });

    it('logs the queries as JSON lines, with no password or hash', async () => {
      const logged = lines.filter((l) => l.msg === 'sparql query');
      assert.ok(logged.length > 0);
      const text = JSON.stringify(lines);
      assert.ok(!text.includes('scrypt$'));
      assert.ok(!text.includes('correct horse'));
    });
  });
});
