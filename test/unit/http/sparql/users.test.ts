// The credentials file: scrypt hashes that verify their password and no other, lines kept as
// written, mistakes named with their line, and written readable by its owner only.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  hashPassword,
  parseUsers,
  readUsers,
  UsersFileError,
  USERS_MAX_BYTES,
  verify,
  writeUser,
} from '../../../../src/http/sparql/users';
import { tempDir } from '../../../support';

describe('the credentials file', () => {
  it('hashes with scrypt and a salt of its own each time, and verifies only the password', async () => {
    const one = await hashPassword('a long password');
    const two = await hashPassword('a long password');
    assert.match(one, /^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    assert.notEqual(one, two, 'salted');
    const hash = parseUsers(`bob:${one}\n`, 'f').get('bob')!;
    assert.equal(await verify('a long password', hash), true);
    assert.equal(await verify('a long passworD', hash), false);
    assert.equal(await verify('', hash), false);
  });

  it('names the line of a malformed entry', () => {
    const good = 'scrypt$16384$8$1$AAAA$BBBB';
    for (const [text, message] of [
      [`# staff\nbob:${good}\nbob:${good}\n`, /f:3: the user bob is listed twice/],
      ['bob:plain-text-password\n', /f:1: not an scrypt hash/],
      [`\n\nbo b:${good}\n`, /f:3: expected name:hash/],
      ['bob:scrypt$1048577$8$1$AAAA$BBBB\n', /f:1: scrypt parameters out of range/],
    ] as const) {
      assert.throws(
        () => parseUsers(text, 'f'),
        (e: Error) => e instanceof UsersFileError && message.test(e.message),
      );
    }
  });

  it('adds, replaces and removes a user, keeping the others, with mode 0600', async () => {
    const file = path.join(tempDir(), 'users');
    assert.equal(writeUser(file, 'alice', await hashPassword('alice password')), false);
    assert.equal(writeUser(file, 'bob', await hashPassword('bob password')), false);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(writeUser(file, 'alice', await hashPassword('new password')), true);
    const users = readUsers(file);
    assert.deepEqual([...users.keys()].sort(), ['alice', 'bob']);
    assert.equal(await verify('new password', users.get('alice')!), true);
    assert.equal(writeUser(file, 'alice', undefined), true);
    assert.deepEqual([...readUsers(file).keys()], ['bob']);
    assert.equal(writeUser(file, 'nobody', undefined), false);
    assert.ok(!fs.readdirSync(path.dirname(file)).some((f) => f.endsWith('.tmp')));
  });

  it('refuses to rewrite a file it cannot read as one', () => {
    const file = path.join(tempDir(), 'users');
    fs.writeFileSync(file, 'this is not a credentials file\n');
    assert.throws(() => writeUser(file, 'alice', 'scrypt$16384$8$1$AAAA$BBBB'), UsersFileError);
    assert.equal(fs.readFileSync(file, 'utf8'), 'this is not a credentials file\n');
  });

  it('reads no file over USERS_MAX_BYTES, nor rewrites one', () => {
    const file = path.join(tempDir(), 'users');
    fs.writeFileSync(file, '');
    fs.truncateSync(file, 303 * 1024 * 1024); // sparse: no disk taken
    const over = (e: Error) => e instanceof UsersFileError && / over 1048576 bytes/.test(e.message);
    assert.throws(() => readUsers(file), over);
    assert.throws(() => writeUser(file, 'alice', 'scrypt$16384$8$1$AAAA$BBBB'), over);
    assert.equal(USERS_MAX_BYTES, 1024 * 1024);
  });
});
