// The container's first start on an empty volume: the bundled dataset's
// snapshot is written to DATASET once, and a file already there is never replaced.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadSources } from '../../src/load/loadSources';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { PROJECT_ROOT } from '../../src/util/paths';
import { BASE, tempDir, needsThirdParty } from '../support';

const INIT = path.join(PROJECT_ROOT, 'cli', 'initDataset.ts');
const ENTRYPOINT = path.join(PROJECT_ROOT, 'docker-entrypoint.sh');

function init(dataset: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', INIT], {
    env: { ...process.env, DATASET: dataset, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('initialising an empty volume with the bundled dataset', function () {
  before(needsThirdParty);
  this.timeout(60_000);
  let dir: string;
  let dataset: string;
  before(() => {
    dir = tempDir();
    dataset = path.join(dir, 'volume', 'dataset.nq');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes the snapshot of the bundled dataset when nothing is at DATASET', async () => {
    const run = init(dataset);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /the bundled dataset's snapshot written \(\d+ institutions/);
    // As the server loads it: its version from the trailer, which is the bundled sources' own.
    const fromSnapshot = await loadSources([dataset], { baseIri: BASE, reuseStates: true });
    const bundled = await loadSources(BUNDLED_DATASET, { baseIri: BASE });
    assert.equal(fromSnapshot.dataset.version, bundled.dataset.version);
    assert.match(run.stdout, new RegExp(`version ${bundled.dataset.version}\\)`));
    assert.equal(fromSnapshot.dataset.institutionCount, bundled.dataset.institutionCount);
    assert.equal(fromSnapshot.dataset.withdrawnCount, bundled.dataset.withdrawnCount);
    assert.equal(fromSnapshot.report.triples, bundled.report.triples);
    fromSnapshot.dataset.free();
    bundled.dataset.free();
  });

  it('leaves a file that is there alone, whatever it holds', () => {
    fs.writeFileSync(dataset, 'an operator’s file\n');
    const run = init(dataset);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /exists: left as it is/);
    assert.equal(fs.readFileSync(dataset, 'utf8'), 'an operator’s file\n');
  });

  it('a snapshot that went missing from an initialised volume is not written again', () => {
    fs.rmSync(dataset);
    const run = init(dataset);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /says this volume was initialised before: nothing written/);
    assert.equal(fs.existsSync(dataset), false);
  });

  it('the image’s entry point runs any other command as it is', () => {
    const run = spawnSync('sh', [ENTRYPOINT, 'echo', 'hello'], { encoding: 'utf8' });
    assert.equal(run.status, 0);
    assert.equal(run.stdout, 'hello\n');
  });
});
