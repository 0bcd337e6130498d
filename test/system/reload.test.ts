// Zero-downtime reload: SIGHUP loads the snapshot beside the served dataset and
// swaps it in; a broken snapshot leaves the old data served. In the process, then the real server
// under a stream of requests.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { generate } from '../../cli/generate';
import { loadSources, writeSnapshot } from '../../src/load/loadSources';
import { inProcessStore } from '../../src/store/embedded/inProcessStore';
import request from 'supertest';
import { createApp } from '../../src/http/app';
import { DATASET_VERSION } from '../../src/http/deps';
import { createLogger } from '../../src/util/logger';
import { loadInto, Reloader } from '../../src/process/reloader';
import { PROJECT_ROOT } from '../../src/util/paths';
import type { Isil } from '../../src/rdf/isil';
import { Service } from '../../src/documents/service';
import { BASE, onLogLines, serverEnv, tempDir, testConfig, type LogLine } from '../support';

const MAIN = path.join(PROJECT_ROOT, 'src', 'main.ts');

/** Institutions whose names and towns carry the edition of the dataset they belong to. */
const MARKED = 20;
/** Institutions the same in every edition: their documents, and so their ETags, never change. */
const UNCHANGED = 500;

const unchanged = [...generate({ count: UNCHANGED, seed: 3, base: BASE })];
const unchangedIsils = unchanged
  .slice(0, 10)
  .map((text) => /\/resource\/organisations\/([^>]+)>/.exec(text)![1]!);

/**
 * One edition of the dataset as N-Triples: each marked institution says `edition k` in its name
 * and its town, so every body tells which edition it was rendered from.
 */
function edition(k: number): string {
  const lines = [...unchanged];
  for (let i = 1; i <= MARKED; i++) {
    const r = `<${BASE}/resource/organisations/DE-RT${i}>`;
    const d = `<${BASE}/data/organisations/DE-RT${i}>`;
    lines.push(
      `${r} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Organization> .\n`,
      `${r} <http://purl.org/dc/elements/1.1/identifier> "(ISIL)DE-RT${i}" .\n`,
      `${r} <http://xmlns.com/foaf/0.1/name> "Reload test library ${i}, edition ${k}" .\n`,
      `${r} <http://www.w3.org/2006/vcard/ns#adr> _:adr${i} .\n`,
      `_:adr${i} <http://www.w3.org/2006/vcard/ns#locality> "Town of edition ${k}" .\n`,
      `${r} <http://www.w3.org/2007/05/powder-s#describedby> ${d} .\n`,
      `${d} <http://purl.org/dc/terms/modified> "2026-0${k}-01T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .\n`,
    );
  }
  return lines.join('');
}

/**
 * Replaces `target` with the snapshot of edition `k`, written as `npm run load` writes it (to a
 * temporary file renamed over the target): the server loads such a snapshot in pieces.
 */
async function writeEdition(k: number, target: string): Promise<void> {
  const source = `${target}.edition-${k}.nt`;
  fs.writeFileSync(source, edition(k));
  const loaded = await loadSources([source], { baseIri: BASE });
  await writeSnapshot(loaded, target);
  loaded.dataset.free();
  fs.rmSync(source);
}

/** Replaces `target` with a broken snapshot: edition `k` with a statement cut off at a known line. */
async function writeBroken(k: number, target: string): Promise<number> {
  const side = `${target}.broken`;
  await writeEdition(k, side);
  const lines = fs.readFileSync(side, 'utf8').split('\n');
  const line = Math.floor(lines.length / 2);
  lines.splice(
    line - 1,
    0,
    `<${BASE}/resource/organisations/DE-RT1> <http://xmlns.com/foaf/0.1/name> "cut off`,
  );
  fs.writeFileSync(side, lines.join('\n'));
  fs.renameSync(side, target);
  return line;
}

/** The editions named in a body (`edition k`, as many times as it says it). */
function editionsIn(body: string): Set<number> {
  return new Set([...body.matchAll(/edition (\d+)/g)].map((m) => Number(m[1])));
}

