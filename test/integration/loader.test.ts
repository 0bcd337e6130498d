// The loader command: every RDF format in, an exact snapshot out, broken files refused with their
// position and the previous snapshot left as it was.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import jsonld from 'jsonld';
import { Writer } from 'n3';
import { Service } from '../../src/documents/service';
import { createLogger } from '../../src/util/logger';
import { loadInto } from '../../src/process/reloader';
import { PROJECT_ROOT } from '../../src/util/paths';
import { inProcessStore } from '../../src/store/embedded/inProcessStore';
import { NAME_LIST_HEADER } from '../../src/load/read/listRecords';
import request from 'supertest';
import {
  parseRdfXml,
  parseTurtle,
  BASE,
  buildApp,
  DE_1A_RDF,
  tempDir,
  REAL_DATA,
  triplesOfDescription,
  sameGraph,
  testConfig,
  needsThirdParty,
  readWhenThere,
} from '../support';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

const DAT = path.join(REAL_DATA, 'isil-directory_pica-plain_8-records.dat');
const PPXML = path.join(REAL_DATA, 'isil-directory_picaplus-xml_2013_9-records.xml');
/** The lines of the real .dat file, each with its newline. */
const DAT_LINES = (() => {
  const bytes = readWhenThere(DAT);
  const lines: Buffer[] = [];
  for (let start = 0, end; (end = bytes.indexOf(0x0a, start)) !== -1; start = end + 1)
    lines.push(bytes.subarray(start, end + 1));
  return lines;
})();
/** Line `n` of the real .dat file, or nothing while it is missing (the suites skip then). */
const datLine = (n: number) => DAT_LINES[n] ?? Buffer.alloc(0);
const PPXML_TEXT = readWhenThere(PPXML).toString('utf8');

