// The third-party files (src/util/thirdParty.ts): where each lives, whether a copy is the
// manifest's, and fetching from a folder that holds them by name, refusing any other bytes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  fetchThirdParty,
  THIRD_PARTY_FOLDER,
  thirdPartyDir,
  thirdPartyFile,
  thirdPartyFiles,
  thirdPartyIntact,
  thirdPartyPath,
} from '../../../src/util/thirdParty';

/** The manifest's smallest file: copied about by the tests below. */
const SMALLEST = [...thirdPartyFiles().values()].sort((a, b) => a.size - b.size)[0]!;

describe('the third-party files', () => {
  let dir: string;
  const folder = (name: string) => fs.mkdtempSync(path.join(dir, `${name}-`));
  before(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isil-ld-third-party-'))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('are each named once, with a digest and a size', () => {
    for (const file of thirdPartyFiles().values()) {
      assert.match(file.sha256, /^[0-9a-f]{64}$/, file.name);
      assert.ok(file.size > 0, file.name);
    }
  });

  it('live below data/third-party/ at their names', () => {
    assert.equal(thirdPartyPath(SMALLEST.name), path.join(THIRD_PARTY_FOLDER, SMALLEST.name));
  });

  it('refuse a name the manifest does not list', () => {
    assert.throws(() => thirdPartyFile('data/real/nothing.tsv'), /is not a third-party file/);
  });

  it('take THIRD_PARTY_DIR resolved, and no folder when it is empty or unset', () => {
    assert.equal(thirdPartyDir({ THIRD_PARTY_DIR: ' shared ' }), path.resolve('shared'));
    assert.equal(thirdPartyDir({ THIRD_PARTY_DIR: '  ' }), undefined);
    assert.equal(thirdPartyDir({}), undefined);
  });

  it('count a copy of the same size but other bytes as not intact', () => {
    const into = folder('edited');
    const at = path.join(into, SMALLEST.name);
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.writeFileSync(at, Buffer.alloc(SMALLEST.size, 0x20));
    assert.equal(thirdPartyIntact(SMALLEST.name, into), false);
    assert.equal(thirdPartyIntact(SMALLEST.name, folder('empty')), false);
  });

  it('refuse a file of the source folder that is not the manifest’s, leaving nothing at its name', async () => {
    const from = folder('from');
    const into = folder('into');
    fs.mkdirSync(path.dirname(path.join(from, SMALLEST.name)), { recursive: true });
    fs.writeFileSync(path.join(from, SMALLEST.name), 'not the file\n');
    const [outcome] = await fetchThirdParty({ names: [SMALLEST.name], from, into });
    assert.equal(outcome?.outcome, 'failed');
    assert.match(
      outcome.outcome === 'failed' ? outcome.reason : '',
      /not the file of the manifest/,
    );
    assert.equal(fs.existsSync(path.join(into, SMALLEST.name)), false);
  });

  it('say a file missing from the source folder is missing', async () => {
    const [outcome] = await fetchThirdParty({
      names: [SMALLEST.name],
      from: folder('nothing'),
      into: folder('into'),
    });
    assert.equal(outcome?.outcome, 'failed');
    assert.match(outcome.outcome === 'failed' ? outcome.reason : '', /no such file$/);
  });

  it('fetch the manifest’s bytes from a folder, then find them present', async function () {
    if (!thirdPartyIntact(SMALLEST.name)) this.skip(); // no intact copy to fetch from here
    const into = folder('into');
    const first = await fetchThirdParty({ names: [SMALLEST.name], from: THIRD_PARTY_FOLDER, into });
    assert.deepEqual(first, [
      {
        name: SMALLEST.name,
        outcome: 'fetched',
        from: path.join(THIRD_PARTY_FOLDER, SMALLEST.name),
      },
    ]);
    assert.equal(thirdPartyIntact(SMALLEST.name, into), true);
    const again = await fetchThirdParty({ names: [SMALLEST.name], from: THIRD_PARTY_FOLDER, into });
    assert.deepEqual(again, [{ name: SMALLEST.name, outcome: 'present' }]);
  });
});
