// What was served immutable stays served (docs/history.md, "The first version"): a server serves a
// snapshot without a change log (a history of its own, at its data's time); `npm run load` of the
// same sources writes the first log, and after SIGHUP every memento, feed page and date it served
// is the same. A first load of another version says that its history starts anew.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { generate } from '../../../src/generate/generated';
import { LOG_FILE, readLog } from '../../../src/history/log';
import { PROJECT_ROOT } from '../../../src/util/paths';
import { BASE, tempDir } from '../../support';
import { startServerProcess, type ServerProcess } from '../../support/serverProcess';

/** `npm run load` of `source` as an operator runs it, with `env` over the test's; its stdout. */
function load(source: string, env: Record<string, string>, ...options: string[]): string {
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(PROJECT_ROOT, 'cli', 'loadCommand.ts'),
      '--quiet',
      ...options,
      source,
    ],
    { env: { ...process.env, BASE_IRI: BASE, ...env }, encoding: 'utf8' },
  );
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

function writeSource(dir: string, name: string, count: number): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, [...generate({ count, seed: 7, base: BASE })].join(''));
  return file;
}

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly lastModified: string | null;
}

describe('a first load of the version served keeps what was served', function () {
  this.timeout(240_000);
  let dir: string;
  let dataset: string;
  let server: ServerProcess;
  let urls: string[];
  const served: Answer[] = [];
  const reloaded: Answer[] = [];
  let report: string;

  const get = async (url: string): Promise<Answer> => {
    const response = await fetch(`http://127.0.0.1:${server.port}${url}`, {
      headers: { accept: url.startsWith('/feed') ? 'application/trig' : 'text/turtle' },
    });
    return {
      status: response.status,
      body: await response.text(),
      lastModified: response.headers.get('last-modified'),
    };
  };
  const earliest = (answer: Answer) =>
    /<earliestDatestamp>([^<]+)</.exec(answer.body)?.[1] ?? answer.body;

  before(async () => {
    dir = tempDir();
    dataset = path.join(dir, 'dataset.nq');
    const source = writeSource(dir, 'registry.nt', 30);
    // A snapshot written without a log: served with a history of its own.
    load(source, { DATASET: dataset, HISTORY_DIR: '' });
    server = await startServerProcess({ env: { DATASET: dataset } });
    const timemap = (await (
      await fetch(`http://127.0.0.1:${server.port}/timemap/data/organisations/DE-620.ttl`, {
        headers: { accept: 'application/json' },
      })
    ).json()) as { mementos: { first: { uri: string } } };
    const memento = new URL(timemap.mementos.first.uri).pathname;
    const stamp = /\/memento\/(\d{14})\//.exec(memento)![1]!;
    urls = [
      memento,
      `/feed/${stamp}/1`,
      '/feed',
      '/data/organisations/DE-620.ttl',
      '/oai?verb=Identify',
    ];
    for (const url of urls) served.push(await get(url));
    // The same sources, now with the log beside the snapshot (HISTORY_DIR: DATASET's folder).
    report = load(source, { DATASET: dataset });
    server.child.kill('SIGHUP');
    await server.line((l) => l.msg === 'reload finished', 120_000);
    for (const url of urls) reloaded.push(await get(url));
  });
  after(async () => {
    server?.child.kill('SIGKILL');
    await server?.exit;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('served the memento and the feed page before the load', () => {
    assert.equal(served[0]!.status, 200);
    assert.equal(served[1]!.status, 200);
  });

  it('serves the same memento, byte for byte', () => {
    assert.deepEqual(reloaded[0], served[0]);
  });

  it("serves the same page of the version's feed, byte for byte", () => {
    assert.deepEqual(reloaded[1], served[1]);
  });

  it('serves the same feed root', () => {
    assert.deepEqual(reloaded[2], served[2]);
  });

  it("keeps the document's Last-Modified", () => {
    assert.ok(served[3]!.lastModified);
    assert.equal(reloaded[3]!.lastModified, served[3]!.lastModified);
  });

  it("keeps OAI-PMH's earliestDatestamp", () => {
    assert.equal(earliest(reloaded[4]!), earliest(served[4]!));
  });

  it('logs the version at the time it was served at, and the report says so', () => {
    const log = readLog(path.join(dir, LOG_FILE))!;
    assert.equal(log.versions.length, 1);
    const stamp = /\/feed\/(\d{14})\//.exec(urls[1]!)![1]!;
    const time = new Date(log.versions[0]!.time * 1000).toISOString();
    assert.equal(time.replace(/[-:T]|\.000Z/g, ''), stamp);
    assert.match(report, /the time the version was served at before/);
  });
});

describe('a first load of another version than the one served', function () {
  this.timeout(240_000);
  let dir: string;
  let server: ServerProcess;
  let first: string;
  let report: string;
  let memento: string;
  let page: string;
  const answers: [Answer, Answer][] = [];
  const get = async (url: string): Promise<Answer> => {
    const response = await fetch(`http://127.0.0.1:${server.port}${url}`);
    return {
      status: response.status,
      body: await response.text(),
      lastModified: response.headers.get('last-modified'),
    };
  };
  before(async () => {
    dir = tempDir();
    const dataset = path.join(dir, 'dataset.nq');
    first = load(writeSource(dir, 'first.nt', 30), { DATASET: dataset, HISTORY_DIR: '' });
    server = await startServerProcess({ env: { DATASET: dataset } });
    const timemap = (await (
      await fetch(`http://127.0.0.1:${server.port}/timemap/data/organisations/DE-620.ttl`, {
        headers: { accept: 'application/json' },
      })
    ).json()) as { mementos: { first: { uri: string } } };
    memento = new URL(timemap.mementos.first.uri).pathname;
    page = `/feed/${/\/memento\/(\d{14})\//.exec(memento)![1]!}/1`;
    const served = [await get(memento), await get(page)];
    report = load(writeSource(dir, 'second.nt', 31), { DATASET: dataset });
    server.child.kill('SIGHUP');
    await server.line((l) => l.msg === 'reload finished', 120_000);
    answers.push([served[0]!, await get(memento)], [served[1]!, await get(page)]);
  });
  after(async () => {
    server?.child.kill('SIGKILL');
    await server?.exit;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('logs the version served before first, as it was served, and the report says so', () => {
    const served = /version ([0-9a-f]{12})/.exec(first)![1]!;
    const log = readLog(path.join(dir, LOG_FILE))!;
    assert.deepEqual(
      log.versions.map((v) => v.version),
      [served, /version ([0-9a-f]{12})\)/.exec(report)![1]!],
    );
    assert.match(report, new RegExp(`after version ${served}, served before without a change log`));
  });

  it("serves the old version's memento as before, byte for byte", () => {
    assert.equal(answers[0]![0].status, 200);
    assert.deepEqual(answers[0]![1], answers[0]![0]);
  });

  it("serves the old version's feed page still (no longer the newest: now immutable)", () => {
    assert.equal(answers[1]![0].status, 200);
    assert.equal(answers[1]![1].status, 200);
  });
});

describe('a deliberate reset of the history (--reset-history)', function () {
  this.timeout(240_000);
  let dir: string;
  let server: ServerProcess;
  let report: string;
  let served: number;
  const stamp = (seconds: number) =>
    new Date(seconds * 1000).toISOString().replace(/[-:T]|\.000Z/g, '');
  before(async () => {
    dir = tempDir();
    const dataset = path.join(dir, 'dataset.nq');
    const source = writeSource(dir, 'registry.nt', 30);
    load(source, { DATASET: dataset, HISTORY_DIR: '' });
    load(source, { DATASET: dataset });
    served = readLog(path.join(dir, LOG_FILE))!.versions[0]!.time;
    report = load(source, { DATASET: dataset }, '--reset-history');
    server = await startServerProcess({ env: { DATASET: dataset } });
  });
  after(async () => {
    server?.child.kill('SIGKILL');
    await server?.exit;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('starts the log anew at the time of the load, keeping the old one beside it', () => {
    const log = readLog(path.join(dir, LOG_FILE))!;
    assert.equal(log.versions.length, 1);
    assert.ok(log.versions[0]!.time > served);
    const aside = /kept as (\S+);/.exec(report)?.[1];
    assert.ok(aside && fs.existsSync(aside), report);
    assert.equal(readLog(aside)!.versions[0]!.time, served);
  });

  it("answers the old version's feed page 410 and its memento 404", async () => {
    const base = `http://127.0.0.1:${server.port}`;
    assert.equal((await fetch(`${base}/feed/${stamp(served)}/1`)).status, 410);
    const memento = `${base}/memento/${stamp(served)}/data/organisations/DE-620.ttl`;
    assert.equal((await fetch(memento)).status, 404);
  });
});
