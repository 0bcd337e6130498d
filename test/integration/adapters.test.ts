// The adapters the settings choose (src/process/adapters.ts): the embedded store and its staff pool,
// or a remote endpoint for both; and a replica that follows the version its remote store marks
// current (STORE_POLL_SECONDS), with a real Virtuoso.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadRemote } from '../../cli/remote';
import { StaffPool } from '../../src/store/embedded/staffPool';
import { StoreThread } from '../../src/store/embedded/storeThread';
import { createLogger } from '../../src/util/logger';
import { adaptersFor, type Adapters } from '../../src/process/adapters';
import { SparqlStore } from '../../src/store/remote/sparqlStore';
import { RemoteStaff } from '../../src/store/remote/staffRemote';
import { bulkTarget, sharedVirtuoso } from '../servers/virtuoso';
import {
  ADAPTERS,
  BASE,
  DE_1A_RDF,
  FIXTURES,
  needsThirdParty,
  tempDir,
  testConfig,
} from '../support';

const logger = createLogger('silent');

/** The adapters of `env`, closed after `use`. */
async function withAdapters(
  env: Record<string, string>,
  use: (adapters: Adapters) => Promise<void> | void,
): Promise<void> {
  const adapters = adaptersFor(testConfig(env), logger);
  try {
    await use(adapters);
  } finally {
    await Promise.all([adapters.store.close(), adapters.staff?.close()]);
  }
}

describe('the adapters the settings choose', function () {
  this.timeout(60_000);
  let users: string;
  before(() => {
    const dir = tempDir();
    users = path.join(dir, 'users');
    fs.writeFileSync(users, '');
  });

  it('the embedded store, without staff queries when SPARQL_USERS is not set', () =>
    withAdapters({}, ({ store, staff }) => {
      assert.ok(store instanceof StoreThread);
      assert.equal(store.health().kind, 'embedded');
      assert.equal(staff, undefined);
    }));

  it('the embedded store and its pool of query workers with SPARQL_USERS', () =>
    withAdapters({ SPARQL_USERS: users }, ({ store, staff }) => {
      assert.ok(store instanceof StoreThread);
      assert.ok(staff instanceof StaffPool);
    }));

  it('a remote endpoint for the store and the staff queries with STORE=remote', () =>
    withAdapters(
      { STORE: 'remote', SPARQL_ENDPOINT: 'http://127.0.0.1:9/sparql', SPARQL_USERS: users },
      ({ store, staff }) => {
        assert.ok(store instanceof SparqlStore);
        assert.equal(store.health().kind, 'remote');
        assert.ok(staff instanceof RemoteStaff);
      },
    ));
});

(ADAPTERS.includes('remote') ? describe : describe.skip)(
  'a replica following its remote store (STORE_POLL_SECONDS)',
  function () {
    before(needsThirdParty);
    this.timeout(120_000);

    it('reloads once the store marks another version current than the one served, not before', async () => {
      const virtuoso = await sharedVirtuoso();
      const env = { STORE: 'remote', SPARQL_ENDPOINT: virtuoso.endpoint, STORE_POLL_SECONDS: '1' };
      const config = testConfig(env);
      await loadRemote([DE_1A_RDF], { baseIri: BASE }, config, bulkTarget(virtuoso));
      await withAdapters(env, async ({ store, follow }) => {
        const { dataset } = await store.open({ sources: [], options: { baseIri: BASE } });
        let reloads = 0;
        const stop = follow(
          () => dataset.version,
          () => reloads++,
        );
        await new Promise((resolve) => setTimeout(resolve, 2500));
        assert.equal(reloads, 0);
        const other = path.join(FIXTURES, 'test', 'withdrawn.ttl');
        await loadRemote([other], { baseIri: BASE }, config, bulkTarget(virtuoso));
        for (let waited = 0; reloads === 0 && waited < 10_000; waited += 250)
          await new Promise((resolve) => setTimeout(resolve, 250));
        stop();
        dataset.free();
        assert.ok(reloads > 0);
      });
    });
  },
);
