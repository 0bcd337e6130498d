// Every institution of the bundled dataset, served through Virtuoso (the remote adapter), has the
// graph the embedded store serves for it: all of them, not a sample. Graphs are compared as graphs
// (isomorphism), after the normalisations the store is known to make, each listed with its reason
// and counted, so that a normalisation that hides more than it should shows in the counts. A store
// that caps its answers' rows silently still gives the whole index.
import assert from 'node:assert/strict';
import { DataFactory, type Quad, type Term } from 'n3';
import { isomorphic } from 'rdf-isomorphic';
import { loadSources } from '../../src/load/loadSources';
import type { Dataset } from '../../src/store/dataset';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { loadRemote } from '../../cli/remote';
import { SparqlStore } from '../../src/store/remote/sparqlStore';
import { bulkTarget, startVirtuoso, type Virtuoso } from '../servers/virtuoso';
import { ADAPTERS, openDataset, testConfig, needsThirdParty } from '../support';

const XSD_DATE_TIME = 'http://www.w3.org/2001/XMLSchema#dateTime';

/**
 * The normalisations, applied to both sides:
 * - language tags in lower case: Virtuoso stores them so (`de-DE` comes back `de-de`); RDF 1.1
 *   (§3.3) compares them case-insensitively;
 * - an `xsd:dateTime` without a time zone and the same value with `Z`: Virtuoso can add a time
 *   zone to a value that has none (measured elsewhere; the bundled data's values came back
 *   without one here, and the count says so).
 */
const normalised = { language: 0, dateTime: 0 };

function term<T extends Term>(t: T): T {
  if (t.termType !== 'Literal') return t;
  if (t.language && t.language !== t.language.toLowerCase()) {
    normalised.language++;
    return DataFactory.literal(t.value, t.language.toLowerCase()) as unknown as T;
  }
  if (t.datatype.value === XSD_DATE_TIME && /(Z|[+-]00:00)$/.test(t.value)) {
    normalised.dateTime++;
    return DataFactory.literal(
      t.value.replace(/(Z|[+-]00:00)$/, ''),
      DataFactory.namedNode(XSD_DATE_TIME),
    ) as unknown as T;
  }
  return t;
}

const normalise = (quads: readonly Quad[]): Quad[] =>
  quads.map((q) => DataFactory.quad(term(q.subject), q.predicate, term(q.object)));

(ADAPTERS.includes('remote') ? describe : describe.skip)(
  'the remote store serves every bundled institution as the embedded store does',
  function () {
    before(needsThirdParty);
    this.timeout(300_000);
    let embedded: Dataset;
    let remote: Dataset;
    before(async () => {
      const config = testConfig();
      embedded = (await loadSources(BUNDLED_DATASET, { baseIri: config.baseIri })).dataset;
      remote = (await openDataset(BUNDLED_DATASET, config, 'remote')).dataset;
    });
    after(() => embedded.free());

    it('has the same institutions, withdrawn ISILs and triples', () => {
      assert.deepEqual(
        [...remote.institutions()].map((i) => i.isil).sort(),
        [...embedded.institutions()].map((i) => i.isil).sort(),
      );
      assert.ok(remote.institutionCount > 17_000, `${remote.institutionCount} institutions`);
      assert.equal(remote.withdrawnCount, embedded.withdrawnCount);
      assert.equal(remote.tripleCount, embedded.tripleCount);
    });

    it('gives each institution a graph isomorphic to the embedded one', async () => {
      const institutions = [...embedded.institutions()];
      const differ: string[] = [];
      // Four at a time: the remote adapter's pool has four connections.
      for (let i = 0; i < institutions.length; i += 4) {
        await Promise.all(
          institutions.slice(i, i + 4).map(async (institution) => {
            const here = (await embedded.describe(institution)).quads;
            const found = remote.lookup(institution.isil);
            assert.equal(found.kind, 'found', institution.isil);
            const there = (await remote.describe(found.institution)).quads;
            if (there.length === 0 || !isomorphic(normalise(there), normalise(here)))
              differ.push(institution.isil);
          }),
        );
      }
      assert.deepEqual(differ.slice(0, 10), [], `${differ.length} institutions differ`);
      // What the normalisations changed: printed for the record, bounded so none hides much.
      console.log(
        `      ${institutions.length} institutions compared; normalised: ${normalised.language} language tags, ${normalised.dateTime} dateTimes`,
      );
    });
  },
);

(ADAPTERS.includes('remote') ? describe : describe.skip)(
  'a store that gives at most 5,000 rows an answer, without saying so',
  function () {
    before(needsThirdParty);
    this.timeout(300_000);
    let virtuoso: Virtuoso;
    before(async () => {
      virtuoso = await startVirtuoso(60_000, 10, 10_000, 5_000);
    });
    after(() => virtuoso.stop());

    it('is read in pages: the index holds every institution, not the first 5,000', async () => {
      const config = testConfig();
      await loadRemote(BUNDLED_DATASET, { baseIri: config.baseIri }, config, bulkTarget(virtuoso));
      const store = new SparqlStore(
        { endpoint: virtuoso.endpoint, connections: 4, deadlineMs: 30_000 },
        config.baseIri,
      );
      try {
        const { dataset } = await store.open();
        const embedded = (await loadSources(BUNDLED_DATASET, { baseIri: config.baseIri })).dataset;
        try {
          assert.ok(embedded.institutionCount > 15_000);
          assert.equal(dataset.institutionCount, embedded.institutionCount);
          assert.equal(dataset.withdrawnCount, embedded.withdrawnCount);
        } finally {
          embedded.free();
        }
      } finally {
        await store.close();
      }
    });
  },
);
