// The parts of the staff pool (src/store/embedded/staffLanes.ts) that need no worker: the dump's
// file, which leaves nothing on disk, a generation's state before its workers, and what a query
// that found no worker is told.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import {
  Generation,
  noWorkerWithin,
  openUnlinked,
} from '../../../../src/store/embedded/staffLanes';
import type { VersionToLoad } from '../../../../src/store/embedded/staffProtocol';
import { StaffUnavailable } from '../../../../src/store/staff';

const VERSION: VersionToLoad = {
  sources: [],
  options: { baseIri: 'https://ld.zdb-services.de' },
  version: 'v1',
};

describe('the staff pool’s parts', () => {
  describe('openUnlinked', () => {
    it('opens a file for reading and writing that no folder lists', () => {
      const before = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('isil-ld-sparql-'));
      const fd = openUnlinked();
      try {
        fs.writeSync(fd, 'the dump\n', 0);
        const read = Buffer.alloc(9);
        fs.readSync(fd, read, 0, 9, 0);
        assert.equal(read.toString(), 'the dump\n');
        const after = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('isil-ld-sparql-'));
        assert.deepEqual(after, before);
        assert.equal(fs.fstatSync(fd).nlink, 0);
      } finally {
        fs.closeSync(fd);
      }
    });

    it('opens a new file each time', () => {
      const [a, b] = [openUnlinked(), openUnlinked()];
      try {
        fs.writeSync(a, 'a', 0);
        assert.equal(fs.fstatSync(b).size, 0);
      } finally {
        fs.closeSync(a);
        fs.closeSync(b);
      }
    });
  });

  describe('a generation before its workers', () => {
    it('neither answers nor starts, and holds no dump', () => {
      const generation = new Generation(1, VERSION);
      assert.equal(generation.answering, false);
      assert.equal(generation.starting, false);
      assert.equal(generation.dump, undefined);
      assert.equal(generation.loaded, false);
    });
  });

  describe('noWorkerWithin', () => {
    it('says the workers are loading when no generation can answer yet', () => {
      const error = noWorkerWithin(2000, [new Generation(1, VERSION)], 5);
      assert.ok(error instanceof StaffUnavailable);
      assert.match(error.message, /loading the data served and could not answer within 2000 ms/);
      assert.equal(error.retryAfter, 5);
    });

    it('says so for a pool with no generation at all', () => {
      assert.match(noWorkerWithin(100, [], 1).message, /SPARQL_TIMEOUT_MS/);
    });
  });
});
