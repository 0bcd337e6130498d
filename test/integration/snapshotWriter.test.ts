// The snapshot a loader writes once its change log is flushed (`writeSnapshot`, as commitVersion
// calls it): written to a temporary file beside its target and renamed in place only when whole,
// the same bytes each time, and nothing left behind when the version does not go live.
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

  it('has the same bytes each time, and goes in place only when done', () => {
    const here = path.join(dir, 'here', 'dataset.nq');
    const written = writeSnapshot(loaded, here, { history: HISTORY });
    const there = path.join(dir, 'there', 'dataset.nq');
    let seen = true;
    let temporary: string[] = [];
    const done = writeSnapshot(loaded, there, {
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

  it('leaves the target as it was, and no temporary file, when it fails before the rename', () => {
    const target = path.join(dir, 'kept', 'dataset.nq');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, 'the version before\n');
    const failing = () => {
      throw new Error('the disk is full');
    };
    assert.throws(
      () => writeSnapshot(loaded, target, { history: HISTORY, beforeRename: failing }),
      /the disk is full/,
    );
    assert.equal(fs.readFileSync(target, 'utf8'), 'the version before\n');
    assert.deepEqual(left(path.dirname(target)), []);
  });
});
