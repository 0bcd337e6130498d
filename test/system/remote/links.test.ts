// Links out: a links source (Wikidata's ISIL lookup) loaded like any other source, kept
// in a graph of its own, served in every document as `owl:sameAs` beside the institution's data
// (which stays as its source publishes it), and covered by the documents' ETag and Last-Modified.
// Over both adapters: the embedded store, and Virtuoso through the remote one.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Express } from 'express';
import { DataFactory, type Quad } from 'n3';
import request from 'supertest';
import {
  loadSources,
  LoadError,
  NoInstitutionError,
  writeSnapshot,
} from '../../../src/load/loadSources';
import type { LoadReport } from '../../../src/load/loadSources';
import { LINK_LIST_HEADER } from '../../../src/load/read/wikidata';
import { GND, PREFIXES, WIKIDATA } from '../../../src/rdf/namespaces';
import type { DatasetStore } from '../../../src/store/embedded/datasetStore';
import type { Service } from '../../../src/documents/service';
import {
  ADAPTERS,
  parseTurtle,
  BASE,
  buildApp,
  tempDir,
  REAL_DATA,
  sameGraph,
  needsThirdParty,
  needsStore,
} from '../../support';

const PICA = path.join(REAL_DATA, 'isil-directory_pica-plain_8-records.dat');
const SAME_AS = `${PREFIXES.owl}sameAs`;
const iri = (isil: string) => `${BASE}/resource/organisations/${isil}`;
const sameAs = (isil: string, target: string): Quad =>
  DataFactory.quad(
    DataFactory.namedNode(iri(isil)),
    DataFactory.namedNode(SAME_AS),
    DataFactory.namedNode(target),
  );

const row = (item: string, isil: string, gnd = '') =>
  `${WIKIDATA}${item}\tlabel of ${item}\t${isil}\t${gnd}\t`;

