// The loader refuses what makes no sense, in one line and with the snapshot left as it was:
// sources it cannot read (a FIFO, a link in a loop, more than MAX_INPUT_BYTES), a result with no
// institution (unless --allow-empty), documents nested deeper than its readers can take, literals
// longer than MAX_LITERAL_LENGTH; and it loads deep chains of blank nodes in time linear in depth.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { NAME_LIST_HEADER } from '../../src/load/read/listRecords';
import { BEYOND_EMBEDDED } from '../../src/load/read/sources';
import {
  chunkedNQuads,
  LoadError,
  loadSources,
  MAX_INPUT_BYTES,
  MAX_LITERAL_LENGTH,
  MAX_NESTING_DEPTH,
  MAX_SNAPSHOT_BYTES,
  NoInstitutionError,
  snapshotHeader,
  writeSnapshot,
  type Loaded,
} from '../../src/load/loadSources';
import { PROJECT_ROOT } from '../../src/util/paths';
import { institutionIri } from '../../src/rdf/iris';
import type { Isil } from '../../src/rdf/isil';
import { checkedIri } from '../../src/store/queries';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import {
  parseTurtle,
  BASE,
  DE_1A_RDF,
  tempDir,
  REAL_DATA,
  sameGraph,
  needsThirdParty,
} from '../support';

const ORG = `${BASE}/resource/organisations`;
const TYPE =
  '<http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Organization>';
