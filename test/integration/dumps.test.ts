// The dumps of a dataset version: made in the background, listed with size and SHA-256,
// each file whole and right when read back with real parsers (N-Triples with n3, JSON-LD lines with
// jsonld-streaming-parser), served with validators and ranges; nothing half-made is listed.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import request from 'supertest';
import type { Express } from 'express';
import type { Quad } from 'n3';
import { generate } from '../../cli/generate';
import { loadSources } from '../../src/load/loadSources';
import { Dumps } from '../../src/documents/versionDumps';
import type { Service } from '../../src/documents/service';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { PROJECT_ROOT } from '../../src/util/paths';
import {
  BASE,
  buildApp,
  PUBLIC,
  parseJsonLd,
  parseTurtle,
  sameGraph,
  tempDir,
  needsThirdParty,
} from '../support';

const VOID = 'http://rdfs.org/ns/void#';

/** The bytes of a supertest answer, whatever its type. */
function binary(
  res: request.Response,
  callback: (error: Error | null, body: Buffer) => void,
): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}

/** The triples of `quads` about the IRIs `subjects` and the blank nodes they reach. */
function around(quads: readonly Quad[], subjects: readonly string[]): Quad[] {
  const out: Quad[] = [];
  const seen = new Set<string>();
  const walk = (node: string) => {
    if (seen.has(node)) return;
    seen.add(node);
    for (const q of quads)
      if (
        (q.subject.termType === 'BlankNode' ? `_:${q.subject.value}` : q.subject.value) === node
      ) {
        out.push(q);
        if (q.object.termType === 'BlankNode') walk(`_:${q.object.value}`);
      }
  };
  for (const subject of subjects) walk(subject);
  return out;
}

