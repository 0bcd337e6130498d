// The canonical reading in a thread of its own (canonicalThread.ts) against the reading in the
// loading thread: the same snapshot bytes, states, descriptions and version, on generated
// institutions with withdrawn ones and a second source, and on the bundled sources; and a
// description past the work limit is the same load error from either.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { generate } from '../../../cli/generate';
import { canonicalDataset, type CanonicalDataset } from '../../../src/load/canonicalDataset';
import { LoadError, loadSources, type Loaded } from '../../../src/load/loadSources';
import { BUNDLED_DATASET } from '../../../src/util/bundled';
import { BASE, FIXTURES, knotNTriples, needsThirdParty, tempDir } from '../../support';

/** Both readings of the loaded dataset, the one in the loading thread first. */
async function bothReadings(loaded: Loaded): Promise<[CanonicalDataset, CanonicalDataset]> {
  const here = await canonicalDataset(loaded.dataset, undefined, undefined, {
    threadFrom: Infinity,
  });
  const there = await canonicalDataset(loaded.dataset, undefined, undefined, { threadFrom: 0 });
  return [here, there];
}

function assertSame(here: CanonicalDataset, there: CanonicalDataset): void {
  assert.equal(here.threaded, false);
  assert.equal(there.threaded, true, 'the reading went to its own thread');
  assert.ok(Buffer.concat([...there.pieces]).equals(Buffer.concat([...here.pieces])));
  assert.equal(there.history.version, here.history.version);
  assert.equal(there.history.rest, here.history.rest);
  assert.deepEqual(there.history.states, here.history.states);
  assert.deepEqual(new Map(there.history.descriptions), new Map(here.history.descriptions));
}

describe('the canonical reading in a thread of its own', function () {
  this.timeout(180_000);
  let dir: string;
  before(() => (dir = tempDir()));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('makes the same bytes and states as in the loading thread: generated, withdrawn, two sources', async () => {
    const generated = path.join(dir, 'generated.nt');
    fs.writeFileSync(generated, [...generate({ count: 300, seed: 5, base: BASE })].join(''));
    const withdrawn = path.join(FIXTURES, 'test', 'withdrawn.ttl');
    const loaded = await loadSources([generated, withdrawn], { baseIri: BASE });
    try {
      assert.ok(loaded.dataset.withdrawnCount > 0, 'the case has withdrawn ISILs');
      const [here, there] = await bothReadings(loaded);
      assertSame(here, there);
      assert.equal(here.history.version, loaded.dataset.version, 'the load read it so too');
    } finally {
      loaded.dataset.free();
    }
  });

  it('makes the same bytes and states as in the loading thread: the bundled sources', async function () {
    needsThirdParty.call(this);
    const loaded = await loadSources([...BUNDLED_DATASET], { baseIri: BASE });
    try {
      const [here, there] = await bothReadings(loaded);
      assertSame(here, there);
    } finally {
      loaded.dataset.free();
    }
  });

  it('refuses a description past the work limit with the load error naming its ISIL', async () => {
    const knot = path.join(dir, 'knot.nt');
    fs.writeFileSync(knot, knotNTriples());
    await assert.rejects(
      loadSources([knot], { baseIri: BASE, canonicalThreadFrom: 0 }),
      (error: unknown) =>
        error instanceof LoadError &&
        /^DE-Knot: .*too intricate to label canonically/.test(error.message),
    );
  });
});
