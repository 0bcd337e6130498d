// One dump file being written (src/documents/dumpWriting.ts): whole, renamed into place with its
// SHA-256; and a file that cannot be written (here: its temporary name is taken by a folder, as a
// full disk or a folder gone fails it) fails the writing instead of leaving it waiting for ever.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Writing } from '../../../src/documents/dumpWriting';
import { tempDir } from '../../support';

describe('a dump file being written', () => {
  let dir: string;
  before(() => (dir = tempDir()));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is renamed into place whole, with its size and SHA-256', async () => {
    const file = path.join(dir, 'a.csv');
    const writing = new Writing(file, false);
    await writing.write('isil,name\r\n');
    await writing.write('DE-1a,Staatsbibliothek\r\n');
    const { bytes, sha256 } = await writing.close();
    const text = fs.readFileSync(file, 'utf8');
    assert.equal(text, 'isil,name\r\nDE-1a,Staatsbibliothek\r\n');
    assert.equal(bytes, Buffer.byteLength(text));
    assert.equal(sha256, createHash('sha256').update(text).digest('hex'));
    assert.ok(!fs.existsSync(`${file}.part`));
  });

  for (const gzip of [false, true])
    it(`fails, and does not wait for ever, when its file cannot be written (${gzip ? 'gzip' : 'plain'})`, async () => {
      const file = path.join(dir, `broken-${gzip}.nt.gz`);
      fs.mkdirSync(`${file}.part`);
      const writing = new Writing(file, gzip);
      // Enough to fill any stream's buffer: the write that must wait for a drain.
      const chunk = 'x'.repeat(1 << 20);
      await assert.rejects(async () => {
        for (let i = 0; i < 64; i++) await writing.write(chunk);
        await writing.close();
      }, /EISDIR|illegal operation on a directory/);
      await assert.rejects(writing.close(), /EISDIR|illegal operation on a directory/);
      assert.ok(!fs.existsSync(file), 'nothing renamed into place');
    });
});