const dir = tempDir();
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const write = (name: string, lines: readonly string[]) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${[LINK_LIST_HEADER, ...lines].join('\n')}\n`);
  return file;
};
/** DE-38 retired, replaced by DE-294: its links are not the institution's. */
const REDIRECTS = path.join(dir, 'redirects.tsv');
fs.writeFileSync(REDIRECTS, 'DE-294\tDE-999\n');

/** September 2023: later than the records of DE-1a (2022) and DE-294 (2016), not of DE-MUS-872815 (2025). */
const LINKS_2023 = write('wikidata_2023-09.tsv', [
  row('Q170109', 'DE-1a', '5036103-X'),
  row('Q2', 'de-294'), // another case: the institution's own spelling gets it
  row('Q3', 'DE-MUS-872815'),
  row('Q4', 'DE-999'), // withdrawn
  row('Q5', 'FR-751131015'), // not in the data
]);
/** March 2024: DE-1a gains an item. */
const LINKS_2024 = write('wikidata_2024-03.tsv', [
  row('Q170109', 'DE-1a', '5036103-X'),
  row('Q6', 'DE-1a'),
  row('Q2', 'DE-294'),
  row('Q3', 'DE-MUS-872815'),
]);

const turtle = async (app: Express, isil: string) => {
  const res = await request(app).get(`/data/organisations/${isil}.ttl`).expect(200);
  return { res, quads: parseTurtle(res.text) };
};

for (const adapter of ADAPTERS)
  describe(`links to the same institution elsewhere (${adapter} store)`, function () {
    before(needsStore(adapter));
    this.timeout(120_000);
    let without: Express;
    let app: Express;
    let service: Service;
    let report: LoadReport | undefined;
    let later: Express;
    before(async () => {
      ({ app: without } = await buildApp([PICA, REDIRECTS], {}, adapter));
      ({ app, service, report } = await buildApp([PICA, REDIRECTS, LINKS_2023], {}, adapter));
      ({ app: later } = await buildApp([PICA, REDIRECTS, LINKS_2024], {}, adapter));
    });

    it("serves the institution's data as before, with the links beside it (graphs compared)", async () => {
      for (const format of ['ttl', 'rdf', 'jsonld', 'nt']) {
        const before = await request(without)
          .get(`/data/organisations/DE-1a.${format}`)
          .expect(200);
        const after = await request(app).get(`/data/organisations/DE-1a.${format}`).expect(200);
        assert.notEqual(before.text, after.text, format);
      }
      const { quads: plain } = await turtle(without, 'DE-1a');
      const { quads: linked } = await turtle(app, 'DE-1a');
      assert.ok(
        sameGraph(linked, [
          ...plain,
          sameAs('DE-1a', `${WIKIDATA}Q170109`),
          sameAs('DE-1a', `${GND}5036103-X`),
        ]),
      );
    });

    it('links an ISIL written in another case to the institution the data holds', async () => {
      const { quads } = await turtle(app, 'DE-294');
      assert.ok(quads.some((q) => q.equals(sameAs('DE-294', `${WIKIDATA}Q2`))));
    });

    it('knows when the links were made, and how many it holds', () => {
      const links = service.current!.dataset.links!;
      assert.equal(links.modified.toISOString(), '2023-09-01T00:00:00.000Z');
      assert.equal(links.links, 4);
      assert.equal(links.institutions, 3);
      assert.equal(links.wikidata, 3);
      assert.equal(links.gnd, 1);
      if (adapter === 'embedded')
        assert.deepEqual(report!.links, {
          modified: '2023-09-01T00:00:00.000Z',
          links: 4,
          institutions: 3,
          wikidata: 3,
          gnd: 1,
          withdrawn: 1,
          unknown: 1,
        });
    });

    it("gives a withdrawn ISIL's links to nobody: not to its successor either", async () => {
      await request(app).get('/data/organisations/DE-999.ttl').expect(301);
      const { quads } = await turtle(app, 'DE-294');
      assert.ok(!quads.some((q) => q.object.value === `${WIKIDATA}Q4`));
    });

    it('dates every document by its version: the newest date of its records and links list', async () => {
      // A dataset without a log has one version (docs/history.md), whose time is the newest
      // dcterms:modified among its records and links list: DE-MUS-872815's, 2025, here.
      const { res: linked } = await turtle(app, 'DE-1a');
      assert.equal(linked.headers['last-modified'], 'Mon, 15 Sep 2025 18:05:26 GMT');
      const { res: newer } = await turtle(app, 'DE-MUS-872815');
      assert.equal(newer.headers['last-modified'], linked.headers['last-modified']);
    });

    it('lets conditional requests see a change of the links alone', async () => {
      const { res: first } = await turtle(app, 'DE-1a');
      const { res: second, quads } = await turtle(later, 'DE-1a');
      assert.ok(quads.some((q) => q.equals(sameAs('DE-1a', `${WIKIDATA}Q6`))));
      assert.notEqual(second.headers.etag, first.headers.etag);
      // Both versions are without a log, each dated by its newest record (2025): the ETag tells
      // the change; a log would give the second version a time of its own.
      assert.equal(second.headers['last-modified'], first.headers['last-modified']);
      const path = '/data/organisations/DE-1a.ttl';
      await request(later).get(path).set('If-None-Match', first.headers.etag!).expect(200);
      await request(later)
        .get(path)
        .set('If-Modified-Since', second.headers['last-modified']!)
        .expect(304);
      await request(later).get(path).set('If-None-Match', second.headers.etag!).expect(304);
      // The page, too: its ETag is another for the same change.
      const pageBefore = await request(app).get('/isil/DE-1a').expect(200);
      const pageAfter = await request(later).get('/isil/DE-1a').expect(200);
      assert.notEqual(pageAfter.headers.etag, pageBefore.headers.etag);
    });

    it("shows the links on the institution's page, and in its schema.org JSON-LD", async () => {
      const page = await request(app).get('/isil/DE-1a?lang=en').expect(200);
      assert.match(page.text, /href="http:\/\/www\.wikidata\.org\/entity\/Q170109"/);
      assert.match(page.text, /href="https:\/\/d-nb\.info\/gnd\/5036103-X"/);
      const scripts = [
        ...page.text.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g),
      ];
      const schemaOrg = scripts.map((m) => m[1]!).find((text) => text.includes('schema.org'));
      assert.match(schemaOrg ?? '', /wikidata\.org\/entity\/Q170109/);
    });

    it('describes the links in VoID: one linkset per target, each naming the dataset it links into', async () => {
      const res = await request(app).get('/.well-known/void').set('Accept', 'text/turtle');
      const quads = parseTurtle(res.text);
      const VOID = 'http://rdfs.org/ns/void#';
      const here = (fragment: string) => `${BASE}/.well-known/void#${fragment}`;
      const values = (s: string, p: string) =>
        quads
          .filter((q) => q.subject.value === s && q.predicate.value === p)
          .map((q) => q.object.value);
      const value = (s: string, p: string) => values(s, p)[0];
      // The links graph as a whole: a subset of the dataset, with its date and counts.
      const dataset = quads.find(
        (q) => q.predicate.value === `${VOID}subset` && q.object.value === here('links'),
      )?.subject.value;
      assert.ok(dataset, 'the dataset names the links as its subset');
      assert.equal(value(here('links'), `${VOID}triples`), '4');
      assert.equal(value(here('links'), `${VOID}distinctSubjects`), '3');
      assert.equal(value(here('links'), `${PREFIXES.dcterms}modified`), '2023-09-01T00:00:00.000Z');
      assert.notEqual(value(here('links'), `${PREFIXES.rdf}type`), `${VOID}Linkset`);
      // Within it, a linkset to each target, from this dataset, by owl:sameAs.
      assert.deepEqual(values(here('links'), `${VOID}subset`).sort(), [
        here('links-gnd'),
        here('links-wikidata'),
      ]);
      for (const [key, count, space] of [
        ['wikidata', '3', WIKIDATA],
        ['gnd', '1', GND],
      ] as const) {
        const set = here(`links-${key}`);
        assert.equal(value(set, `${PREFIXES.rdf}type`), `${VOID}Linkset`);
        assert.equal(value(set, `${VOID}linkPredicate`), SAME_AS);
        assert.equal(value(set, `${VOID}subjectsTarget`), dataset);
        assert.deepEqual(values(set, `${VOID}objectsTarget`), [here(key)]);
        assert.equal(value(set, `${VOID}triples`), count);
        assert.equal(value(here(key), `${VOID}uriSpace`), space);
      }
      const plain = await request(without).get('/.well-known/void').set('Accept', 'text/turtle');
      assert.doesNotMatch(plain.text, /Linkset|#links/);
    });
  });

