// /metrics in the Prometheus text format, as operators run it: on a listener of its own
// (METRICS_LISTEN) and never on the public one, off unless set; what it counts moves with the
// requests, the cache, the store, the reloads and the staff queries; the dataset's version and
// institution count are those /readyz shows.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { PROJECT_ROOT } from '../../src/util/paths';
import { basic, testUsers } from '../staffSupport';
import { onLogLines, serverEnv, needsThirdParty } from '../support';

const MAIN = path.join(PROJECT_ROOT, 'src', 'main.ts');

/** The value of the sample `name{labels}` in a scrape (labels as the text writes them), or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('/metrics', function () {
  before(needsThirdParty);
  this.timeout(120_000);

  it('refuses METRICS_LISTEN that is malformed or the public port', () => {
    for (const extra of <Record<string, string>[]>[
      { METRICS_LISTEN: 'localhost' },
      { METRICS_LISTEN: '127.0.0.1:99999' },
      { METRICS_LISTEN: '127.0.0.1:8080', PORT: '8080' },
    ]) {
      const run = spawnSync(process.execPath, ['--import', 'tsx', MAIN], {
        env: serverEnv(extra),
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.equal(run.status, 2, run.stderr);
      assert.match(run.stderr, /^configuration error: METRICS_LISTEN/m);
    }
  });

  describe('on a listener of its own, over the bundled dataset', () => {
    let child: ChildProcess;
    let base: string;
    let metrics: string;
    const scrape = async () => {
      const res = await fetch(`${metrics}/metrics`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
      return res.text();
    };

    before(async function () {
      this.timeout(120_000);
      child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
        env: serverEnv({
          METRICS_LISTEN: '127.0.0.1:0',
          SPARQL_USERS: await testUsers(),
        }),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const address = (msg: string) =>
        new Promise<string>((resolve, reject) => {
          onLogLines(child.stdout!, (line) => {
            if (line.msg === msg) resolve(`http://127.0.0.1:${(line.address as AddressInfo).port}`);
          });
          child.once('exit', () => reject(new Error('the server exited before listening')));
        });
      [base, metrics] = await Promise.all([
        address('listening'),
        address('the metrics are listening at /metrics'),
      ]);
      for (let i = 0; i < 1200 && (await fetch(`${base}/readyz`)).status !== 200; i++)
        await new Promise((r) => setTimeout(r, 100));
    });

    after(() => child.kill('SIGKILL'));

    it('is not on the public listener', async () => {
      assert.equal((await fetch(`${base}/metrics`)).status, 404);
    });

    it('serves /metrics alone on its own listener, GET and HEAD', async () => {
      assert.equal((await fetch(`${metrics}/`)).status, 404);
      assert.equal((await fetch(`${metrics}/data/organisations/DE-1a.ttl`)).status, 404);
      assert.equal((await fetch(`${metrics}/metrics`, { method: 'POST' })).status, 405);
      const head = await fetch(`${metrics}/metrics`, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(await head.text(), '');
    });

    it('names the dataset served, as /readyz does, and its first load', async () => {
      const ready = (await (await fetch(`${base}/readyz`)).json()) as {
        version: string;
        institutions: number;
      };
      const text = await scrape();
      assert.equal(sample(text, 'isil_ld_dataset_info', `version="${ready.version}"`), 1);
      assert.equal(sample(text, 'isil_ld_dataset_institutions'), ready.institutions);
      assert.equal(sample(text, 'isil_ld_reloads_total', 'outcome="done"'), 1);
      assert.equal(sample(text, 'isil_ld_store_available', 'store="embedded"'), 1);
      assert.ok((sample(text, 'isil_ld_process_resident_memory_bytes') ?? 0) > 0);
    });

    it('counts requests by route and status, their latency and bytes, the cache and the store', async () => {
      const before = await scrape();
      const count = (text: string, labels: string) =>
        sample(text, 'isil_ld_http_requests_total', labels) ?? 0;
      await fetch(`${base}/resource/organisations/DE-1a`, { redirect: 'manual' });
      const first = await fetch(`${base}/data/organisations/DE-1a.ttl`);
      await first.arrayBuffer();
      // As sent: fetch asks for gzip, and the length is the compressed body's.
      const bytes = Number(first.headers.get('content-length'));
      assert.ok(bytes > 0);
      await (await fetch(`${base}/data/organisations/DE-1a.ttl`)).arrayBuffer();
      await (await fetch(`${base}/data/organisations/XX-nothing-here.ttl`)).arrayBuffer();
      const after = await scrape();
      assert.equal(
        count(after, 'route="resource",status="303"') -
          count(before, 'route="resource",status="303"'),
        1,
      );
      assert.equal(
        count(after, 'route="data",status="200"') - count(before, 'route="data",status="200"'),
        2,
      );
      assert.equal(
        count(after, 'route="data",status="404"') - count(before, 'route="data",status="404"'),
        1,
      );
      const seen = (text: string) =>
        sample(text, 'isil_ld_http_request_duration_seconds_count', 'route="data"') ?? 0;
      assert.equal(seen(after) - seen(before), 3);
      const sent = (text: string) =>
        sample(text, 'isil_ld_http_response_bytes_total', 'route="data"') ?? 0;
      assert.ok(sent(after) - sent(before) >= 2 * bytes);
      const hits = (text: string) => sample(text, 'isil_ld_document_cache_hits_total') ?? 0;
      const misses = (text: string) => sample(text, 'isil_ld_document_cache_misses_total') ?? 0;
      assert.equal(misses(after) - misses(before), 1, 'the first asking rendered it');
      assert.equal(hits(after) - hits(before), 1, 'the second was a hit');
      assert.ok((sample(after, 'isil_ld_document_cache_bytes') ?? 0) > bytes);
      const queried = (text: string) =>
        sample(text, 'isil_ld_store_query_duration_seconds_count', 'store="embedded"') ?? 0;
      assert.equal(queried(after) - queried(before), 1);
    });

    it('counts staff queries by outcome', async () => {
      const ask = (body: string) =>
        fetch(`${base}/sparql`, {
          method: 'POST',
          headers: {
            Authorization: basic(),
            'Content-Type': 'application/sparql-query',
            Accept: 'application/sparql-results+json',
          },
          body,
        });
      // The workers may still be loading on a busy machine: a client comes back after the
      // 503's Retry-After, and the counts are taken from then on.
      for (let warm = await ask('ASK {}'); warm.status === 503; warm = await ask('ASK {}')) {
        assert.ok(Number(warm.headers.get('retry-after')) >= 1);
        await new Promise((r) => setTimeout(r, Number(warm.headers.get('retry-after')) * 1000));
      }
      const before = await scrape();
      const res = await ask('ASK { ?s ?p ?o }');
      assert.equal(res.status, 200, await res.text());
      const refused = await ask('SELECT * WHERE { SERVICE <http://example.org/> { ?s ?p ?o } }');
      assert.equal(refused.status, 403);
      const after = await scrape();
      const delta = (name: string, labels?: string) =>
        (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
      assert.equal(delta('isil_ld_sparql_queries_total', 'outcome="answered"'), 1);
      assert.equal(delta('isil_ld_sparql_queries_total', 'outcome="refused"'), 1);
      assert.equal(delta('isil_ld_sparql_query_duration_seconds_count'), 2);
    });

    it('counts a reload on SIGHUP', async () => {
      child.kill('SIGHUP');
      for (let i = 0; i < 600; i++) {
        const done = sample(await scrape(), 'isil_ld_reloads_total', 'outcome="done"');
        if (done === 2) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.fail('the reload was not counted');
    });
  });
});
