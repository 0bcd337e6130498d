// The snapshot a loader writes once its change log is flushed (`writeSnapshot`, as commitVersion
// calls it): written to a temporary file beside its target and renamed in place only when whole,
// the same bytes each time, and nothing left behind when the version does not go live. A load told
// its target writes the pieces there as it reads them; the same bytes as a snapshot read again.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { generate } from '../../cli/generate';
import { loadSources, writeSnapshot, type Loaded } from '../../src/load/loadSources';
import { BASE, FIXTURES, tempDir } from '../support';

const WITHDRAWN_TTL = path.join(FIXTURES, 'test', 'withdrawn.ttl');
const HISTORY = { version: 'a1b2c3d4e5f6', time: 1_700_000_000 };

describe('a snapshot written beside its target, then renamed in place', () => {
  let dir: string;
  let loaded: Loaded;

  before(async () => {
    dir = tempDir();
    const source = path.join(dir, 'synthetic.nt');
    fs.writeFileSync(source, [...generate({ count: 300, seed: 5, base: BASE })].join(''));
    loaded = await loadSources([source, WITHDRAWN_TTL], { baseIri: BASE });
  });
  after(() => {
    loaded.dataset.free();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const left = (folder: string) => fs.readdirSync(folder).filter((f) => f.includes('.tmp-'));

  it('has the same bytes each time, and goes in place only when done', async () => {
    const here = path.join(dir, 'here', 'dataset.nq');
    const written = await writeSnapshot(loaded, here, { history: HISTORY });
    const there = path.join(dir, 'there', 'dataset.nq');
    let seen = true;
    let temporary: string[] = [];
    const done = await writeSnapshot(loaded, there, {
      history: HISTORY,
      beforeRename: () => {
        seen = fs.existsSync(there);
        temporary = left(path.dirname(there));
      },
    });
    assert.equal(seen, false, 'not in place before the rename');
    assert.equal(temporary.length, 1, 'written beside its target');
    assert.deepEqual(done, written);
    assert.ok(fs.readFileSync(there).equals(fs.readFileSync(here)));
    assert.deepEqual(left(path.dirname(there)), []);
  });

  it('leaves the target as it was, and no temporary file, when it fails before the rename', async () => {
    const target = path.join(dir, 'kept', 'dataset.nq');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, 'the version before\n');
    const failing = () => {
      throw new Error('the disk is full');
    };
    await assert.rejects(
      () => writeSnapshot(loaded, target, { history: HISTORY, beforeRename: failing }),
      /the disk is full/,
    );
    assert.equal(fs.readFileSync(target, 'utf8'), 'the version before\n');
    assert.deepEqual(left(path.dirname(target)), []);
  });

  it('written as the load reads when told its target: the same bytes, in place only at the end', async () => {
    const again = path.join(dir, 'again', 'dataset.nq');
    await writeSnapshot(loaded, again, { history: HISTORY });
    const target = path.join(dir, 'streamed', 'dataset.nq');
    const source = path.join(dir, 'synthetic.nt');
    const streamed = await loadSources([source, WITHDRAWN_TTL], {
      baseIri: BASE,
      snapshot: target,
    });
    try {
      assert.equal(fs.existsSync(target), false, 'not in place while the load is not committed');
      assert.equal(left(path.dirname(target)).length, 1, 'its pieces beside the target');
      assert.ok(fs.statSync(streamed.canonical!.snapshot!.file).size > 100_000);
      await writeSnapshot(streamed, target, { history: HISTORY });
    } finally {
      streamed.dataset.free();
    }
    assert.ok(fs.readFileSync(target).equals(fs.readFileSync(again)));
    assert.deepEqual(left(path.dirname(target)), []);
  });

  it('leaves no pieces behind when a load told its target is discarded', async () => {
    const target = path.join(dir, 'refused', 'dataset.nq');
    const source = path.join(dir, 'synthetic.nt');
    const refused = await loadSources([source], { baseIri: BASE, snapshot: target });
    refused.canonical!.snapshot!.discard();
    refused.dataset.free();
    assert.deepEqual(left(path.dirname(target)), []);
    assert.equal(fs.existsSync(target), false);
  });
});
