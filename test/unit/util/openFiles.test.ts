// The process's limit of open files (src/util/openFiles.ts), which bounds the connections it holds.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openFilesLimit } from '../../../src/util/openFiles';

describe('openFilesLimit', () => {
  it('reads the soft limit Linux reports for the process', function () {
    if (!fs.existsSync('/proc/self/limits')) this.skip(); // not Linux: nothing to read
    const limit = openFilesLimit();
    assert.ok(Number.isInteger(limit) && limit! > 0, `a positive limit, got ${limit}`);
  });

  it('holds at least the files the process has open now', function () {
    if (!fs.existsSync('/proc/self/fd')) this.skip();
    assert.ok(openFilesLimit()! >= fs.readdirSync('/proc/self/fd').length);
  });
});
