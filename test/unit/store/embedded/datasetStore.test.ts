// The embedded store's count of its quads (src/store/embedded/datasetStore.ts): counted once, and
// counted again after every kind of write.
import assert from 'node:assert/strict';
import { DatasetStore } from '../../../../src/store/embedded/datasetStore';

const BASE = 'https://ld.zdb-services.de';
const X = `<${BASE}/resource/organisations/DE-X>`;
const NAME = '<http://xmlns.com/foaf/0.1/name>';
const TYPE = '<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>';
const ORGANIZATION = '<http://xmlns.com/foaf/0.1/Organization>';

describe('DatasetStore.size: the quads it holds, after each kind of write', () => {
  let store: DatasetStore;
  beforeEach(() => (store = new DatasetStore()));
  afterEach(() => store.free());

  it('counts what a load added, and each load after it', () => {
    assert.equal(store.size, 0);
    store.load(`${X} ${NAME} "X" .\n`, 'nt');
    assert.equal(store.size, 1);
    store.load(`${X} ${TYPE} ${ORGANIZATION} .\n`, 'nt');
    assert.equal(store.size, 2);
  });

  it('counts again after an update, adding or removing', () => {
    store.load(`${X} ${NAME} "X" .\n`, 'nt');
    assert.equal(store.size, 1);
    store.update(`INSERT DATA { ${X} ${TYPE} ${ORGANIZATION} . ${X} ${NAME} "Y" }`);
    assert.equal(store.size, 3);
    store.update(`DELETE DATA { ${X} ${NAME} "X" }`);
    assert.equal(store.size, 2);
  });

  it('counts again after the default graph is placed in the descriptions', () => {
    store.load(`${X} ${TYPE} ${ORGANIZATION} .\n${X} ${NAME} "X" .\n`, 'nt');
    assert.equal(store.size, 2);
    store.load(`${X} ${NAME} "X2" .\n`, 'nt');
    // Moved into the description's graph, none left behind in the default graph.
    assert.ok(store.placeDescriptions(BASE));
    assert.equal(store.size, 3);
    assert.equal(store.graphTriples(undefined), '');
  });
});
