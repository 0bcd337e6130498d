// loadSources over the real sources: PICA+ and the two lists beside RDF, ISILs held by several
// sources resolved whole, and snapshots that load in pieces without splitting a blank node.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { generate } from '../../cli/generate';
import {
  chunkedNQuads,
  LoadError,
  loadSources,
  snapshotHeader,
  writeSnapshot,
  type Loaded,
} from '../../src/load/loadSources';
import { convertRecord } from '../../src/mapping/pica/convert';
import { readPica } from '../../src/mapping/pica/read';
import type { Dataset } from '../../src/store/dataset';
import { descriptionIri, institutionIri } from '../../src/rdf/iris';
import type { Isil } from '../../src/rdf/isil';
import { DatasetStore } from '../../src/store/embedded/datasetStore';
import { checkedIri } from '../../src/store/queries';
import { Writer } from 'n3';
import {
  parseTurtle,
  asTriples,
  BASE,
  DE_1A_RDF,
  tempDir,
  REAL_DATA,
  sameGraph,
  needsThirdParty,
} from '../support';

const DAT = path.join(REAL_DATA, 'isil-directory_pica-plain_8-records.dat');
const PPXML = path.join(REAL_DATA, 'isil-directory_picaplus-xml_2013_9-records.xml');
const NAMES = path.join(REAL_DATA, 'lobid-organisations_isil-sigel-name_2023-11.tsv');
const REDIRECTS = path.join(REAL_DATA, 'isil-redirects_lobid-resources.tsv');
const OWL_DEPRECATED = 'http://www.w3.org/2002/07/owl#deprecated';
const REPLACED_BY = 'http://purl.org/dc/terms/isReplacedBy';
const FOAF_NAME = 'http://xmlns.com/foaf/0.1/name';

/** The description as the store holds it, full fields and all (queries/describe.rq). */
function describe_(dataset: Dataset<DatasetStore>, isil: string): string {
  return dataset.store.describe(checkedIri(institutionIri(BASE, isil as Isil)));
}

/** The graph of N-Triples as the store gives it back (typed literals in canonical form). */
function stored(ntriples: string): ReturnType<typeof parseTurtle> {
  const store = new DatasetStore();
  try {
    store.load(ntriples, 'nt');
    return parseTurtle(store.dump(), 'application/n-quads');
  } finally {
    store.free();
  }
}

/** The record of `isil` in the .dat file, converted as the loader converts it. */
function convertedFromDat(isil: string): string {
  for (const record of readPica(DAT, 'pica')) {
    if ('malformed' in record) continue;
    const converted = convertRecord(record, {
      baseIri: BASE,
      origin: 'test',
      blankNodePrefix: 't',
    });
    if ('ntriples' in converted && converted.isil === isil) return converted.ntriples;
  }
  throw new Error(`${isil} is not in ${DAT}`);
}

/** Two loads that hold the same: as many triples, and the same quads, graphs and all. */
function assertSameLoad(actual: Loaded, expected: Loaded): void {
  assert.equal(actual.report.triples, expected.report.triples);
  assert.ok(
    sameGraph(
      parseTurtle(actual.dataset.store.dump(), 'application/n-quads'),
      parseTurtle(expected.dataset.store.dump(), 'application/n-quads'),
    ),
  );
}

