// The snapshot a loader writes beside its change log (src/load/snapshotWriter.ts): made by a thread
// of its own, the same bytes as written by the loading thread, and nothing left behind when the
// version does not go live.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { generate } from '../../cli/generate';
import { loadSources, writeSnapshot, type Loaded } from '../../src/load/loadSources';
import { SnapshotWriting } from '../../src/load/snapshotWriter';
import { BASE, FIXTURES, tempDir } from '../support';

const WITHDRAWN_TTL = path.join(FIXTURES, 'test', 'withdrawn.ttl');
const HISTORY = { version: 'a1b2c3d4e5f6', time: 1_700_000_000 };

describe('a snapshot written by a thread of its own while the change log is written', () => {
  let dir: string;
  let loaded: Loaded;

  before(async () => {
    dir = tempDir();
    const source = path.join(dir, 'synthetic.nt');
    fs.writeFileSync(source, [...generate({ count: 300, seed: 5, base: BASE })].join(''));
    // A thread of its own for the canonical reading too: its pieces are what the thread is handed.
    loaded = await loadSources([source, WITHDRAWN_TTL], { baseIri: BASE, canonicalThreadFrom: 0 });
  });
  after(() => {
    loaded.dataset.free();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const left = (folder: string) => fs.readdirSync(folder).filter((f) => f.includes('.tmp-'));

  it('has the bytes the loading thread writes, and goes in place only when done', async () => {
    const here = path.join(dir, 'here', 'dataset.nq');
    const written = writeSnapshot(loaded, here, { history: HISTORY });
    const there = path.join(dir, 'there', 'dataset.nq');
    const writing = await SnapshotWriting.start(loaded, there, HISTORY);
    assert.equal(fs.existsSync(there), false, 'not in place before it is done');
    let seen = false;
    const done = await writing.done(() => (seen = fs.existsSync(there)));
    assert.equal(seen, false, 'not in place before the rename');
    assert.deepEqual(done, written);
    assert.ok(fs.readFileSync(there).equals(fs.readFileSync(here)));
    assert.deepEqual(left(path.dirname(there)), []);
  });

  it('leaves the target as it was, and no temporary file, when abandoned', async () => {
    const target = path.join(dir, 'kept', 'dataset.nq');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, 'the version before\n');
    const writing = await SnapshotWriting.start(loaded, target, HISTORY);
    await writing.abandon();
    assert.equal(fs.readFileSync(target, 'utf8'), 'the version before\n');
    assert.deepEqual(left(path.dirname(target)), []);
  });
});
