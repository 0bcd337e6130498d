// Why a file an operator named cannot be read (src/util/files.ts): one sentence naming the file
// and what is wrong with it, for each kind of file that is not a readable regular one.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileDefect } from '../../../src/util/files';

describe('fileDefect', () => {
  let dir: string;
  const at = (name: string) => path.join(dir, name);
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isil-ld-files-'));
    fs.writeFileSync(at('good.nt'), '<a:b> <a:c> <a:d> .\n');
    fs.writeFileSync(at('empty.nt'), '');
    fs.mkdirSync(at('folder'));
    fs.symlinkSync(at('gone.nt'), at('dangling.nt'));
    fs.symlinkSync(at('loop-b'), at('loop-a'));
    fs.symlinkSync(at('loop-a'), at('loop-b'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('finds nothing wrong with a readable, non-empty regular file', () => {
    assert.equal(fileDefect(at('good.nt'), 'a dataset'), undefined);
  });

  it('says a file is missing', () => {
    assert.equal(fileDefect(at('none.nt'), 'a dataset'), `${at('none.nt')} does not exist`);
  });

  it('says where a dangling symbolic link points', () => {
    assert.equal(
      fileDefect(at('dangling.nt'), 'a dataset'),
      `${at('dangling.nt')} is a symbolic link to ${at('gone.nt')}, which does not exist`,
    );
  });

  it('says a symbolic link leads back to itself', () => {
    assert.match(fileDefect(at('loop-a'), 'a dataset') ?? '', /a symbolic link in a loop/);
  });

  it('names what the file should have been when it is a folder', () => {
    assert.equal(
      fileDefect(at('folder'), 'a dataset'),
      `${at('folder')} is a folder, not a dataset`,
    );
  });

  it('says a path through a file is not a folder', () => {
    assert.match(
      fileDefect(at('good.nt/x'), 'a dataset') ?? '',
      /a part of the path is not a folder/,
    );
  });

  it('refuses an empty file unless told an empty one is allowed', () => {
    assert.equal(fileDefect(at('empty.nt'), 'a dataset'), `${at('empty.nt')} is empty`);
    assert.equal(fileDefect(at('empty.nt'), 'a credentials file', 'allowed'), undefined);
  });

  it('says a socket is not a file', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(at('socket'), resolve));
    try {
      assert.equal(
        fileDefect(at('socket'), 'a dataset'),
        `${at('socket')} is a socket, not a dataset`,
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('says a file cannot be read for want of permission', function () {
    if (process.getuid?.() === 0) this.skip(); // root reads any file
    fs.writeFileSync(at('secret.nt'), 'x', { mode: 0o000 });
    assert.equal(
      fileDefect(at('secret.nt'), 'a dataset'),
      `${at('secret.nt')} cannot be read: permission denied`,
    );
  });
});