describe('loadSources', () => {
  before(needsThirdParty);
  describe('an ISIL held by several sources', () => {
    let all: Awaited<ReturnType<typeof loadSources>>;
    let datAlone: Awaited<ReturnType<typeof loadSources>>;
    before(async () => {
      all = await loadSources([DE_1A_RDF, PPXML, DAT], { baseIri: BASE });
      datAlone = await loadSources([DAT], { baseIri: BASE });
    });
    after(() => {
      all.dataset.free();
      datAlone.dataset.free();
    });

    const winners: [string, RegExp, number][] = [
      ['DE-1a', /pica-plain_8-records\.dat, line 2$/, 3],
      ['DE-38', /pica-plain_8-records\.dat, line 4$/, 2],
      ['DE-294', /pica-plain_8-records\.dat, line 3$/, 2],
    ];
    for (const [isil, winner, sources] of winners) {
      it(`${isil}: the newest record wins, and the report names every source`, () => {
        const conflict = all.report.conflicts.find((c) => c.isil === isil);
        assert.ok(conflict, `no conflict reported for ${isil}`);
        assert.match(conflict.winner, winner);
        assert.equal(conflict.origins.length, sources);
      });
      it(`${isil}: the served description is the winning record, converted, and nothing else`, () => {
        assert.ok(sameGraph(stored(describe_(all.dataset, isil)), stored(convertedFromDat(isil))));
      });
    }

    it('only the three are conflicts', () => {
      assert.deepEqual(all.report.conflicts.map((c) => c.isil).sort(), [
        'DE-1a',
        'DE-294',
        'DE-38',
      ]);
    });

    it('no triple of a losing record is left (blank nodes, URL nodes and descriptions included)', () => {
      // Every institution of the RDF file and the XML file that the .dat file also holds lost; the
      // others of the XML file won. So the store holds the .dat file plus those others, exactly.
      const others = ['DE-Tir1', 'DE-100-301', 'DE-188-867', 'DE-7-133', 'DE-11-39'];
      let expected = datAlone.report.triples;
      for (const isil of others) expected += stored(describe_(all.dataset, isil)).length;
      assert.equal(all.report.triples, expected);
    });

    it('the order of the sources does not change the outcome', async () => {
      const reversed = await loadSources([DAT, PPXML, DE_1A_RDF], { baseIri: BASE });
      try {
        assert.equal(reversed.report.triples, all.report.triples);
        for (const [isil] of winners) {
          assert.ok(
            sameGraph(
              stored(describe_(reversed.dataset, isil)),
              stored(describe_(all.dataset, isil)),
            ),
            isil,
          );
        }
      } finally {
        reversed.dataset.free();
      }
    });

    it('records that replace a whole snapshot leave exactly their own triples', async () => {
      const dir = tempDir();
      try {
        const snapshot = path.join(dir, 'dataset.nq');
        await writeSnapshot(datAlone, snapshot);
        const again = await loadSources([snapshot, DAT], { baseIri: BASE });
        try {
          assert.equal(again.report.conflicts.length, 8);
          assert.ok(again.report.conflicts.every((c) => c.winner.includes('.dat, line')));
          assert.ok(
            sameGraph(
              parseTurtle(again.dataset.store.dump(), 'application/n-quads'),
              parseTurtle(datAlone.dataset.store.dump(), 'application/n-quads'),
            ),
          );
        } finally {
          again.dataset.free();
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('a full record beats a name-only record whatever the order', async () => {
      const loaded = await loadSources([DAT, NAMES], { baseIri: BASE });
      try {
        const names = parseTurtle(describe_(loaded.dataset, 'DE-1a'), 'application/n-triples')
          .filter((q) => q.predicate.value === FOAF_NAME)
          .map((q) => q.object.value);
        assert.deepEqual(names, [
          'Staatsbibliothek zu Berlin - Preußischer Kulturbesitz, Haus Potsdamer Straße',
        ]);
        assert.match(loaded.report.conflicts.find((c) => c.isil === 'DE-1a')!.winner, /\.dat/);
      } finally {
        loaded.dataset.free();
      }
    });
  });

  describe('the name list', () => {
    let loaded: Awaited<ReturnType<typeof loadSources>>;
    before(async () => {
      loaded = await loadSources([NAMES], { baseIri: BASE });
    });
    after(() => loaded.dataset.free());

    it('loads every row with a well-formed ISIL as a name-only record', () => {
      // 18,681 rows, 6 with a malformed ISIL and 3 case twins left out.
      assert.equal(loaded.report.institutions, 18_672);
      assert.equal(loaded.report.files[0]!.records, 18_681);
    });

    it('reports each malformed ISIL and case twin with its line, and leaves it out', () => {
      const malformed = loaded.report.skipped.filter((s) => s.kind === 'malformed');
      assert.deepEqual(malformed.map((s) => s.id).sort(), [
        '3064',
        'DB-286-AVE',
        'DE%5F4050',
        'DE-LUEN3',
        'DE-STG252',
        'DE2789',
        'De-4115',
        'ZDB\u201118\u2011BSPI',
        'ZDB\u2011198\u2011DUB',
      ]);
      for (const s of malformed) assert.match(s.origin, /isil-sigel-name_2023-11\.tsv:\d+$/);
      assert.equal(loaded.dataset.lookup('DE-Stg252' as Isil).kind, 'found');
      assert.equal(loaded.dataset.lookup('DE-4115' as Isil).kind, 'found');
      assert.deepEqual(loaded.dataset.lookup('DE-STG252' as Isil), {
        kind: 'other-case',
        isil: 'DE-Stg252',
      });
    });

    it('a name-only record: name, ISIL and Sigel, lobid link, licensed description, no modification time', () => {
      const r = `${BASE}/resource/organisations/DE-Luen3`;
      const d = `${BASE}/data/organisations/DE-Luen3`;
      const expected = parseTurtle(
        `@prefix foaf: <http://xmlns.com/foaf/0.1/> . @prefix dc: <http://purl.org/dc/elements/1.1/> .
         @prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix wdrs: <http://www.w3.org/2007/05/powder-s#> .
         @prefix dcterms: <http://purl.org/dc/terms/> .
         <${r}> a foaf:Organization ; foaf:name "Niedersächsisches Oberverwaltungsgericht, Bibliothek" ;
           dc:identifier "(ISIL)DE-Luen3", "(Sigel)Lün 3" ; owl:sameAs <http://lobid.org/organisation/DE-Luen3> ;
           wdrs:describedby <${d}> .
         <${d}> dcterms:license <http://creativecommons.org/publicdomain/zero/1.0/> .`,
      );
      assert.ok(sameGraph(stored(describe_(loaded.dataset, 'DE-Luen3')), expected));
    });

    it("reads a name's quotation marks once, as the export doubles each of them", () => {
      const name = (isil: string) =>
        parseTurtle(describe_(loaded.dataset, isil), 'application/n-triples')
          .filter((q) => q.predicate.value === 'http://xmlns.com/foaf/0.1/name')
          .map((q) => q.object.value);
      // In the list: `Städtisches Museum ""Junkerhaus""`, `""Frischglück""-Besucherbergwerk`.
      assert.deepEqual(name('DE-MUS-172818'), ['Städtisches Museum "Junkerhaus"']);
      assert.deepEqual(name('DE-MUS-333919'), ['"Frischglück"-Besucherbergwerk']);
      assert.deepEqual(name('DE-Luen3'), ['Niedersächsisches Oberverwaltungsgericht, Bibliothek']);
    });
  });

  describe('the redirect list', () => {
    let loaded: Awaited<ReturnType<typeof loadSources>>;
    before(async () => {
      loaded = await loadSources([REDIRECTS], { baseIri: BASE });
    });
    after(() => loaded.dataset.free());

    it('418 pairs make 417 withdrawn ISILs: one is retired twice, the later pair wins', () => {
      assert.equal(loaded.report.files[0]!.records, 418);
      assert.equal(loaded.report.withdrawn, 417);
      assert.equal(loaded.report.institutions, 0);
      assert.deepEqual(
        loaded.report.conflicts.map((c) => [c.isil, c.winner.replace(/^.*\//, '')]),
        [['ZDB-18-NOE', 'isil-redirects_lobid-resources.tsv:16']],
      );
    });

    it('a retired ISIL is deprecated and replaced by the current one', () => {
      const quads = parseTurtle(describe_(loaded.dataset, 'DE-D170'), 'application/n-triples');
      const value = (p: string) =>
        quads.filter((q) => q.predicate.value === p).map((q) => q.object.value);
      assert.deepEqual(value(OWL_DEPRECATED), ['true']);
      assert.deepEqual(value(REPLACED_BY), [`${BASE}/resource/organisations/DE-D227`]);
      const twice = parseTurtle(describe_(loaded.dataset, 'ZDB-18-NOE'), 'application/n-triples');
      assert.deepEqual(
        twice.filter((q) => q.predicate.value === REPLACED_BY).map((q) => q.object.value),
        [`${BASE}/resource/organisations/ZDB-18-NEP`],
      );
    });

    it('a full record outweighs a redirect pair, which has no date', async () => {
      // DE-188-867 and DE-11-39 are retired in the list, and the XML file has a record of each:
      // DE-188-867 published, DE-11-39 withdrawn (status I, the same successor as the pair).
      const both = await loadSources([REDIRECTS, PPXML], { baseIri: BASE });
      try {
        assert.equal(both.dataset.lookup('DE-188-867' as Isil).kind, 'found');
        assert.equal(both.dataset.lookup('DE-11-39' as Isil).kind, 'withdrawn');
        const quads = parseTurtle(describe_(both.dataset, 'DE-11-39'), 'application/n-triples');
        assert.ok(
          quads.some((q) => q.predicate.value === 'http://purl.org/dc/terms/modified'),
          'the dated record of the XML file, not the pair, which has no date',
        );
        for (const isil of ['DE-188-867', 'DE-11-39']) {
          assert.match(both.report.conflicts.find((c) => c.isil === isil)!.winner, /\.xml/);
        }
        assert.equal(both.report.withdrawn, 416);
      } finally {
        both.dataset.free();
      }
    });

    it('a redirect pair outweighs a name-only record', async () => {
      const both = await loadSources([REDIRECTS, NAMES], { baseIri: BASE });
      try {
        assert.equal(both.dataset.lookup('DE-D170' as Isil).kind, 'withdrawn');
      } finally {
        both.dataset.free();
      }
    });
  });

  describe('PICA+ records', () => {
    let dir: string;
    before(() => {
      dir = tempDir();
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('a record of status N is skipped and counted, the rest load', async () => {
      const lines = fs.readFileSync(DAT, 'utf8').split('\n');
      lines[3] = lines[3]!.replace('035E \x1faH', '035E \x1faN');
      assert.notEqual(lines.join('\n'), fs.readFileSync(DAT, 'utf8'), 'the fixture has 035E $aH');
      const file = path.join(dir, 'with-n.dat');
      fs.writeFileSync(file, lines.join('\n'));
      const loaded = await loadSources([file], { baseIri: BASE });
      try {
        const skipped = loaded.report.skipped.filter((s) => s.kind === 'not-published');
        assert.deepEqual(
          skipped.map((s) => s.id),
          ['DE-38'],
        );
        assert.equal(loaded.report.institutions, 7);
        assert.equal(loaded.dataset.lookup('DE-38' as Isil).kind, 'unknown');
      } finally {
        loaded.dataset.free();
      }
    });

    it('a record without ISIL is reported as malformed with its position and id', async () => {
      const loaded = await loadSources([PPXML], { baseIri: BASE });
      try {
        const malformed = loaded.report.skipped.filter((s) => s.kind === 'malformed');
        assert.equal(malformed.length, 1);
        assert.equal(malformed[0]!.id, '009000216');
        assert.match(malformed[0]!.origin, /9-records\.xml, line \d+, column \d+$/);
        assert.equal(loaded.report.institutions, 7);
        assert.equal(loaded.report.withdrawn, 1);
      } finally {
        loaded.dataset.free();
      }
    });
  });

  describe('descriptions across sources and graphs', () => {
    const FOAF = 'http://xmlns.com/foaf/0.1/';
    const V = 'http://www.w3.org/2006/vcard/ns#';
    let dir: string;
    before(() => {
      dir = tempDir();
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    /** The objects of `predicate` in a description's N-Triples. */
    const objectsOf = (ntriples: string, predicate: string) =>
      parseTurtle(ntriples, 'application/n-triples')
        .filter((quad) => quad.predicate.value === predicate)
        .map((quad) => quad.object.value);

    it("serves the triples of a TriG file's named graphs as its own, whatever the graphs' names", async () => {
      const trig = path.join(dir, 'graphs.trig');
      fs.writeFileSync(
        trig,
        `@prefix foaf: <${FOAF}> .
<${BASE}/resource/organisations/DE-1> a foaf:Organization ; foaf:name "Default" .
<http://example.org/g> { <${BASE}/resource/organisations/DE-2> a foaf:Organization ; foaf:name "Named" . }
<${BASE}/data/organisations/DE-1> { <${BASE}/resource/organisations/DE-1> foaf:nick "in a graph" . <http://example.org/x> foaf:name "unrelated" . }
`,
      );
      const loaded = await loadSources([trig], { baseIri: BASE });
      try {
        assert.equal(loaded.report.institutions, 2);
        assert.deepEqual(objectsOf(describe_(loaded.dataset, 'DE-1'), `${FOAF}nick`), [
          'in a graph',
        ]);
        assert.equal(objectsOf(describe_(loaded.dataset, 'DE-1'), `${FOAF}name`).length, 1);
        assert.deepEqual(objectsOf(describe_(loaded.dataset, 'DE-2'), `${FOAF}name`), ['Named']);
        assert.ok(!loaded.dataset.store.dump().includes('<http://example.org/g>'));
      } finally {
        loaded.dataset.free();
      }
    });

    it('loads a snapshot written for the other scheme of the base as any N-Quads: rewritten, placed', async () => {
      const HTTP = BASE.replace('https://', 'http://');
      const source = path.join(dir, 'http.nt');
      fs.writeFileSync(source, [...generate({ count: 30, seed: 4, base: HTTP })].join(''));
      const http = await loadSources([source], { baseIri: HTTP });
      const snapshot = path.join(dir, 'http.nq');
      await writeSnapshot(http, snapshot);
      http.dataset.free();
      const direct = await loadSources([source], { baseIri: BASE });
      const again = await loadSources([snapshot], { baseIri: BASE });
      try {
        assert.ok(again.report.rewritten > 0);
        assert.equal(again.report.institutions, 30);
        for (const institution of direct.dataset.institutions()) {
          const served = describe_(again.dataset, institution.isil);
          assert.ok(served !== '', institution.isil);
          assert.ok(sameGraph(stored(served), stored(describe_(direct.dataset, institution.isil))));
        }
      } finally {
        direct.dataset.free();
        again.dataset.free();
      }
    });

    it("holds what another source states about a record's description document and e-mail node", async () => {
      const alone = await loadSources([DAT], { baseIri: BASE });
      const isil = 'DE-38';
      const mailbox = objectsOf(describe_(alone.dataset, isil), `${V}email`)[0];
      alone.dataset.free();
      assert.ok(mailbox, `${isil} has a v:email`);
      const more = path.join(dir, 'more.ttl');
      fs.writeFileSync(
        more,
        `<${descriptionIri(BASE, isil as Isil)}> <http://purl.org/dc/terms/source> <http://example.org/source> .\n` +
          `<${mailbox}> <http://www.w3.org/2000/01/rdf-schema#comment> "from another source" .\n`,
      );
      for (const sources of [
        [DAT, more],
        [more, DAT],
      ]) {
        const loaded = await loadSources(sources, { baseIri: BASE });
        try {
          const served = describe_(loaded.dataset, isil);
          assert.deepEqual(objectsOf(served, 'http://purl.org/dc/terms/source'), [
            'http://example.org/source',
          ]);
          assert.deepEqual(objectsOf(served, 'http://www.w3.org/2000/01/rdf-schema#comment'), [
            'from another source',
          ]);
          // Taken into the description, not left in the default graph beside it as well.
          assert.equal(loaded.dataset.store.dump().split('"from another source"').length, 2);
        } finally {
          loaded.dataset.free();
        }
      }
    });

    it('holds what another record of the same file states about a URL node its record links to', async () => {
      // DE-MUS-872815 links a URL node and describes it (009Q $u, $x, $z W); DE-B2042 is given a
      // link to the same node, without a description of its own.
      const lines = fs.readFileSync(DAT, 'latin1').split('\n');
      const museum = lines.findIndex((line) => line.includes('\x1feDE-MUS-872815'));
      const berlin = lines.findIndex((line) => line.includes('\x1feDE-B2042'));
      const url = 'https://isil.museum/index.php?t=isil&is=872815';
      assert.ok(museum >= 0 && berlin >= 0 && lines[museum]!.includes(`\x1fu${url}\x1fx`));
      // A field ends with a record separator, the last one too.
      assert.ok(lines[berlin]!.endsWith('\x1e'));
      lines[berlin] = `${lines[berlin]}009Q \x1fu${url}\x1fzW\x1e`;
      const shared = path.join(dir, 'shared-url.dat');
      fs.writeFileSync(shared, lines.join('\n'), 'latin1');
      const loaded = await loadSources([shared], { baseIri: BASE });
      try {
        const descriptions = (isil: string) =>
          parseTurtle(describe_(loaded.dataset, isil), 'application/n-triples')
            .filter((quad) => quad.subject.value === url)
            .map((quad) => `${quad.predicate.value} ${quad.object.value}`)
            .sort();
        assert.ok(descriptions('DE-MUS-872815').length > 0);
        assert.deepEqual(descriptions('DE-B2042'), descriptions('DE-MUS-872815'));
      } finally {
        loaded.dataset.free();
      }
    });

    it('an RDF institution that outweighs a record leaves nothing of the record', async () => {
      const newer = path.join(dir, 'newer.ttl');
      const iri = institutionIri(BASE, 'DE-38' as Isil);
      const document = descriptionIri(BASE, 'DE-38' as Isil);
      const turtle = `<${iri}> a <${FOAF}Organization> ; <${FOAF}name> "Newer" ;
  <http://www.w3.org/2007/05/powder-s#describedby> <${document}> .
<${document}> <http://purl.org/dc/terms/modified> "2030-01-01T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
`;
      fs.writeFileSync(newer, turtle);
      const loaded = await loadSources([DAT, newer], { baseIri: BASE });
      try {
        assert.match(loaded.report.conflicts.find((c) => c.isil === 'DE-38')!.winner, /newer\.ttl/);
        assert.ok(sameGraph(stored(describe_(loaded.dataset, 'DE-38')), parseTurtle(turtle)));
      } finally {
        loaded.dataset.free();
      }
    });

    it('lists an institution once when another links to it (its triples then in two graphs)', async () => {
      // More institutions than one slice of the index holds, the two in different slices.
      let turtle = '';
      for (let i = 1; i <= 1200; i++)
        turtle += `<${BASE}/resource/organisations/DE-${i}> a <${FOAF}Organization> ; <${FOAF}name> "N${i}" .\n`;
      turtle += `<${BASE}/resource/organisations/DE-5> <${V}email> <${BASE}/resource/organisations/DE-700> .\n`;
      const many = path.join(dir, 'many.ttl');
      fs.writeFileSync(many, turtle);
      const loaded = await loadSources([many], { baseIri: BASE });
      try {
        assert.equal(loaded.rows.length, 1200);
        assert.deepEqual(loaded.report.warnings, []);
      } finally {
        loaded.dataset.free();
      }
    });
  });

  describe('snapshots', () => {
    let dir: string;
    before(() => {
      dir = tempDir();
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('mark chunks only where no blank node is shared across', () => {
      const text = [
        ...chunkedNQuads([...generate({ count: 300, seed: 7, base: BASE })].join('')),
      ].join('');
      const pieces = text.split('# chunk\n');
      assert.ok(pieces.length > 3, `${pieces.length} pieces`);
      const seenIn = new Map<string, number>();
      pieces.forEach((piece, index) => {
        for (const label of piece.match(/_:[^ ]+/g) ?? []) {
          assert.equal(seenIn.get(label) ?? index, index, `${label} is in two pieces`);
          seenIn.set(label, index);
        }
      });
      assert.ok(seenIn.size > 0);
    });

    it('a broken line in a later piece is refused with its line in the whole file', async () => {
      const source = path.join(dir, 'for-broken.nt');
      fs.writeFileSync(source, [...generate({ count: 100, seed: 3, base: BASE })].join(''));
      const first = await loadSources([source], { baseIri: BASE });
      const snapshot = path.join(dir, 'broken.nq');
      await writeSnapshot(first, snapshot);
      first.dataset.free();
      const lines = fs.readFileSync(snapshot, 'utf8').split('\n');
      const marks = lines.flatMap((line, i) => (line === '# chunk' ? [i] : []));
      assert.ok(marks.length >= 2);
      const broken = marks[1]! + 3;
      lines[broken] = '<http://a> <http://b> "unterminated .';
      fs.writeFileSync(snapshot, lines.join('\n'));
      await assert.rejects(
        loadSources([snapshot], { baseIri: BASE }),
        (error: LoadError) => error instanceof LoadError && error.line === broken + 1,
      );
    });

    it('hold each description in the graph named by its IRI, and nothing in the default graph', async () => {
      const source = path.join(dir, 'graphs.nt');
      fs.writeFileSync(source, [...generate({ count: 50, seed: 5, base: BASE })].join(''));
      const first = await loadSources([source], { baseIri: BASE });
      try {
        const snapshot = path.join(dir, 'graphs.nq');
        await writeSnapshot(first, snapshot);
        const quads = parseTurtle(fs.readFileSync(snapshot, 'utf8'), 'application/n-quads');
        const graphs = new Set(quads.map((quad) => quad.graph.value));
        const institutions = [...first.dataset.institutions()];
        assert.equal(institutions.length, 50);
        assert.deepEqual(
          [...graphs].sort(),
          institutions.map((i) => descriptionIri(BASE, i.isil)).sort(),
        );
        // Placed whole: the graphs together hold the source's triples, no more, no fewer.
        assert.ok(sameGraph(asTriples(quads), stored(fs.readFileSync(source, 'utf8'))));
      } finally {
        first.dataset.free();
      }
    });

    it('written before snapshots had a trailer are refused; their triples without the header load placed', async () => {
      // Written with every triple in the default graph, as before descriptions had graphs.
      const source = path.join(dir, 'old-layout.nt');
      fs.writeFileSync(source, [...generate({ count: 40, seed: 9, base: BASE })].join(''));
      const current = await loadSources([source], { baseIri: BASE });
      const triples = new Writer({ format: 'N-Triples' }).quadsToString(
        asTriples(parseTurtle(current.dataset.store.dump(), 'application/n-quads')),
      );
      const old = path.join(dir, 'old-layout.nq');
      fs.writeFileSync(old, snapshotHeader(BASE) + triples);
      await assert.rejects(
        loadSources([old], { baseIri: BASE }),
        (error: Error) =>
          error instanceof LoadError &&
          /old-layout\.nq: the snapshot is incomplete: its trailer is missing \(cut off after 40 institutions\?\)$/.test(
            error.message,
          ),
      );
      const plain = path.join(dir, 'old-layout-plain.nq');
      fs.writeFileSync(plain, triples);
      const again = await loadSources([plain], { baseIri: BASE });
      try {
        assertSameLoad(again, current);
      } finally {
        current.dataset.free();
        again.dataset.free();
      }
    });

    it('load in pieces to the same graph they were written from', async () => {
      const source = path.join(dir, 'synthetic.nt');
      fs.writeFileSync(source, [...generate({ count: 300, seed: 7, base: BASE })].join(''));
      const first = await loadSources([source], { baseIri: BASE });
      const snapshot = path.join(dir, 'dataset.nq');
      await writeSnapshot(first, snapshot);
      const again = await loadSources([snapshot], { baseIri: BASE });
      try {
        assert.ok(fs.readFileSync(snapshot, 'utf8').split('# chunk\n').length > 3);
        assertSameLoad(again, first);
      } finally {
        first.dataset.free();
        again.dataset.free();
      }
    });
  });
});