describe('the links graph in the embedded store', () => {
  before(needsThirdParty);
  it("holds the links; the description's own graph does not", async () => {
    const { dataset } = await loadSources([PICA, LINKS_2023], { baseIri: BASE });
    const store = dataset.store as DatasetStore;
    try {
      const graphsOf = (target: string) =>
        store
          .select(`SELECT ?g WHERE { GRAPH ?g { <${iri('DE-1a')}> <${SAME_AS}> <${target}> } }`)
          .map((row) => row.g!.value);
      assert.deepEqual(graphsOf(`${WIKIDATA}Q170109`), [`${BASE}/data/links`]);
      assert.deepEqual(graphsOf('http://lobid.org/organisation/DE-1a'), [
        `${BASE}/data/organisations/DE-1a`,
      ]);
      // The graph describes itself as a subset of the dataset, with its date: not as one linkset,
      // its links going into two datasets.
      const set = `${BASE}/data/links`;
      const kinds = store
        .select(`SELECT ?kind WHERE { GRAPH <${set}> { <${set}> a ?kind } }`)
        .map((row) => row.kind!.value);
      assert.deepEqual(kinds, ['http://rdfs.org/ns/void#Dataset']);
    } finally {
      dataset.free();
    }
  });

  it('is kept by a snapshot, and served again from it alone', async () => {
    const loaded = await loadSources([PICA, LINKS_2023], { baseIri: BASE });
    const file = path.join(dir, 'snapshot.nq');
    try {
      await writeSnapshot(loaded, file);
    } finally {
      loaded.dataset.free();
    }
    const again = await loadSources([file], { baseIri: BASE });
    try {
      assert.equal(again.dataset.links?.links, 4);
      assert.equal(again.dataset.links?.modified.toISOString(), '2023-09-01T00:00:00.000Z');
      const text = await again.dataset.store.describe(
        `${iri('DE-1a')}` as Parameters<DatasetStore['describe']>[0],
      );
      assert.match(text, /Q170109/);
    } finally {
      again.dataset.free();
    }
  });

  it('describes no set when the sources gave no link of a live institution', async () => {
    const none = write('wikidata_2024-05.tsv', [row('Q9', 'FR-751131015')]);
    const { dataset, report } = await loadSources([PICA, none], { baseIri: BASE });
    const store = dataset.store as DatasetStore;
    try {
      assert.equal(dataset.links, undefined);
      assert.equal(report.links, undefined);
      assert.equal(store.ask(`ASK { GRAPH <${BASE}/data/links> { ?s ?p ?o } }`), false);
      assert.doesNotMatch(
        await store.describe(`${iri('DE-1a')}` as Parameters<DatasetStore['describe']>[0]),
        /wikidata/,
      );
    } finally {
      dataset.free();
    }
  });

  it('dates links named for a day still to come no later than the load', async () => {
    const future = write('wikidata_2999-01.tsv', [row('Q170109', 'DE-1a')]);
    const { app: served } = await buildApp([PICA, future]);
    const { res } = await turtle(served, 'DE-1a');
    const lastModified = new Date(res.headers['last-modified']!);
    assert.ok(lastModified <= new Date(res.headers.date!), res.headers['last-modified']);
    assert.ok(lastModified > new Date('2022-11-18T14:37:34Z'), 'later than the record');
  });

  it('refuses a links source alone as a dataset with nothing to serve', async () => {
    await assert.rejects(
      loadSources([LINKS_2023], { baseIri: BASE, requireInstitutions: true }),
      NoInstitutionError,
    );
  });

  it('names the links source among what a .tsv may be when it is none of them', async () => {
    const odd = path.join(dir, 'odd.tsv');
    fs.writeFileSync(odd, 'a\tb\tc\n');
    await assert.rejects(
      loadSources([odd], { baseIri: BASE }),
      (error: unknown) => error instanceof LoadError && /nor a links source/.test(error.message),
    );
  });
});