function load(dataset: string, args: string[], env: Record<string, string> = {}): Run {
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli', 'loadCommand.ts'), ...args],
    {
      cwd: PROJECT_ROOT,
      // The change log has tests of its own (test/integration/history/): these snapshots, several
      // to a folder, keep none unless a test asks.
      env: { ...process.env, DATASET: dataset, LOG_LEVEL: 'silent', HISTORY_DIR: '', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('loader', () => {
  before(needsThirdParty);
  let dir: string;
  let snapshot: string;
  let ntriples: string;

  before(async () => {
    dir = tempDir();
    snapshot = path.join(dir, 'out', 'dataset.nq');
    const quads = await parseRdfXml(fs.readFileSync(DE_1A_RDF, 'utf8'));
    ntriples = new Writer({ format: 'N-Triples' }).quadsToString(quads);
    fs.writeFileSync(path.join(dir, 'de-1a.nt'), ntriples);
    fs.writeFileSync(path.join(dir, 'de-1a.nq'), ntriples);
    const turtle = new Writer({
      format: 'Turtle',
      prefixes: { foaf: 'http://xmlns.com/foaf/0.1/' },
    });
    turtle.addQuads(quads);
    turtle.end((error, text) => fs.writeFileSync(path.join(dir, 'de-1a.ttl'), text));
    fs.writeFileSync(
      path.join(dir, 'de-1a.jsonld'),
      JSON.stringify(await jsonld.fromRDF(ntriples, { format: 'application/n-quads' })),
    );
    fs.copyFileSync(DE_1A_RDF, path.join(dir, 'de-1a.rdf'));
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('shows its phases on stderr when it is not a terminal, and nothing of them with --quiet', () => {
    const shown = load(path.join(dir, 'progress.nq'), [path.join(dir, 'de-1a.nt')]);
    assert.equal(shown.status, 0, shown.stderr);
    assert.match(shown.stderr, /^load: reading done, \d+ MiB in \d+ s$/m);
    assert.match(shown.stderr, /^load: validating done, 1 institutions in \d+ s$/m);
    assert.doesNotMatch(shown.stdout, /^load: /m, 'the report on stdout stays as scripts read it');
    const quiet = load(path.join(dir, 'quiet.nq'), ['--quiet', path.join(dir, 'de-1a.nt')]);
    assert.equal(quiet.status, 0, quiet.stderr);
    assert.equal(quiet.stderr, '');
    assert.equal(
      quiet.stdout.replace(/quiet\.nq \(.*?\)|\d+ MB/g, ''),
      shown.stdout.replace(/progress\.nq \(.*?\)|\d+ MB/g, ''),
    );
  });

  for (const ext of ['nt', 'nq', 'ttl', 'rdf', 'jsonld']) {
    it(`loads .${ext}: one institution, 63 triples, the same graph`, async () => {
      const target = path.join(dir, `only-${ext}.nq`);
      const run = load(target, [path.join(dir, `de-1a.${ext}`)]);
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, /loaded 1 files: 1 institutions, 63 triples, 0 warnings/);
      assert.match(run.stdout, new RegExp(`^file\\t.*de-1a\\.${ext}\\t`, 'm'));
      const stored = parseTurtle(fs.readFileSync(target, 'utf8'), 'application/n-quads');
      const expected = parseTurtle(
        ntriples.replace('2021-12-15T13:55:44.000', '2021-12-15T13:55:44'),
        'application/n-triples',
      );
      assert.ok(sameGraph(triplesOfDescription(stored, 'DE-1a'), expected));
    });
  }

  it('reads back the JSON-LD the service serves, whose context is named by its IRI under BASE_IRI', async () => {
    // Asked on BASE_IRI's own host, as production is: the context is named under BASE_IRI.
    const { app } = await buildApp(undefined, { PUBLIC_URL: '' });
    const served = await request(app)
      .get('/data/organisations/DE-1a.jsonld')
      .set('Host', new URL(BASE).host)
      .expect(200);
    assert.equal(JSON.parse(served.text)['@context'], `${BASE}/context.jsonld`);
    const nt = await request(app).get('/data/organisations/DE-1a.nt').expect(200);
    const file = path.join(dir, 'served.jsonld');
    fs.writeFileSync(file, served.text);
    const target = path.join(dir, 'served.nq');
    const run = load(target, [file]);
    assert.equal(run.status, 0, run.stderr);
    const stored = parseTurtle(fs.readFileSync(target, 'utf8'), 'application/n-quads');
    assert.ok(
      sameGraph(
        triplesOfDescription(stored, 'DE-1a'),
        parseTurtle(nt.text, 'application/n-triples'),
      ),
    );
  });

  it('leaves the context IRI inside a JSON literal as it is: it is data', () => {
    const file = path.join(dir, 'json-literal.jsonld');
    const context = `${BASE}/context.jsonld`;
    fs.writeFileSync(
      file,
      JSON.stringify({
        '@context': context,
        '@id': `${BASE}/resource/organisations/DE-J1`,
        '@type': 'foaf:Organization',
        name: 'A JSON literal',
        'http://example.org/p': { '@value': { '@context': context }, '@type': '@json' },
      }),
    );
    const target = path.join(dir, 'json-literal.nq');
    const run = load(target, ['--skip-validation', file]);
    assert.equal(run.status, 0, run.stderr);
    const literal = parseTurtle(fs.readFileSync(target, 'utf8'), 'application/n-quads').find(
      (q) => q.predicate.value === 'http://example.org/p',
    );
    assert.deepEqual(JSON.parse(literal!.object.value), { '@context': context });
  });

  it('reads a folder: every known extension, in name order; the snapshot holds their union', () => {
    const folder = path.join(dir, 'folder');
    fs.mkdirSync(folder, { recursive: true });
    fs.copyFileSync(DE_1A_RDF, path.join(folder, 'a.rdf'));
    fs.writeFileSync(
      path.join(folder, 'b.ttl'),
      `<https://ld.zdb-services.de/resource/organisations/DE-38> a <http://xmlns.com/foaf/0.1/Organization> ; <http://xmlns.com/foaf/0.1/name> "Universitäts- und Stadtbibliothek Köln" .\n`,
    );
    fs.writeFileSync(path.join(folder, 'README.md'), 'not data');
    const run = load(snapshot, [folder]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /loaded 2 files: 2 institutions, 65 triples/);
  });

  it('replaces the snapshot with exactly what the given files hold', () => {
    assert.equal(load(snapshot, [path.join(dir, 'de-1a.rdf')]).status, 0);
    const other = path.join(dir, 'other.nt');
    fs.writeFileSync(
      other,
      '<https://ld.zdb-services.de/resource/organisations/DE-38> <http://xmlns.com/foaf/0.1/name> "Köln" .\n<https://ld.zdb-services.de/resource/organisations/DE-38> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Organization> .\n',
    );
    assert.equal(load(snapshot, [other]).status, 0);
    const text = fs.readFileSync(snapshot, 'utf8');
    assert.equal(
      text.split('\n')[0],
      '# isil-ld snapshot; base <https://ld.zdb-services.de>',
      'the snapshot names its base',
    );
    assert.equal(
      text
        .trim()
        .split('\n')
        .filter((line) => !line.startsWith('#')).length,
      2,
    );
    assert.ok(!text.includes('DE-1a'));
  });

  describe('broken input leaves the snapshot as it was', () => {
    let before: Buffer;
    beforeEach(() => {
      assert.equal(load(snapshot, [path.join(dir, 'de-1a.rdf')]).status, 0);
      before = fs.readFileSync(snapshot);
    });
    const cases: [string, string, string | Buffer, RegExp][] = [
      [
        'bad N-Triples: the file, line and column',
        'bad.nt',
        `${'<http://a> <http://b> <http://c> .\n'.repeat(2)}<http://a> <http://b> "unterminated .\n`,
        /bad\.nt:3:\d+: /,
      ],
      ['RDF/XML cut off in the middle', 'cut.rdf', '', /cut\.rdf:\d+:\d+: /],
      [
        'Turtle with an undeclared prefix',
        'bad.ttl',
        '<http://a> <http://b> <http://c> .\n<http://a> foaf:name "x" .\n',
        /bad\.ttl:2:\d+: /,
      ],
      [
        'JSON-LD that is not JSON',
        'bad.jsonld',
        '{"@id": "http://a", "http://b": [',
        /bad\.jsonld(:\d+:\d+)?: /,
      ],
      ['an empty file', 'empty.nt', '', /empty\.nt: the file is empty/],
      ['an empty PICA+ file', 'empty.dat', '', /empty\.dat: the file is empty/],
      [
        'PICA+ cut off in the middle of a record: the line, column and record',
        'cut.dat',
        Buffer.concat([datLine(0), datLine(1), datLine(2).subarray(0, 200)]),
        /cut\.dat: line 3, column 201: cut off inside a record \(003@ 009007911\)/,
      ],
      [
        'PicaPlus-XML that is not well-formed',
        'bad.xml',
        PPXML_TEXT.replace(/<\/ppxml:record>/, '</ppxml:recrd>'),
        /bad\.xml: line \d+, column \d+: not well-formed XML/,
      ],
      [
        'PICA+ that is not UTF-8',
        'latin1.dat',
        Buffer.concat([datLine(0), Buffer.from('003@ \x1f0K\xf6ln\x1e\n', 'latin1')]),
        /latin1\.dat: line 2, byte \d+: not UTF-8/,
      ],
      [
        'a name list that is not UTF-8',
        'latin1.tsv',
        Buffer.from(`${NAME_LIST_HEADER}\nx\tDE-1a\t1a\tK\xf6ln\n`, 'latin1'),
        /latin1\.tsv:2:\d+: not UTF-8/,
      ],
      [
        'a TSV file that is neither list',
        'neither.tsv',
        'a\tb\tc\n',
        /neither\.tsv:1:1: neither a name list .* nor a redirect list/,
      ],
      [
        'text that is not UTF-8',
        'latin1.nt',
        Buffer.from('<http://a> <http://b> "K\xf6ln" .\n', 'latin1'),
        /latin1\.nt(:\d+:\d+)?: /,
      ],
    ];
    for (const [name, file, content, message] of cases) {
      it(name, () => {
        const target = path.join(dir, file);
        if (file === 'cut.rdf')
          fs.writeFileSync(target, fs.readFileSync(DE_1A_RDF).subarray(0, 3000));
        else fs.writeFileSync(target, content);
        const run = load(snapshot, [path.join(dir, 'de-1a.nt'), target]);
        assert.equal(run.status, 1, run.stdout);
        assert.match(run.stderr, /^load failed, snapshot unchanged: /);
        assert.match(run.stderr, message);
        assert.deepEqual(fs.readFileSync(snapshot), before);
        assert.deepEqual(
          fs.readdirSync(path.dirname(snapshot)),
          ['dataset.nq'],
          'no temporary file is left',
        );
      });
    }
    it('a missing file', () => {
      const run = load(snapshot, [path.join(dir, 'no-such-file.nt')]);
      assert.equal(run.status, 1);
      assert.match(run.stderr, /no-such-file\.nt: no such file or folder/);
      assert.deepEqual(fs.readFileSync(snapshot), before);
    });
    it('an unknown extension names --format', () => {
      const target = path.join(dir, 'data.txt');
      fs.writeFileSync(target, ntriples);
      const run = load(snapshot, [target]);
      assert.equal(run.status, 1);
      assert.match(run.stderr, /data\.txt: unknown extension; use --format/);
    });
  });

  it('--format overrides the extension', () => {
    const target = path.join(dir, 'data.txt');
    fs.writeFileSync(target, ntriples);
    const run = load(snapshot, ['--format', 'nt', target]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /1 institutions, 63 triples/);
  });

  it('--format names the PICA+ and list formats too', () => {
    const target = path.join(dir, 'records.txt');
    fs.copyFileSync(DAT, target);
    const run = load(snapshot, ['--format', 'pica', '--skip-validation', target]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^file\t.*records\.txt\tpica\t8 records, /m);
    assert.match(run.stdout, /8 institutions, .*not validated/);
  });

  it('a bad --format is a usage error (exit 2)', () => {
    assert.equal(load(snapshot, ['--format', 'pdf', path.join(dir, 'de-1a.nt')]).status, 2);
  });

  it('rewrites the http:// form of BASE_IRI to the configured one, and says so', () => {
    const target = path.join(dir, 'http.nt');
    fs.writeFileSync(
      target,
      ntriples.replaceAll('<https://ld.zdb-services.de/', '<http://ld.zdb-services.de/'),
    );
    const run = load(snapshot, [target]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^rewritten\t26 triples/m);
    const text = fs.readFileSync(snapshot, 'utf8');
    assert.ok(!text.includes('<http://ld.zdb-services.de/'));
    assert.match(run.stdout, /1 institutions, 63 triples/);
  });

  it('warns about institutions without a name or a well-formed ISIL', () => {
    const target = path.join(dir, 'defects.nt');
    const org =
      '<http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Organization> .';
    fs.writeFileSync(
      target,
      [
        `<https://ld.zdb-services.de/resource/organisations/DE-9999> ${org}`,
        `<https://ld.zdb-services.de/resource/organisations/DE2789> ${org}`,
        `<https://ld.zdb-services.de/resource/organisations/DE2789> <http://xmlns.com/foaf/0.1/name> "Malformed" .`,
      ].join('\n'),
    );
    const run = load(snapshot, [target]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /^warning\tno-name\thttps:\/\/ld\.zdb-services\.de\/resource\/organisations\/DE-9999\t/m,
    );
    assert.match(run.stdout, /^warning\tmalformed-isil\t.*DE2789\t/m);
    assert.match(run.stdout, /1 institutions, 3 triples, 2 warnings/);
  });

  it('reads PICA+, PicaPlus-XML and both lists by extension, and reports what it did', () => {
    const run = load(snapshot, [
      path.join(REAL_DATA, 'lobid-organisations_isil-sigel-name_2023-11.tsv'),
      path.join(REAL_DATA, 'isil-redirects_lobid-resources.tsv'),
      PPXML,
      DAT,
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^file\t.*isil-sigel-name_2023-11\.tsv\tnames\t18681 records, /m);
    assert.match(
      run.stdout,
      /^file\t.*isil-redirects_lobid-resources\.tsv\tredirects\t418 records, /m,
    );
    assert.match(run.stdout, /^file\t.*9-records\.xml\tppxml\t9 records, /m);
    assert.match(run.stdout, /^file\t.*8-records\.dat\tpica\t8 records, /m);
    assert.match(run.stdout, /^malformed\t.*isil-sigel-name_2023-11\.tsv:15067\tDE2789\t/m);
    assert.match(
      run.stdout,
      /^malformed\t.*9-records\.xml, line \d+, column \d+\t009000216\tno ISIL/m,
    );
    assert.match(
      run.stdout,
      /^conflict\tDE-1a\twon .*8-records\.dat, line 2\tlost .*\.tsv:18639, .*\.xml, line /m,
    );
    assert.match(run.stdout, /^defect\tcoordinates-missing\t\d+$/m);
    assert.match(
      run.stdout,
      /; 416 withdrawn, 0 skipped, 10 malformed, 15 conflicts, \d+ institutions with defects; snapshot /,
    );
  });

  it('--strict refuses to write the snapshot when an institution violates the shapes', () => {
    assert.equal(load(snapshot, [path.join(dir, 'de-1a.rdf')]).status, 0);
    const before = fs.readFileSync(snapshot);
    const strict = load(snapshot, ['--strict', PPXML]);
    assert.equal(strict.status, 1, strict.stdout);
    assert.match(
      strict.stderr,
      /^load refused \(--strict\), snapshot unchanged: \d+ institutions violate the shapes/m,
    );
    // The phases' lines come first; the refusal is the last word.
    assert.match(strict.stderr.trimEnd().split('\n').at(-1)!, /^load refused \(--strict\)/);
    assert.match(strict.stdout, /^defect\tcoordinates-missing\t\d+$/m);
    assert.match(strict.stdout, /no snapshot written/);
    assert.deepEqual(fs.readFileSync(snapshot), before);
    const clean = load(snapshot, ['--strict', DAT]);
    assert.equal(clean.status, 0, clean.stdout + clean.stderr);
    assert.match(clean.stdout, /0 institutions with defects/);
  });

  it('--workers N describes in N threads, --workers 0 in the loading one, finding the same', () => {
    const pool = load(snapshot, [PPXML]);
    const one = load(snapshot, ['--workers', '1', PPXML]);
    const none = load(snapshot, ['--workers', '0', PPXML]);
    assert.equal(one.status, 0, one.stderr);
    assert.equal(none.status, 0, none.stderr);
    const defects = (run: Run) => run.stdout.split('\n').filter((l) => l.startsWith('defect\t'));
    assert.ok(defects(one).length > 0, 'the file has defects to find');
    assert.deepEqual(defects(one), defects(pool));
    assert.deepEqual(defects(none), defects(pool));
  });

  for (const bad of ['-1', '1.5', 'many', '']) {
    it(`--workers=${bad} is refused (exit 2) before anything is read`, () => {
      fs.writeFileSync(snapshot, 'left as it was');
      const run = load(snapshot, [`--workers=${bad}`, PPXML]);
      assert.equal(run.status, 2, run.stdout);
      assert.match(run.stderr, /^--workers: expected a whole number, 0 or more/);
      assert.equal(fs.readFileSync(snapshot, 'utf8'), 'left as it was');
    });
  }

  it('--workers past the cores of the machine is refused (exit 2), not started', () => {
    fs.writeFileSync(snapshot, 'left as it was');
    const run = load(snapshot, ['--workers', '100000', PPXML]);
    assert.equal(run.status, 2, run.stdout);
    assert.match(run.stderr, /^--workers: at most \d+ here \(this machine's cores\), got 100000/);
    assert.equal(fs.readFileSync(snapshot, 'utf8'), 'left as it was');
  });

  it('the server loads the snapshot with the same code, and shows the version the loader printed', async () => {
    const run = load(snapshot, [path.join(dir, 'de-1a.ttl')]);
    assert.equal(run.status, 0);
    const printed = /, version ([0-9a-f]{12})\)/.exec(run.stdout)?.[1];
    const service = new Service(testConfig({ DATASET: snapshot }));
    await loadInto(service, createLogger('silent'), inProcessStore);
    assert.equal(service.current?.dataset.institutionCount, 1);
    assert.equal(service.current?.dataset.tripleCount, 63);
    assert.equal(service.current?.dataset.version, printed);
    service.close();
  });
});