const NAME = '<http://xmlns.com/foaf/0.1/name>';
const NEXT = '<http://example.org/next>';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run load` with `args`, writing the snapshot at `dataset`. */
function load(dataset: string, args: string[]): Run {
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli', 'loadCommand.ts'), ...args],
    {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATASET: dataset, LOG_LEVEL: 'silent', HISTORY_DIR: '' },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A refusal as the loader command gives it: exit 1, one line on stderr matching `message`. */
function assertRefused(run: Run, message: RegExp): void {
  assert.equal(run.status, 1, run.stdout + run.stderr);
  assert.match(run.stderr, /^load failed, snapshot unchanged: [^\n]*\n$/, 'one line');
  assert.ok(!/\n\s+at /.test(run.stderr), 'no stack trace');
  assert.match(run.stderr.trimEnd(), message);
}

/** What `loadSources` rejected with, for sources that must be refused. */
async function rejection(sources: string[], requireInstitutions = false): Promise<LoadError> {
  try {
    const loaded = await loadSources(sources, { baseIri: BASE, requireInstitutions });
    loaded.dataset.free();
  } catch (error) {
    assert.ok(error instanceof LoadError, String((error as Error).stack));
    return error;
  }
  assert.fail(`${sources.join(', ')} was loaded`);
}

/** An institution with a name, in N-Triples. */
const institution = (isil: string) =>
  `<${ORG}/${isil}> ${TYPE} .\n<${ORG}/${isil}> ${NAME} "${isil}" .\n`;

describe('loader limits', () => {
  before(needsThirdParty);
  let dir: string;
  /** A snapshot written before each refusal, whose bytes must stay as they are. */
  let snapshot: string;
  let kept: Buffer;

  before(() => {
    dir = tempDir();
    snapshot = path.join(dir, 'out', 'dataset.nq');
    fs.mkdirSync(path.dirname(snapshot));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Puts a snapshot in place (any bytes do: they must not change). */
  function placeSnapshot(): void {
    fs.writeFileSync(snapshot, `the snapshot before, ${Date.now()}\n`);
    kept = fs.readFileSync(snapshot);
  }
  const assertUnchanged = () => {
    assert.deepEqual(fs.readFileSync(snapshot), kept);
    assert.deepEqual(fs.readdirSync(path.dirname(snapshot)), ['dataset.nq']);
  };

  describe('sources that cannot be read are refused before any is opened', () => {
    it('a FIFO, given or in a folder: it says so, and nothing waits for a writer', async () => {
      const folder = path.join(dir, 'with-fifo');
      fs.mkdirSync(folder);
      for (const name of ['pipe.nt', 'pipe.xml']) {
        const fifo = path.join(folder, name);
        execFileSync('mkfifo', [fifo]);
        const error = await rejection([fifo]);
        assert.equal(error.message, `${fifo}: a FIFO (named pipe), not a file`);
      }
      assert.match(
        (await rejection([folder])).message,
        /pipe\.nt: a FIFO \(named pipe\), not a file$/,
      );
    });

    it('a symbolic link in a loop: it says so (not "no such file")', async () => {
      const a = path.join(dir, 'loop-a.nt');
      const b = path.join(dir, 'loop-b.nt');
      fs.symlinkSync(b, a);
      fs.symlinkSync(a, b);
      assert.equal(
        (await rejection([a])).message,
        `${a}: a symbolic link in a loop (it leads back to itself)`,
      );
    });

    it('a device given with --format: not a regular file (it would never end)', async () => {
      const error = await loadSources(['/dev/zero'], { baseIri: BASE, format: 'nt' }).then(
        () => assert.fail('loaded /dev/zero'),
        (e: unknown) => e as Error,
      );
      assert.equal(error.message, '/dev/zero: not a regular file (a device?)');
    });

    for (const [what, size, ext] of [
      ['one byte above MAX_INPUT_BYTES', MAX_INPUT_BYTES + 1, 'nt'],
      // The XML check made one string of it: a stack trace of "Cannot create a string longer…".
      ['of RDF/XML above the longest string V8 makes (512 MiB)', 600 * 1024 * 1024, 'rdf'],
    ] as const) {
      it(`an input ${what}: one line naming the file and the limit, no stack trace`, () => {
        placeSnapshot();
        // Sparse: as large as it says, on no disk.
        const big = path.join(dir, `big-${size}.${ext}`);
        fs.writeFileSync(
          big,
          ext === 'rdf'
            ? '<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n'
            : institution('DE-Big'),
        );
        fs.truncateSync(big, size);
        assertRefused(
          load(snapshot, [big]),
          new RegExp(
            `big-${size}\\.${ext}: ${Math.round(size / 2 ** 20)} MiB, more than a load reads \\(MAX_INPUT_BYTES, 256 MiB; docs/loading\\.md\\): a larger dataset goes into a SPARQL server \\(STORE=remote, docs/scaling\\.md\\), as a snapshot the loader streams$`,
          ),
        );
        assertUnchanged();
      });
    }

    it('a snapshot may be larger than other sources, up to MAX_SNAPSHOT_BYTES', async () => {
      const big = path.join(dir, 'big-snapshot.nq');
      fs.writeFileSync(big, snapshotHeader(BASE));
      fs.truncateSync(big, MAX_SNAPSHOT_BYTES + 1);
      assert.equal(
        (await rejection([big])).message,
        `${big}: 512 MiB, more than a load reads (MAX_SNAPSHOT_BYTES, 512 MiB; docs/loading.md): ${BEYOND_EMBEDDED}`,
      );
      // Within its limit, it is read (and refused for what it holds, not for its size).
      fs.truncateSync(big, MAX_INPUT_BYTES + 1);
      assert.match((await rejection([big])).message, /the snapshot is incomplete/);
    });

    it('inputs above MAX_INPUT_BYTES together: the file that goes beyond is named', async () => {
      const half = (name: string) => {
        const file = path.join(dir, name);
        fs.writeFileSync(file, institution('DE-Half'));
        fs.truncateSync(file, MAX_INPUT_BYTES / 2 + 1);
        return file;
      };
      const [a, b] = [half('half-a.nt'), half('half-b.nt')];
      assert.equal(
        (await rejection([a, b])).message,
        `${b}: the sources come to 256 MiB with this file, more than a load reads (MAX_INPUT_BYTES, 256 MiB; docs/loading.md): ${BEYOND_EMBEDDED}`,
      );
    });
  });

  describe('a result without an institution', () => {
    let none: string;
    before(() => {
      none = path.join(dir, 'none.nt');
      let text = '';
      for (let i = 0; i < 200; i++)
        text += `<http://example.org/thing/${i}> ${NAME} "thing ${i}" .\n`;
      fs.writeFileSync(none, text);
    });

    it('is refused by the loader command, before the snapshot is touched', () => {
      placeSnapshot();
      assertRefused(
        load(snapshot, [none]),
        /none\.nt: holds no institution to serve: none of its 200 triples makes a foaf:Organization of an IRI under https:\/\/ld\.zdb-services\.de\/resource\/organisations\/; --allow-empty writes such a snapshot all the same$/,
      );
      assertUnchanged();
    });

    it('is refused with --strict too', () => {
      placeSnapshot();
      assertRefused(load(snapshot, ['--strict', none]), /holds no institution to serve/);
      assertUnchanged();
    });

    it('is refused when every ISIL it holds is withdrawn (the redirect list alone)', () => {
      placeSnapshot();
      assertRefused(
        load(snapshot, [path.join(REAL_DATA, 'isil-redirects_lobid-resources.tsv')]),
        /redirects_lobid-resources\.tsv: holds no institution to serve \([\d,]+ triples, 417 withdrawn ISILs, [\d,]+ warnings\); --allow-empty/,
      );
      assertUnchanged();
    });

    it('is written with --allow-empty: a snapshot whose trailer counts no institution', async () => {
      placeSnapshot();
      const run = load(snapshot, ['--allow-empty', none]);
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, /loaded 1 files: 0 institutions, 200 triples/);
      const text = fs.readFileSync(snapshot, 'utf8');
      const trailer = JSON.parse(text.slice(text.lastIndexOf('\n# index ') + 9)) as {
        institutions: number;
        triples: number;
      };
      assert.deepEqual([trailer.institutions, trailer.triples], [0, 200]);
      const again = await loadSources([snapshot], { baseIri: BASE });
      try {
        assert.ok(
          sameGraph(
            parseTurtle(again.dataset.store.dump(), 'application/n-quads'),
            parseTurtle(fs.readFileSync(none, 'utf8'), 'application/n-triples'),
          ),
        );
      } finally {
        again.dataset.free();
      }
    });

    it('loadSources refuses it only when asked (requireInstitutions), with its own class', async () => {
      const error = await rejection([none], true);
      assert.ok(error instanceof NoInstitutionError);
      const loaded = await loadSources([none], { baseIri: BASE });
      assert.equal(loaded.report.institutions, 0);
      loaded.dataset.free();
    });
  });

  describe('deep nesting', () => {
    /** A chain of `depth` blank nodes below one institution, deepest line first. */
    function chain(depth: number): string {
      const lines = [`<${ORG}/DE-Deep> ${NEXT} _:b0 .`];
      for (let i = 0; i < depth; i++) lines.push(`_:b${i} ${NEXT} _:b${i + 1} .`);
      return `${institution('DE-Deep')}${lines.reverse().join('\n')}\n`;
    }

    it('a chain of 50,000 blank nodes dumped deepest first is one piece of a snapshot, cut in time', () => {
      // Quadratic, this took about two minutes.
      const nquads = chain(50_000).replaceAll(' .\n', ' <http://example.org/g> .\n');
      const pieces = [...chunkedNQuads(nquads)];
      const holding = pieces.filter((piece) => piece.includes('_:b'));
      assert.equal(holding.length, 1);
      assert.equal(holding[0]!.split('\n').filter((line) => line.startsWith('_:b')).length, 50_000);
    });

    for (const [format, depth, text] of [
      ['N-Triples, deepest first', 50_000, () => chain(50_000)],
      [
        'Turtle, nested brackets',
        20_000,
        () =>
          `${institution('DE-Deep')}<${ORG}/DE-Deep> ${NEXT} ${`[ ${NEXT} `.repeat(20_000)}"end"${' ]'.repeat(20_000)} .\n`,
      ],
    ] as const) {
      it(`${format}: ${depth.toLocaleString('en')} levels load, are written, and load again`, async () => {
        const source = path.join(dir, format.startsWith('Turtle') ? 'deep.ttl' : 'deep.nt');
        fs.writeFileSync(source, text());
        const first = await loadSources([source], { baseIri: BASE });
        const written = path.join(dir, 'deep.nq');
        let again: Loaded | undefined;
        try {
          await writeSnapshot(first, written);
          again = await loadSources([written], { baseIri: BASE });
          assert.equal(first.report.institutions, 1);
          assert.equal(first.report.triples, depth + 3);
          assert.equal(again.report.triples, first.report.triples);
          const iri = checkedIri(institutionIri(BASE, 'DE-Deep' as Isil));
          assert.ok(
            sameGraph(
              parseTurtle(again.dataset.store.describe(iri), 'application/n-triples'),
              parseTurtle(first.dataset.store.describe(iri), 'application/n-triples'),
            ),
          );
        } finally {
          first.dataset.free();
          again?.dataset.free();
        }
      });
    }

    /** A JSON-LD document of `depth` nested node objects below one institution. */
    const nestedJsonLd = (depth: number) =>
      `{"@id": "${ORG}/DE-Deep", "@type": "http://xmlns.com/foaf/0.1/Organization",\n"http://example.org/next": ${'{"http://example.org/next": '.repeat(depth - 1)}"end"${'}'.repeat(depth - 1)}}\n`;

    it(`JSON-LD nested ${MAX_NESTING_DEPTH} levels loads`, async () => {
      const file = path.join(dir, 'nested-ok.jsonld');
      fs.writeFileSync(file, nestedJsonLd(MAX_NESTING_DEPTH));
      const loaded = await loadSources([file], { baseIri: BASE });
      assert.equal(loaded.report.institutions, 1);
      loaded.dataset.free();
    });

    it('JSON-LD nested 1,000 levels (which overflowed the store’s stack) is refused: its line and column', () => {
      placeSnapshot();
      const file = path.join(dir, 'nested.jsonld');
      fs.writeFileSync(file, nestedJsonLd(1000));
      // The bracket that goes one level too deep: the institution's is the first.
      const column =
        `"http://example.org/next": `.length +
        1 +
        `{"http://example.org/next": `.length * (MAX_NESTING_DEPTH - 1);
      assertRefused(
        load(snapshot, [file]),
        new RegExp(
          `nested\\.jsonld:2:${column}: JSON nested deeper than ${MAX_NESTING_DEPTH} levels \\(MAX_NESTING_DEPTH; docs/loading\\.md\\)$`,
        ),
      );
      assertUnchanged();
    });

    /** An RDF/XML document of `depth` nested elements. */
    const nestedXml = (depth: number) =>
      `<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/" xmlns:foaf="http://xmlns.com/foaf/0.1/">\n<foaf:Organization rdf:about="${ORG}/DE-Deep">${'<ex:next rdf:parseType="Resource">'.repeat(depth - 2)}${'</ex:next>'.repeat(depth - 2)}</foaf:Organization>\n</rdf:RDF>\n`;

    it(`RDF/XML nested ${MAX_NESTING_DEPTH} levels loads; one level more is refused with its position`, async () => {
      const ok = path.join(dir, 'nested-ok.rdf');
      fs.writeFileSync(ok, nestedXml(MAX_NESTING_DEPTH));
      const loaded = await loadSources([ok], { baseIri: BASE });
      assert.equal(loaded.report.triples, MAX_NESTING_DEPTH - 1);
      loaded.dataset.free();
      const deep = path.join(dir, 'nested.rdf');
      fs.writeFileSync(deep, nestedXml(MAX_NESTING_DEPTH + 1));
      assert.match(
        (await rejection([deep])).message,
        new RegExp(
          `nested\\.rdf:3:\\d+: elements nested deeper than ${MAX_NESTING_DEPTH} levels \\(MAX_NESTING_DEPTH; docs/loading\\.md\\)$`,
        ),
      );
    });
  });

  describe('literals longer than MAX_LITERAL_LENGTH', () => {
    const NOTE = '<http://example.org/note>';

    it('are refused by the loader command: the file, the subject and the predicate', () => {
      placeSnapshot();
      const file = path.join(dir, 'long.nt');
      fs.writeFileSync(
        file,
        `${institution('DE-Long')}<${ORG}/DE-Long> ${NOTE} "${'x'.repeat(1 << 20)}" .\n`,
      );
      assertRefused(
        load(snapshot, [file]),
        new RegExp(
          `long\\.nt: <${ORG}/DE-Long> ${NOTE}: a literal of 1,048,576 characters, more than a load accepts \\(MAX_LITERAL_LENGTH, 65,536; docs/loading\\.md\\)$`,
        ),
      );
      assertUnchanged();
    });

    it('are refused in any RDF format, one source among several', async () => {
      const file = path.join(dir, 'long.ttl');
      fs.writeFileSync(
        file,
        `<${ORG}/DE-Long> a <http://xmlns.com/foaf/0.1/Organization> ; ${NOTE} """${'line\n'.repeat(20_000)}""" .\n`,
      );
      for (const sources of [
        [file, DE_1A_RDF],
        [DE_1A_RDF, file],
      ]) {
        assert.match(
          (await rejection(sources)).message,
          new RegExp(`^${file}: <${ORG}/DE-Long> ${NOTE}: a literal of 100,000 characters`),
        );
      }
    });

    it('are refused in a record, with its position', async () => {
      const file = path.join(dir, 'long-names.tsv');
      fs.writeFileSync(file, `${NAME_LIST_HEADER}\nx\tDE-Long\tLong\t${'N'.repeat(70_000)}\n`);
      assert.match(
        (await rejection([file])).message,
        new RegExp(
          `^${file.replace(/[.\\]/g, '\\$&')}:2: <${ORG}/DE-Long> ${NAME}: a literal of 70,000 characters`,
        ),
      );
    });

    it('one of exactly MAX_LITERAL_LENGTH characters, each outside the BMP (two UTF-16 units), loads', async () => {
      const file = path.join(dir, 'longest.nt');
      fs.writeFileSync(
        file,
        `${institution('DE-Longest')}<${ORG}/DE-Longest> ${NOTE} "${'😀'.repeat(MAX_LITERAL_LENGTH)}" .\n`,
      );
      const loaded = await loadSources([file], { baseIri: BASE });
      assert.equal(loaded.report.institutions, 1);
      loaded.dataset.free();
    });

    it('the real data comes nowhere near the limit', async () => {
      // The bundled dataset's records and lists (the Wikidata lookup names no institution's
      // record: it is for the links).
      const loaded = await loadSources(
        BUNDLED_DATASET.filter((file) => !path.basename(file).startsWith('wikidata_')),
        { baseIri: BASE },
      );
      try {
        const longest = Number(
          loaded.dataset.store.select(
            'SELECT (MAX(STRLEN(STR(?o))) AS ?n) WHERE { ?s ?p ?o FILTER(isLiteral(?o)) }',
          )[0]!.n!.value,
        );
        assert.ok(longest > 100 && longest < MAX_LITERAL_LENGTH / 16, `${longest}`);
      } finally {
        loaded.dataset.free();
      }
    });
  });
});
