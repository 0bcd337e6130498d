// The updates a load runs on the store it fills (src/store/embedded/updates.ts): institutions'
// descriptions removed whole and nothing else, the check for an institution under the base, and
// data minted under the other scheme served under the configured one. Graphs compared as graphs.
import assert from 'node:assert/strict';
import { DatasetStore } from '../../../../src/store/embedded/datasetStore';
import {
  holdsInstitution,
  removalUpdate,
  removeDescriptions,
  rewriteHttpBase,
} from '../../../../src/store/embedded/updates';
import { parseTurtle, sameGraph } from '../../../support';

const BASE = 'https://ld.zdb-services.de';
const PREFIXES = `@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix v: <http://www.w3.org/2006/vcard/ns#> .
@prefix wdrs: <http://www.w3.org/2007/05/powder-s#> .
@prefix org: <${BASE}/resource/organisations/> .
@prefix data: <${BASE}/data/organisations/> .
`;

/** Two institutions: X with an address two blank nodes deep, a document, a web page of its own and
 * one it shares with Y. */
const TWO = `${PREFIXES}
org:DE-X a foaf:Organization ; foaf:name "X" ;
  v:adr [ v:street-address "Weg 1" ; v:geo [ v:latitude "52.5" ] ] ;
  wdrs:describedby data:DE-X ;
  v:url <https://x.example/> , <https://shared.example/> .
data:DE-X foaf:primaryTopic org:DE-X .
<https://x.example/> foaf:name "X's page" .
<https://shared.example/> foaf:name "A page of both" .
org:DE-Y a foaf:Organization ; foaf:name "Y" ; v:url <https://shared.example/> .
`;

const Y_LEFT = `${PREFIXES}
<https://shared.example/> foaf:name "A page of both" .
org:DE-Y a foaf:Organization ; foaf:name "Y" ; v:url <https://shared.example/> .
`;

const graphOf = (store: DatasetStore, iri?: string) =>
  parseTurtle(store.graphTriples(iri), 'N-Triples');

describe('the updates of a load', () => {
  let store: DatasetStore;
  beforeEach(() => (store = new DatasetStore()));
  afterEach(() => store.free());
  const loadTurtle = (text: string) => store.load(text, 'ttl', `${BASE}/`);

  describe('removeDescriptions', () => {
    it('removes an institution with its blank nodes, its document and the nodes only it links to', () => {
      loadTurtle(TWO);
      removeDescriptions(store, [`${BASE}/resource/organisations/DE-X`]);
      assert.ok(sameGraph(graphOf(store), parseTurtle(Y_LEFT)));
    });

    it('removes the description graph of a placed institution', () => {
      loadTurtle(TWO);
      assert.ok(store.placeDescriptions(BASE));
      removeDescriptions(store, [`${BASE}/resource/organisations/DE-X`]);
      assert.equal(store.graphTriples(`${BASE}/data/organisations/DE-X`), '');
      assert.notEqual(store.graphTriples(`${BASE}/data/organisations/DE-Y`), '');
    });

    it('removes nothing for an institution the store does not hold', () => {
      loadTurtle(TWO);
      const before = graphOf(store);
      removeDescriptions(store, [`${BASE}/resource/organisations/DE-Z`]);
      assert.ok(sameGraph(graphOf(store), before));
    });

    it('removes many institutions, past one update’s batch', () => {
      const many = Array.from({ length: 300 }, (_, n) => `org:DE-${n} a foaf:Organization .`);
      loadTurtle(`${PREFIXES}${many.join('\n')}\norg:DE-Y foaf:name "Y" .`);
      removeDescriptions(
        store,
        Array.from({ length: 300 }, (_, n) => `${BASE}/resource/organisations/DE-${n}`),
      );
      assert.ok(sameGraph(graphOf(store), parseTurtle(`${PREFIXES}org:DE-Y foaf:name "Y" .`)));
    });

    it('refuses an IRI that could end the <…> it is written into', () => {
      assert.throws(() => removalUpdate([`${BASE}/resource/organisations/DE-X> } ; DROP ALL ; #`]));
    });
  });

  describe('holdsInstitution', () => {
    it('finds a foaf:Organization under the base', () => {
      loadTurtle(TWO);
      assert.equal(holdsInstitution(store, BASE), true);
    });

    it('finds none under another base, nor in a store without one', () => {
      loadTurtle(TWO);
      assert.equal(holdsInstitution(store, 'https://other.example'), false);
      const empty = new DatasetStore();
      assert.equal(holdsInstitution(empty, BASE), false);
      empty.free();
    });
  });

  describe('rewriteHttpBase', () => {
    it('serves data minted under http:// under the https:// base, subjects and objects', () => {
      loadTurtle(TWO.replaceAll(`<${BASE}/`, `<http://ld.zdb-services.de/`));
      // X's six triples, its document's one and Y's three: a blank node's are not under a base.
      assert.equal(rewriteHttpBase(store, BASE), 10);
      assert.ok(sameGraph(graphOf(store), parseTurtle(TWO)));
    });

    it('leaves data already under the base alone and says none was rewritten', () => {
      loadTurtle(TWO);
      assert.equal(rewriteHttpBase(store, BASE), 0);
      assert.ok(sameGraph(graphOf(store), parseTurtle(TWO)));
    });

    it('rewrites https:// data for an http:// base as well', () => {
      loadTurtle(TWO);
      rewriteHttpBase(store, 'http://ld.zdb-services.de');
      assert.equal(holdsInstitution(store, 'http://ld.zdb-services.de'), true);
      assert.equal(holdsInstitution(store, BASE), false);
    });
  });
});
