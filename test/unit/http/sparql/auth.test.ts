// Basic authentication against the credentials file, with the failures of an address counted.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Request } from 'express';
import { basicCredentials, StaffAuth } from '../../../../src/http/sparql/auth';
import { HttpError } from '../../../../src/http/errors';
import { hashPassword, writeUser } from '../../../../src/http/sparql/users';
import { tempDir } from '../../../support';

function req(authorization: string | undefined, address = '10.0.0.1'): Request {
  return { headers: { authorization }, socket: { remoteAddress: address } } as unknown as Request;
}
const basic = (name: string, password: string) =>
  `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;

async function status(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (error) {
    assert.ok(error instanceof HttpError);
    return error.status;
  }
}

/**
 * A credentials file with alice alone and its StaffAuth on a clock of its own; `later()` moves the
 * file's time and the clock on, past the time between two looks at the file.
 */
async function aliceAlone() {
  let now = 3_000_000;
  const own = path.join(tempDir(), 'users');
  writeUser(own, 'alice', await hashPassword('alice password'));
  const warnings: string[] = [];
  const auth = new StaffAuth(
    own,
    10,
    (m) => warnings.push(m),
    () => now,
  );
  const later = () => {
    const changed = new Date(Date.now() + 5000);
    if (fs.statSync(own).isFile()) fs.utimesSync(own, changed, changed);
    now += 2000;
  };
  return { own, auth, warnings, later };
}

describe('StaffAuth', () => {
  let file: string;
  before(async () => {
    file = path.join(tempDir(), 'users');
    writeUser(file, 'alice', await hashPassword('alice password'));
  });

  it('reads Basic credentials, a password with colons included', () => {
    assert.deepEqual(basicCredentials(basic('alice', 'a:b:c')), {
      name: 'alice',
      password: 'a:b:c',
    });
    assert.deepEqual(basicCredentials(`basic   ${Buffer.from('x:y').toString('base64')}`), {
      name: 'x',
      password: 'y',
    });
    assert.equal(basicCredentials('Bearer abc'), undefined);
    assert.equal(
      basicCredentials(`Basic ${Buffer.from('no colon').toString('base64')}`),
      undefined,
    );
    assert.equal(basicCredentials(undefined), undefined);
  });

  it('takes the right password, and answers 401 to a wrong one or an unknown user', async () => {
    const auth = new StaffAuth(file, 10);
    assert.equal(await auth.user(req(basic('alice', 'alice password'))), 'alice');
    assert.equal(await status(auth.user(req(basic('alice', 'wrong')))), 401);
    assert.equal(await status(auth.user(req(basic('mallory', 'alice password')))), 401);
    assert.equal(await status(auth.user(req(undefined))), 401);
  });

  it('answers 429 to an address past its failures in a minute, and lets it try again after', async () => {
    let now = 1_000_000;
    const auth = new StaffAuth(
      file,
      3,
      () => undefined,
      () => now,
    );
    for (let i = 0; i < 3; i++)
      assert.equal(await status(auth.user(req(basic('alice', `x${i}`)))), 401);
    assert.equal(await status(auth.user(req(basic('alice', 'alice password')))), 429);
    assert.equal(
      await auth.user(req(basic('alice', 'alice password'), '10.0.0.2')),
      'alice',
      'another address',
    );
    now += 61_000;
    assert.equal(await auth.user(req(basic('alice', 'alice password'))), 'alice');
  });

  it('sees a user added or removed in the file without a restart', async () => {
    let now = 2_000_000;
    const own = path.join(tempDir(), 'users');
    writeUser(own, 'alice', await hashPassword('alice password'));
    const auth = new StaffAuth(
      own,
      10,
      () => undefined,
      () => now,
    );
    assert.equal(await status(auth.user(req(basic('bob', 'bob password')))), 401);
    writeUser(own, 'bob', await hashPassword('bob password'));
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(own, later, later);
    now += 2000;
    assert.equal(await auth.user(req(basic('bob', 'bob password'))), 'bob');
    writeUser(own, 'alice', undefined);
    const later2 = new Date(Date.now() + 10_000);
    fs.utimesSync(own, later2, later2);
    now += 2000;
    assert.equal(
      await status(auth.user(req(basic('alice', 'alice password')))),
      401,
      'a remembered login of a removed user no longer counts',
    );
  });

  it('does not read a FIFO put in place of the file (it would hold the thread), and says so', async () => {
    const { own, auth, warnings, later } = await aliceAlone();
    fs.rmSync(own);
    assert.equal(spawnSync('mkfifo', [own]).status, 0);
    later();
    assert.equal(await auth.user(req(basic('alice', 'alice password'))), 'alice');
    assert.match(warnings.join('\n'), /no longer a regular file/);
  });

  it('keeps the users it had when the file is broken by an edit, and says so', async () => {
    const { own, auth, warnings, later } = await aliceAlone();
    fs.writeFileSync(own, 'garbage\n');
    later();
    assert.equal(await auth.user(req(basic('alice', 'alice password'))), 'alice');
    assert.equal(warnings.length, 1);
    assert.ok(!warnings[0]!.includes('alice password'));
  });
});
