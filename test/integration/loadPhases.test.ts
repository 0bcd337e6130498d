// The phases a load tells `LoadOptions.onPhase` (test/bench/loadPhases.ts times them): every one,
// once, in order, through going live with the change log and without.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { commitVersion } from '../../src/load/commit/commitVersion';
import { loadSources, type LoadPhase } from '../../src/load/loadSources';
import { BASE, FIXTURES, tempDir } from '../support';

const SOURCE = path.join(FIXTURES, 'test', 'withdrawn.ttl');

/** The phases of one load of SOURCE written to a new folder, with a log or without. */
async function phasesOf(withLog: boolean): Promise<LoadPhase[]> {
  const folder = tempDir();
  const phases: LoadPhase[] = [];
  const onPhase = (phase: LoadPhase) => phases.push(phase);
  try {
    const loaded = await loadSources([SOURCE], { baseIri: BASE, validate: true, onPhase });
    try {
      await commitVersion(
        loaded,
        {
          dataset: path.join(folder, 'dataset.nq'),
          baseIri: BASE,
          historyDir: withLog ? path.join(folder, 'history') : '',
          historyKeepVersions: 10,
        },
        { onPhase },
      );
    } finally {
      loaded.dataset.free();
    }
    return phases;
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

describe('the phases of a load (LoadOptions.onPhase)', () => {
  it('with the change log: each phase once, in order', async () =>
    assert.deepEqual(await phasesOf(true), [
      'parse',
      'descriptions',
      'index',
      'canonicalisation',
      'validation',
      'log',
      'snapshot',
    ]));

  it('without a change log: no log phase', async () =>
    assert.deepEqual(await phasesOf(false), [
      'parse',
      'descriptions',
      'index',
      'canonicalisation',
      'validation',
      'snapshot',
    ]));
});