describe('dumps', function () {
  before(needsThirdParty);
  this.timeout(120_000);
  let app: Express;
  let service: Service;
  let dir: string;
  before(async () => {
    dir = tempDir();
    ({ app, service } = await buildApp(BUNDLED_DATASET, { DUMPS_DIR: dir }));
    await service.dumps.ensure();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("lists the version's files with size and SHA-256, and serves each as listed", async () => {
    const list = await request(app).get('/dumps/').set('Accept', 'application/json').expect(200);
    const [set] = list.body.dumps;
    const dataset = service.current!.dataset;
    assert.equal(set.version, dataset.version);
    assert.equal(set.institutions, dataset.institutionCount);
    assert.deepEqual(
      set.files.map((f: { format: string }) => f.format),
      ['nt', 'jsonl', 'csv', 'history', ...Array(4).fill(['changes', 'changes-nt']).flat()],
    );
    for (const file of set.files) {
      assert.match(file.name, new RegExp(`^isil-ld_\\d{4}-\\d{2}-\\d{2}_${dataset.version}\\.`));
      const res = await request(app)
        .get(`/dumps/${file.name}`)
        .buffer(true)
        .parse(binary)
        .expect(200);
      assert.equal(res.body.length, file.bytes);
      assert.equal(createHash('sha256').update(res.body).digest('hex'), file.sha256);
      assert.equal(res.headers.etag, `"${file.sha256}"`);
      assert.ok(res.headers['last-modified']);
      assert.equal(res.headers['accept-ranges'], 'bytes');
    }
    assert.deepEqual(
      fs.readdirSync(dir).filter((f) => f.endsWith('.part')),
      [],
    );
    const html = await request(app).get('/dumps/?lang=en').expect(200);
    assert.match(html.text, /SHA-256 <code>[0-9a-f]{64}<\/code>/);
  });

  it("holds the version's history: every event, with the description a creation serves", async () => {
    const { history } = service.current!.dataset;
    const file = fs.readdirSync(dir).find((f) => f.endsWith('.history.jsonl.gz'))!;
    const lines = zlib
      .gunzipSync(fs.readFileSync(path.join(dir, file)))
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map(
        (line) =>
          JSON.parse(line) as { event: string; isil: string; hash?: string; description?: string },
      );
    assert.ok(lines.length > 0);
    assert.equal(lines.length, history.size);
    for (const line of lines.slice(0, 50)) {
      assert.equal(
        line.event === 'created' || line.event === 'updated',
        line.description !== undefined,
      );
      if (line.description)
        assert.match(line.description, new RegExp(`organisations/${line.isil}>`));
    }
  });

  it('holds every description, each with blank nodes of its own, as the documents give it', async () => {
    const [set] = service.dumps.list();
    const nt = set!.files.find((f) => f.format === 'nt')!;
    const text = zlib.gunzipSync(fs.readFileSync(path.join(dir, nt.name))).toString('utf8');
    const quads = parseTurtle(text, 'application/n-triples');
    assert.equal(quads.length, set!.triples);
    for (const isil of ['DE-1a', 'DE-38', 'DE-Tue120']) {
      const doc = await request(app).get(`/data/organisations/${isil}.nt`).expect(200);
      const expected = parseTurtle(doc.text, 'application/n-triples');
      const subjects = new Set(
        expected.filter((q) => q.subject.termType === 'NamedNode').map((q) => q.subject.value),
      );
      const got = around(quads, [...subjects]);
      assert.ok(sameGraph(got, expected), isil);
    }
    const jsonl = set!.files.find((f) => f.format === 'jsonl')!;
    const lines = zlib
      .gunzipSync(fs.readFileSync(path.join(dir, jsonl.name)))
      .toString('utf8')
      .trimEnd()
      .split('\n');
    assert.equal(lines.length, set!.institutions);
    const line = lines.find(
      (l) => JSON.parse(l)['@id'] === `${BASE}/resource/organisations/DE-1a`,
    )!;
    const doc = await request(app).get('/data/organisations/DE-1a.nt').expect(200);
    assert.ok(sameGraph(await parseJsonLd(line), parseTurtle(doc.text, 'application/n-triples')));
    const csv = set!.files.find((f) => f.format === 'csv')!;
    const rows = fs.readFileSync(path.join(dir, csv.name), 'utf8').trimEnd().split('\r\n');
    assert.equal(rows[0], 'isil,name,sigel,postcode,city,type,lat,lon,uri');
    assert.equal(rows.length, set!.institutions + 1);
  });

  it('is named in VoID, file by file; VoID, /readyz and docs/data.md count the same triples', async () => {
    // VoID named no dump, and docs/data.md had other figures than the service counted.
    const [set] = service.dumps.list();
    const dataset = service.current!.dataset;
    const quads = parseTurtle((await request(app).get('/.well-known/void').expect(200)).text);
    const ds = `${BASE}/.well-known/void#dataset`;
    const of = (p: string) =>
      quads
        .filter((q) => q.subject.value === ds && q.predicate.value === p)
        .map((q) => q.object.value);
    assert.deepEqual(
      of(`${VOID}dataDump`).sort(),
      set!.files
        .filter((f) => !f.period)
        .map((f) => `${PUBLIC}/dumps/${f.name}`)
        .sort(),
    );
    const ready = await request(app).get('/readyz').expect(200);
    assert.deepEqual(of(`${VOID}triples`), [String(ready.body.triples)]);
    assert.equal(ready.body.triples, dataset.tripleCount);
    const data = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'data.md'), 'utf8');
    const figures =
      /The result: ([\d,]+) institutions and ([\d,]+) withdrawn ISILs, ([\d,]+) triples/.exec(data);
    assert.ok(figures, "docs/data.md gives the bundled dataset's figures");
    const number = (text: string) => Number(text.replace(/,/g, ''));
    assert.deepEqual(figures.slice(1).map(number), [
      dataset.institutionCount,
      dataset.withdrawnCount,
      dataset.tripleCount,
    ]);
  });

  it('answers ranges and conditional requests, and nothing outside its list', async () => {
    const [set] = service.dumps.list();
    const file = set!.files[0]!;
    const whole = fs.readFileSync(path.join(dir, file.name));
    const part = await request(app)
      .get(`/dumps/${file.name}`)
      .set('Range', 'bytes=100-199')
      .buffer(true)
      .parse(binary)
      .expect(206);
    assert.deepEqual(part.body, whole.subarray(100, 200));
    assert.equal(part.headers['content-range'], `bytes 100-199/${whole.length}`);
    await request(app)
      .get(`/dumps/${file.name}`)
      .set('If-None-Match', `"${file.sha256}"`)
      .expect(304);
    await request(app)
      .get(`/dumps/${file.name}`)
      .set('Range', `bytes=${whole.length + 10}-`)
      .expect(416);
    for (const bad of [
      '/dumps/../package.json',
      '/dumps/%2e%2e%2fpackage.json',
      '/dumps/x.nt.gz',
      `/dumps/${file.name}.part`,
      `/dumps/${file.name.replace('.nt.gz', '.json')}`,
    ])
      await request(app).get(bad).expect(404);
  });

  it('lists nothing half-made: a version replaced while its dumps are written leaves no file', async () => {
    const own = tempDir();
    try {
      const { dataset } = await loadSources(BUNDLED_DATASET, { baseIri: BASE });
      const dumps = new Dumps(own, `${BASE}/context.jsonld`);
      dumps.follow(dataset);
      const making = dumps.ensure();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const { dataset: next } = await loadSources([BUNDLED_DATASET[2]!], { baseIri: BASE });
      dumps.follow(next); // the first is given up
      dataset.free();
      await making;
      assert.ok(dumps.list().every((s) => s.version !== dataset.version));
      assert.deepEqual(
        fs.readdirSync(own).filter((f) => f.includes(dataset.version)),
        [],
      );
      await dumps.ensure();
      assert.equal(dumps.list()[0]!.version, next.version);
      // A service started again finds the dumps made before, and makes none twice.
      const again = new Dumps(own, `${BASE}/context.jsonld`);
      assert.deepEqual(again.list(), dumps.list());
      next.free();
    } finally {
      fs.rmSync(own, { recursive: true, force: true });
    }
  });

  it('a folder it cannot use stops the dumps, not the service; a failure is told, and tried again later', async () => {
    const file = path.join(dir, 'not-a-folder');
    fs.writeFileSync(file, '');
    const { app: served, service: own } = await buildApp([BUNDLED_DATASET[2]!], {
      DUMPS_DIR: path.join(file, 'dumps'),
    });
    assert.match(own.dumps.unusable!, /cannot be used/);
    assert.equal(own.dumps.state, 'failed');
    assert.equal(await own.dumps.ensure(), undefined);
    await request(served).get('/dumps/').expect(404);
    await request(served).get('/isil/DE-1a').expect(200);
    const ready = await request(served).get('/readyz').expect(200);
    assert.equal(ready.body.dumps, 'failed');
    // A version whose store fails under the dumps: "failed", not "making" for ever.
    const other = tempDir();
    try {
      const { dataset } = await loadSources([BUNDLED_DATASET[2]!], { baseIri: BASE });
      const failures: string[] = [];
      const dumps = new Dumps(other, `${BASE}/context.jsonld`, {
        onFailed: (version) => failures.push(version),
      });
      dumps.follow(dataset);
      dataset.free();
      await dumps.ensure();
      assert.equal(dumps.state, 'failed');
      assert.deepEqual(failures, [dataset.version]);
      assert.deepEqual(
        fs.readdirSync(other).filter((f) => f.endsWith('.part')),
        [],
      );
      await dumps.ensure(); // too soon to try again
      assert.equal(failures.length, 1);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('makes none when DUMPS_DIR is empty, and says so', async () => {
    const { app: none } = await buildApp([BUNDLED_DATASET[2]!], { DUMPS_DIR: '' });
    const res = await request(none).get('/dumps/').expect(404);
    assert.match(res.text, /DUMPS_DIR/);
  });
});

/** A dataset of `count` generated institutions in a file of its own, under `dir`. */
function generatedDataset(dir: string, count: number): string {
  const file = path.join(dir, 'generated.nt');
  fs.writeFileSync(file, [...generate({ count, seed: 7, base: BASE })].join(''));
  return file;
}

describe('a DUMPS_DIR below a folder whose name starts with a dot', function () {
  this.timeout(60_000);
  it('serves its dumps (a name is looked up among the dumps made, never read from the path)', async () => {
    const dir = tempDir();
    try {
      const { app, service } = await buildApp([generatedDataset(dir, 5)], {
        DUMPS_DIR: path.join(dir, '.local', 'dumps'),
      });
      await service.dumps.ensure();
      const file = service.dumps.list()[0]!.files[0]!;
      const res = await request(app).get(`/dumps/${file.name}`).buffer(true).parse(binary);
      assert.equal(res.status, 200);
      assert.equal(res.body.length, file.bytes);
      service.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a dump asked for with preconditions and ranges (RFC 9110 §13)', function () {
  this.timeout(60_000);
  let app: Express;
  let dir: string;
  let file: { name: string; sha256: string; bytes: number };
  let whole: Buffer;
  let lastModified: string;
  const url = () => `/dumps/${file.name}`;
  before(async () => {
    dir = tempDir();
    let service: Service;
    ({ app, service } = await buildApp([generatedDataset(dir, 20)], {
      DUMPS_DIR: path.join(dir, 'dumps'),
    }));
    await service.dumps.ensure();
    file = service.dumps.list()[0]!.files[0]!;
    whole = fs.readFileSync(path.join(dir, 'dumps', file.name));
    lastModified = (await request(app).head(url()).expect(200)).headers['last-modified']!;
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const get = () => request(app).get(url()).buffer(true).parse(binary);

  for (const [header, value] of [
    ['If-Match', '"0000"'],
    ['If-Match', 'W/"<sha>"'],
    ['If-Unmodified-Since', 'Thu, 01 Jan 1970 00:00:00 GMT'],
  ] as const)
    it(`answers 412 with a short body to ${header}: ${value}`, async () => {
      const res = await request(app)
        .get(url())
        .set('Accept', 'text/plain')
        .set(header, value.replace('<sha>', file.sha256))
        .expect(412);
      assert.match(res.text, /precondition/);
      assert.equal(res.headers['content-disposition'], undefined);
      assert.match(res.headers['content-type']!, /^text\/plain/);
    });

  it('serves the file to If-Match with its own tag, or *, and to If-Unmodified-Since after it', async () => {
    for (const [header, value] of [
      ['If-Match', `"${file.sha256}"`],
      ['If-Match', `"0000", "${file.sha256}"`],
      ['If-Match', '*'],
      ['If-Unmodified-Since', lastModified],
    ])
      assert.equal((await get().set(header!, value!).expect(200)).body.length, file.bytes);
  });

  it('serves the range when If-Range is its strong tag or its Last-Modified', async () => {
    for (const value of [`"${file.sha256}"`, lastModified]) {
      const res = await get().set('Range', 'bytes=10-19').set('If-Range', value).expect(206);
      assert.deepEqual(res.body, whole.subarray(10, 20));
    }
  });

  it('serves the whole file when If-Range is a weak tag (never a match for ranges), another tag or another date', async () => {
    for (const value of [
      `W/"${file.sha256}"`,
      '"0000"',
      'Thu, 01 Jan 1970 00:00:00 GMT',
      'not a date',
    ]) {
      const res = await get().set('Range', 'bytes=10-19').set('If-Range', value).expect(200);
      assert.equal(res.body.length, file.bytes, value);
      assert.equal(res.headers['content-range'], undefined, value);
    }
  });

  it('answers a range past the end 416 with the size and a short body', async () => {
    const res = await request(app)
      .get(url())
      .set('Accept', 'text/plain')
      .set('Range', `bytes=${file.bytes + 10}-`)
      .expect(416);
    assert.equal(res.headers['content-range'], `bytes */${file.bytes}`);
    assert.match(res.text, /range/);
    assert.equal(res.headers['content-disposition'], undefined);
  });

  it('answers a listed file that went from the disk 404 with a short body', async () => {
    const gone = path.join(dir, 'dumps', file.name);
    fs.renameSync(gone, `${gone}.away`);
    try {
      const res = await request(app)
        .get(url())
        .set('Accept', 'text/html')
        .set('Accept-Language', 'en')
        .expect(404);
      assert.match(res.text, /<p>The dump .* is no longer kept\.<\/p>/);
      assert.equal(res.headers['content-disposition'], undefined);
    } finally {
      fs.renameSync(`${gone}.away`, gone);
    }
  });
});

describe('VoID and the dumps', function () {
  this.timeout(60_000);

  it('names no dump before there is one, and every file of the newest set once they are made', async () => {
    const dir = tempDir();
    const { app, service } = await buildApp([generatedDataset(dir, 5)], {
      DUMPS_DIR: path.join(dir, 'dumps'),
    });
    const before = await request(app).get('/.well-known/void').expect(200);
    assert.doesNotMatch(before.text, /dataDump/);
    const set = await service.dumps.ensure();
    const after = await request(app).get('/.well-known/void').expect(200);
    assert.notEqual(after.headers.etag, before.headers.etag);
    const dumps = parseTurtle(after.text)
      .filter((q) => q.predicate.value === `${VOID}dataDump`)
      .map((q) => q.object.value);
    // The change files are no dumps of the data: VoID names them otherwise (changeFiles.test.ts).
    const data = set!.files.filter((f) => !f.period);
    assert.deepEqual(dumps.sort(), data.map((f) => `${PUBLIC}/dumps/${f.name}`).sort());
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('the list of dumps says what /readyz says', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = tempDir()));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('says the dumps failed, in HTML and JSON, when making them failed', async () => {
    const dumpsDir = path.join(dir, 'dumps');
    const { app, service } = await buildApp([generatedDataset(dir, 5)], { DUMPS_DIR: dumpsDir });
    // The folder was usable at start and is a file now: every dump file fails to open.
    fs.rmSync(dumpsDir, { recursive: true });
    fs.writeFileSync(dumpsDir, '');
    await service.dumps.ensure();
    const ready = await request(app).get('/readyz').expect(200);
    assert.equal(ready.body.dumps, 'failed');
    const json = await request(app).get('/dumps/').set('Accept', 'application/json').expect(200);
    assert.equal(json.body.status, 'failed');
    const en = await request(app).get('/dumps/?lang=en').set('Accept', 'text/html').expect(200);
    assert.match(en.text, /Making the dumps of the current version failed/);
    assert.doesNotMatch(en.text, /being made/);
    const de = await request(app).get('/dumps/?lang=de').set('Accept', 'text/html').expect(200);
    assert.match(de.text, /konnten nicht erstellt werden/);
  });

  it('says they are being made while they are, and nothing once they are there', async () => {
    const { app, service } = await buildApp([generatedDataset(dir, 5)], {
      DUMPS_DIR: path.join(dir, 'made'),
    });
    // The first request starts them: its page is written while they are being made.
    const making = await request(app).get('/dumps/?lang=en').set('Accept', 'text/html');
    assert.match(making.text, /are being made/);
    await service.dumps.making;
    const json = await request(app).get('/dumps/').set('Accept', 'application/json').expect(200);
    assert.equal(json.body.status, 'ready');
    assert.equal((await request(app).get('/readyz')).body.dumps, 'ready');
    const made = await request(app).get('/dumps/?lang=en').set('Accept', 'text/html').expect(200);
    assert.doesNotMatch(made.text, /being made|failed/);
  });
});

describe('the dumps of the demonstration data', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = tempDir()));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('are labelled while it is served, and no longer offered once other data is', async () => {
    const { app, service } = await buildApp([generatedDataset(dir, 5)], {
      DUMPS_DIR: path.join(dir, 'dumps'),
    });
    // Served as the demonstration data, as the server does when the bundled files are missing.
    const demonstration = (await loadSources([generatedDataset(dir, 6)], { baseIri: BASE }))
      .dataset;
    service.use(demonstration, true);
    const made = (await service.dumps.ensure())!;
    assert.equal(made.demonstration, true);
    const json = await request(app).get('/dumps/').set('Accept', 'application/json').expect(200);
    assert.equal(json.body.dumps[0].demonstration, true);
    for (const [lang, words] of [
      ['en', /demonstration data<\/h2>\n<p class="notice">Generated institutions/],
      ['de', /Demonstrationsdaten<\/h2>\n<p class="notice">Erzeugte Einrichtungen/],
    ] as const) {
      const html = await request(app).get(`/dumps/?lang=${lang}`).set('Accept', 'text/html');
      assert.match(html.text, words);
    }

    // The real data is served: the demonstration's dumps are gone from the list, VoID and disk.
    const real = (await loadSources([generatedDataset(dir, 7)], { baseIri: BASE })).dataset;
    service.use(real);
    const after = await request(app).get('/dumps/').set('Accept', 'application/json').expect(200);
    assert.ok((after.body.dumps as { version: string }[]).every((s) => s.version !== made.version));
    const html = await request(app).get('/dumps/?lang=en').set('Accept', 'text/html');
    assert.doesNotMatch(html.text, /demonstration|Generated institutions/);
    const voidText = (await request(app).get('/.well-known/void').expect(200)).text;
    for (const file of made.files) {
      assert.ok(!voidText.includes(file.name), `VoID names ${file.name}`);
      await request(app).get(`/dumps/${file.name}`).expect(404);
      assert.ok(!fs.existsSync(path.join(dir, 'dumps', file.name)), `${file.name} is kept`);
    }
    // The real data's own dumps are not labelled.
    const own = (await service.dumps.ensure())!;
    assert.equal(own.demonstration, undefined);
  });
});
