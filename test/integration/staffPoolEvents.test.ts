// What the staff pool tells the process's log (src/store/embedded/staffPool.ts, PoolEvents): a version
// its workers cannot load is a failure, an error line; workers ended by a stop while they load
// are no failure, so a routine stop logs none (docs/operations.md, the staff endpoint).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { StaffPool, type PoolEvents } from '../../src/store/embedded/staffPool';
import { BASE, DE_1A_RDF, needsThirdParty, tempDir, testConfig } from '../support';

/** The pool's events, as they come. */
function recorder(): { events: PoolEvents; failed: string[]; replaced: string[] } {
  const failed: string[] = [];
  const replaced: string[] = [];
  return {
    failed,
    replaced,
    events: {
      failed: (_version, error) => failed.push(error.message),
      replaced: (_version, why) => replaced.push(why),
    },
  };
}

describe('the staff pool’s events: a failed load, and a stop', function () {
  this.timeout(60_000);
  before(needsThirdParty);
  const settings = testConfig().sparql;

  it('a version whose sources are gone is a failure the log hears of', async () => {
    const gone = path.join(tempDir(), 'gone.rdf');
    fs.copyFileSync(DE_1A_RDF, gone);
    const { events, failed } = recorder();
    const pool = new StaffPool(settings, events);
    fs.rmSync(gone);
    pool.serve({ sources: [gone], options: { baseIri: BASE } }, 'v1');
    for (let i = 0; i < 400 && failed.length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await pool.close();
    assert.equal(failed.length, 1);
  });

  it('workers ended by a stop while they load are no failure', async () => {
    const { events, failed, replaced } = recorder();
    const pool = new StaffPool(settings, events);
    pool.serve({ sources: [DE_1A_RDF], options: { baseIri: BASE } }, 'v1');
    assert.ok(
      pool.workers().some((w) => w.state === 'loading'),
      'a worker is loading',
    );
    await pool.close();
    assert.deepEqual(failed, []);
    assert.deepEqual(replaced, []);
  });
});