describe('reload', () => {
  describe('in the process', () => {
    let dir: string;
    let snapshot: string;
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger('info', {
      write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
    });
    const messages = (msg: string) => lines.filter((l) => l.msg === msg);
    let service: Service;

    before(async () => {
      dir = tempDir();
      snapshot = path.join(dir, 'dataset.nq');
      await writeEdition(1, snapshot);
      service = new Service(testConfig({ DATASET: snapshot }));
      await loadInto(service, logger, inProcessStore);
    });
    after(() => {
      service.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('a render begun before a swap finishes from its own dataset after that store is freed', async () => {
      const documents = service.current!;
      const found = documents.dataset.lookup('DE-RT1' as Isil);
      assert.equal(found.kind, 'found');
      const institution = found.institution;
      const next = await loadSources([snapshot], { baseIri: BASE });
      // The page awaits its JSON-LD before it is written: the swap happens in that gap.
      const pending = documents.get(BASE, institution, 'html', {
        status: 200,
        headers: () => ({}),
      });
      service.use(next.dataset);
      // The swap frees the previous store a turn later; here it is freed before the render goes on.
      documents.dataset.free();
      assert.throws(() => documents.dataset.describe(institution), /freed/);
      assert.deepEqual(editionsIn((await pending).body.toString()), new Set([1]));
    });

    it('the swap frees the previous store on the next turn of the event loop', async () => {
      const previous = service.current!.dataset;
      const found = previous.lookup('DE-RT2' as Isil);
      assert.equal(found.kind, 'found');
      service.use((await loadSources([snapshot], { baseIri: BASE })).dataset);
      assert.ok((await previous.describe(found.institution)).quads.length > 0);
      await new Promise((resolve) => setImmediate(resolve));
      assert.throws(() => previous.describe(found.institution), /freed/);
    });

    it('work held on the documents (an OAI-PMH list, a feed page) keeps their store past a swap', async () => {
      const documents = service.current!;
      const found = documents.dataset.lookup('DE-RT1' as Isil);
      assert.equal(found.kind, 'found');
      const next = await loadSources([snapshot], { baseIri: BASE });
      const held = documents.hold(async () => {
        service.use(next.dataset);
        // Past the turn on which the swap retires the previous documents.
        await new Promise((resolve) => setImmediate(resolve));
        await new Promise((resolve) => setImmediate(resolve));
        return documents.dataset.describe(found.institution);
      });
      assert.ok((await held).quads.length > 0);
      // Freed once the held work settled.
      assert.throws(() => documents.dataset.describe(found.institution), /freed/);
    });

    it('SIGHUPs during a reload are coalesced into one more reload after it', async () => {
      const before = lines.length;
      const reloader = new Reloader(service, logger, inProcessStore);
      await writeEdition(2, snapshot);
      const first = reloader.reload();
      const second = reloader.reload();
      const third = reloader.reload();
      await Promise.all([first, second, third]);
      const since = lines
        .slice(before)
        .filter((l) => /reload/.test(l.msg as string))
        .map((l) => l.msg);
      assert.deepEqual(since, [
        'reload started',
        'reload asked for while a load runs: one more reload follows it',
        'reload finished',
        'reload started',
        'reload finished',
      ]);
      assert.equal(service.current!.dataset.lookup('DE-RT1' as Isil).kind, 'found');
    });

    it('a SIGHUP during the first load is a reload after it', async () => {
      const before = lines.length;
      const fresh = new Service(testConfig({ DATASET: snapshot }));
      const reloader = new Reloader(fresh, logger, inProcessStore);
      const started = reloader.start();
      await reloader.reload();
      await started;
      assert.deepEqual(
        lines
          .slice(before)
          .filter((l) => l.msg !== 'request')
          .map((l) => l.msg),
        [
          'reload asked for while a load runs: one more reload follows it',
          'dataset loaded',
          'reload started',
          'reload finished',
        ],
      );
      fresh.close();
    });

    it('a SIGHUP before the first load began is a reload after it', async () => {
      const before = lines.length;
      const fresh = new Service(testConfig({ DATASET: snapshot }));
      const reloader = new Reloader(fresh, logger, inProcessStore);
      await reloader.reload();
      assert.equal(fresh.current, undefined, 'nothing loaded before the first load');
      await reloader.start();
      assert.deepEqual(
        lines
          .slice(before)
          .filter((l) => l.msg !== 'request')
          .map((l) => l.msg),
        ['dataset loaded', 'reload started', 'reload finished'],
      );
      fresh.close();
    });

    it('a broken snapshot: the served dataset stays, the log says where and why', async () => {
      const served = service.current!;
      const line = await writeBroken(3, snapshot);
      await new Reloader(service, logger, inProcessStore).reload();
      assert.equal(service.current, served);
      const failed = messages('reload refused').at(-1)!;
      assert.equal(failed.level, 50);
      assert.equal(failed.file, snapshot);
      assert.equal(failed.line, line);
      assert.equal(failed.serving, served.dataset.version);
      const institution = served.dataset.lookup('DE-RT1' as Isil);
      assert.equal(institution.kind, 'found');
      assert.ok((await served.dataset.describe(institution.institution)).quads.length > 0);
    });

    it('documents name their dataset version; an unchanged record keeps its ETag across a reload', async () => {
      const app = createApp({ service, logger: createLogger('silent') });
      const unchangedTtl = `/data/organisations/${unchangedIsils[0]}.ttl`;
      const before = await request(app).get(unchangedTtl);
      const version = service.current!.dataset.version;
      assert.equal(before.headers['dataset-version'], version);
      const revalidated = await request(app)
        .get(unchangedTtl)
        .set('If-None-Match', before.headers.etag!);
      assert.equal(revalidated.status, 304);
      assert.equal(revalidated.headers['dataset-version'], version);
      await writeEdition(4, snapshot);
      await new Reloader(service, logger, inProcessStore).reload();
      const after = await request(app).get(unchangedTtl);
      assert.notEqual(after.headers['dataset-version'], version);
      assert.equal(after.headers['dataset-version'], service.current!.dataset.version);
      assert.equal(after.headers.etag, before.headers.etag);
      const page = await request(app).get('/isil/DE-RT1');
      assert.equal(page.headers['dataset-version'], service.current!.dataset.version);
      assert.deepEqual(editionsIn(page.text), new Set([4]));
    });

    it('reload finished names the new version, its institutions and the time it took', () => {
      const finished = messages('reload finished').at(-1)!;
      assert.equal(finished.version, service.current!.dataset.version);
      assert.equal(finished.institutions, UNCHANGED + MARKED);
      assert.equal(typeof finished.ms, 'number');
    });
  });

  describe('the server under a stream of requests, reloaded three times (once broken)', function () {
    this.timeout(120_000);
    let dir: string;
    let snapshot: string;
    let child: ChildProcess;
    let base: string;
    const lines: LogLine[] = [];
    const waiters: {
      from: number;
      test: (l: Record<string, unknown>) => boolean;
      resolve: (l: Record<string, unknown>) => void;
      reject: (e: Error) => void;
    }[] = [];

    /** The first log line from index `from` on that passes `test`. */
    function logLine(from: number, test: (l: Record<string, unknown>) => boolean) {
      const seen = lines.slice(from).find(test);
      if (seen) return Promise.resolve(seen);
      return new Promise<Record<string, unknown>>((resolve, reject) =>
        waiters.push({ from, test, resolve, reject }),
      );
    }

    before(async () => {
      dir = tempDir();
      snapshot = path.join(dir, 'dataset.nq');
      await writeEdition(1, snapshot);
      child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
        env: serverEnv({ DATASET: snapshot }),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      child.once('exit', (code) => {
        for (const w of waiters.splice(0)) w.reject(new Error(`the server exited (${code})`));
      });
      onLogLines(child.stdout!, (line) => {
        lines.push(line);
        for (const w of [...waiters]) {
          if (lines.length - 1 >= w.from && w.test(line)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(line);
          }
        }
      });
      const listening = await logLine(0, (l) => l.msg === 'listening');
      base = `http://127.0.0.1:${(listening.address as { port: number }).port}`;
      await logLine(0, (l) => l.msg === 'dataset loaded');
    });

    after(() => {
      child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    });

    interface Answer {
      readonly path: string;
      readonly status: number;
      readonly version: string | undefined;
      readonly etag: string | undefined;
      readonly body: string;
    }

    function get(agent: http.Agent, urlPath: string): Promise<Answer> {
      return new Promise((resolve, reject) => {
        const req = http.get(`${base}${urlPath}`, { agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              path: urlPath,
              status: res.statusCode!,
              version: res.headers[DATASET_VERSION.toLowerCase()] as string | undefined,
              etag: res.headers.etag,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', reject);
        });
        req.on('error', reject);
      });
    }

    /** What each client asks for, in turn: every document kind of the marked and unchanged institutions. */
    const PATHS: readonly string[] = [
      ...Array.from({ length: MARKED }, (_, i) => i + 1).flatMap((i) => [
        `/data/organisations/DE-RT${i}.ttl`,
        `/data/organisations/DE-RT${i}.nt`,
        `/data/organisations/DE-RT${i}.jsonld`,
        `/data/organisations/DE-RT${i}.rdf`,
        `/isil/DE-RT${i}`,
      ]),
      ...unchangedIsils.map((isil) => `/data/organisations/${isil}.ttl`),
    ];

    it('answers every request from one edition, sees each good reload, keeps the old data after the broken one', async () => {
      const answers: Answer[] = [];
      const failures: string[] = [];
      let stop = false;
      const client = async (n: number) => {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        for (let i = n; !stop; i++) {
          try {
            answers.push(await get(agent, PATHS[i % PATHS.length]!));
          } catch (error) {
            failures.push(`${PATHS[i % PATHS.length]}: ${(error as Error).message}`);
          }
        }
        agent.destroy();
      };
      /**
       * Requests made between steps: enough that each client, walking PATHS from where it is,
       * asks for every document in every edition (a fast reload leaves few requests during it).
       */
      const BETWEEN = 6 * PATHS.length;
      /** Resolves once the clients have made `more` further requests. */
      const requests = async (more: number) => {
        const target = answers.length + failures.length + more;
        while (answers.length + failures.length < target) await new Promise((r) => setImmediate(r));
      };
      const readyVersion = async () =>
        ((await (await fetch(`${base}/readyz`)).json()) as { version: string }).version;
      /** One fresh look at a marked document: the edition it shows. */
      const shown = async () =>
        editionsIn(await (await fetch(`${base}/data/organisations/DE-RT7.nt`)).text());

      const versions = new Map<string, number>([[await readyVersion(), 1]]);
      const clients = [0, 1, 2, 3].map((n) => client(n * 17));
      await requests(BETWEEN);

      /** Replaces the snapshot, sends SIGHUP, and waits for the log line that ends the reload. */
      const reload = async (write: () => Promise<unknown>) => {
        const written = await write();
        const from = lines.length;
        child.kill('SIGHUP');
        const end = await logLine(
          from,
          (l) => l.msg === 'reload finished' || l.msg === 'reload refused',
        );
        const started = lines.findIndex((l, i) => i >= from && l.msg === 'reload started');
        const during = lines.slice(started, lines.indexOf(end)).filter((l) => l.msg === 'request');
        await requests(BETWEEN);
        return { end, during: during.length, written };
      };

      const second = await reload(() => writeEdition(2, snapshot));
      assert.equal(second.end.msg, 'reload finished');
      versions.set(second.end.version as string, 2);
      assert.equal(await readyVersion(), second.end.version);
      assert.deepEqual(await shown(), new Set([2]));

      const failed = await reload(() => writeBroken(3, snapshot));
      assert.equal(failed.end.msg, 'reload refused');
      assert.equal(failed.end.level, 50);
      assert.equal(failed.end.file, snapshot);
      assert.equal(failed.end.line, failed.written);
      assert.equal(await readyVersion(), second.end.version);
      assert.deepEqual(await shown(), new Set([2]));

      const third = await reload(() => writeEdition(3, snapshot));
      assert.equal(third.end.msg, 'reload finished');
      versions.set(third.end.version as string, 3);
      assert.deepEqual(await shown(), new Set([3]));

      stop = true;
      await Promise.all(clients);

      assert.deepEqual(failures, []);
      assert.equal(versions.size, 3, 'three editions, three versions');
      for (const a of answers) {
        assert.equal(a.status, 200, `${a.path}: ${a.status}`);
        const k = versions.get(a.version!);
        assert.ok(k !== undefined, `${a.path}: version ${a.version} is one of the editions`);
        if (a.path.includes('DE-RT')) assert.deepEqual(editionsIn(a.body), new Set([k]), a.path);
        else assert.equal(editionsIn(a.body).size, 0, a.path);
      }
      const seen = new Set(answers.map((a) => versions.get(a.version!)));
      assert.deepEqual(seen, new Set([1, 2, 3]), 'every edition was served');
      // Requests were answered while each good reload ran (the broken one may fail at once).
      assert.ok(second.during > 0, `${second.during} answered during the first reload`);
      assert.ok(third.during > 0, `${third.during} answered during the third reload`);
      // The unchanged institutions' documents kept their ETags across the reloads.
      for (const isil of unchangedIsils) {
        const mine = answers.filter((a) => a.path === `/data/organisations/${isil}.ttl`);
        assert.equal(new Set(mine.map((a) => a.etag)).size, 1, isil);
        assert.ok(
          new Set(mine.map((a) => a.version)).size > 1,
          `${isil} was served from several editions`,
        );
      }
    });
  });
});
