// A large change log read on the serving thread (src/history/log.ts, readLogInTurns), as a start
// or a reload reads it (src/store/embedded/embeddedHistory.ts): the same contents as a read at once, and other
// work gets the event loop while it is read.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { generateHistory } from '../../../cli/generateHistory';
import { embeddedHistory } from '../../../src/store/embedded/embeddedHistory';
import { LOG_FILE, readLog, readLogInTurns } from '../../../src/history/log';
import { loadSources } from '../../../src/load/loadSources';
import { tempDir, testConfig } from '../../support';

const BASE = 'https://ld.example.org';

describe('a change log read in turns', function () {
  this.timeout(180_000);
  let dir: string;
  let file: string;
  before(() => {
    dir = tempDir();
    generateHistory({
      count: 3000,
      seed: 5,
      base: BASE,
      versions: 30,
      change: 0.5,
      snapshot: path.join(dir, 'dataset.nq'),
      historyDir: dir,
    });
    file = path.join(dir, LOG_FILE);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads what a read at once reads', async () => {
    const { inode, ...contents } = (await readLogInTurns(file))!;
    assert.equal(inode, fs.statSync(file).ino);
    assert.deepEqual(contents, readLog(file));
  });

  it('lets the event loop turn while a reload reads it', async () => {
    const snapshot = path.join(dir, 'dataset.nq');
    const config = testConfig({ BASE_IRI: BASE, DATASET: snapshot, HISTORY_DIR: dir });
    const { dataset } = await loadSources([snapshot], { baseIri: BASE });
    // Turns of the event loop while the history is opened: a read at once has none.
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    try {
      const load = { sources: [snapshot], options: { baseIri: BASE }, snapshot: true };
      setImmediate(tick);
      const opening = embeddedHistory(config, load, dataset);
      turns = 0;
      (await opening).close();
      assert.ok(turns >= 3, `${turns} turns of the event loop while the log was read`);
    } finally {
      ticking = false;
      dataset.free();
    }
  });

  it('is undefined for a log that is not there', async () => {
    assert.equal(await readLogInTurns(path.join(dir, 'none.jsonl')), undefined);
  });
});
