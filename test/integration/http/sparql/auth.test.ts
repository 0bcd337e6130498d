// Basic authentication against the credentials file, with the failures of an address counted, the
// logins being checked bounded, and the file's edits while the server runs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Request } from 'express';
import { basicCredentials, StaffAuth } from '../../../../src/http/sparql/auth';
import { HttpError } from '../../../../src/http/errors';
import {
  hashPassword,
  SCRYPT_AT_ONCE,
  SCRYPT_WAITING,
  USERS_MAX_BYTES,
  writeUser,
} from '../../../../src/http/sparql/users';
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

/** A log that keeps what it is told, by level. */
function keptLog() {
  const errors: string[] = [];
  const warnings: string[] = [];
  return {
    errors,
    warnings,
    log: { error: (m: string) => errors.push(m), warn: (m: string) => warnings.push(m) },
  };
}

/**
 * A credentials file with alice alone and its StaffAuth on a clock of its own; `later()` moves the
 * file's time and the clock on, past the time between two looks at the file.
 */
async function aliceAlone(maxFailures = 10) {
  let now = 3_000_000;
  const own = path.join(tempDir(), 'users');
  writeUser(own, 'alice', await hashPassword('alice password'));
  const { errors, warnings, log } = keptLog();
  const auth = new StaffAuth(own, maxFailures, log, () => now);
  const later = () => {
    const changed = new Date(Date.now() + 5000);
    if (fs.existsSync(own) && fs.statSync(own).isFile()) fs.utimesSync(own, changed, changed);
    now += 2000;
  };
  return { own, auth, errors, warnings, later };
}

/** The statuses of `promises`, with how many times each came. */
async function statuses(promises: readonly Promise<unknown>[]): Promise<Record<number, number>> {
  const counts: Record<number, number> = {};
  for (const s of await Promise.all(promises.map(status))) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
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
    const auth = new StaffAuth(file, 3, undefined, () => now);
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
    const auth = new StaffAuth(own, 10, undefined, () => now);
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
    const { own, auth, errors, later } = await aliceAlone();
    fs.rmSync(own);
    assert.equal(spawnSync('mkfifo', [own]).status, 0);
    later();
    assert.equal(await auth.user(req(basic('alice', 'alice password'))), 'alice');
    assert.match(errors.join('\n'), /not a regular file/);
  });

  it('keeps the users it had when the file is broken by an edit, and says so', async () => {
    const { own, auth, errors, later } = await aliceAlone();
    fs.writeFileSync(own, 'garbage\n');
    later();
    assert.equal(await auth.user(req(basic('alice', 'alice password'))), 'alice');
    assert.equal(errors.length, 1);
    assert.ok(!errors[0]!.includes('alice password'));
  });

  it('takes a deleted file for no users, says so once at error level, and reads it again when back', async () => {
    const { own, auth, errors, later } = await aliceAlone();
    assert.equal(await auth.user(req(basic('alice', 'alice password'))), 'alice');
    const text = fs.readFileSync(own);
    fs.rmSync(own);
    later();
    assert.equal(await status(auth.user(req(basic('alice', 'alice password')))), 401);
    later();
    assert.equal(await status(auth.user(req(basic('alice', 'alice password')))), 401);
    assert.equal(errors.length, 1);
    assert.match(errors[0]!, /is gone: nobody can log in/);
    fs.writeFileSync(own, text);
    later();
    assert.equal(await auth.user(req(basic('alice', 'alice password'))), 'alice');
  });

  it('warns of a file emptied as it does at start: nobody can log in', async () => {
    const { own, auth, warnings, later } = await aliceAlone();
    fs.writeFileSync(own, '');
    later();
    assert.equal(await status(auth.user(req(basic('alice', 'alice password')))), 401);
    const empty = path.join(tempDir(), 'users');
    fs.writeFileSync(empty, '');
    const { log, warnings: atStart } = keptLog();
    new StaffAuth(empty, 10, log);
    assert.equal(warnings.length, 1);
    assert.deepEqual(warnings, atStart);
    assert.match(warnings[0]!, /names no user: nobody can log in/);
  });

  it('does not read a file over USERS_MAX_BYTES, says so, and keeps the users; at start, refuses it', async () => {
    const { own, auth, errors, later } = await aliceAlone();
    fs.appendFileSync(own, `#${'x'.repeat(USERS_MAX_BYTES)}\n`);
    later();
    assert.equal(await auth.user(req(basic('alice', 'alice password'))), 'alice');
    assert.equal(errors.length, 1);
    assert.match(errors[0]!, new RegExp(`over ${USERS_MAX_BYTES} bytes.*not read`));
    assert.throws(() => new StaffAuth(own, 10), /over 1048576 bytes/);
  });

  it('checks at most two logins of an address at once, and answers 429 at once to the others', async () => {
    const { auth } = await aliceAlone();
    const guesses = Array.from({ length: 50 }, (_, i) =>
      auth.user(req(basic('alice', `guess ${i}`))),
    );
    assert.deepEqual(await statuses(guesses), { 401: 2, 429: 48 });
  });

  it('counts the logins being checked against the failures an address may still have', async () => {
    const { auth } = await aliceAlone(3);
    await status(auth.user(req(basic('alice', 'guess a'))));
    await status(auth.user(req(basic('alice', 'guess b'))));
    const [one, two] = [
      auth.user(req(basic('alice', 'guess c'))),
      auth.user(req(basic('alice', 'guess d'))),
    ];
    assert.deepEqual(await statuses([one, two]), { 401: 1, 429: 1 });
  });

  it('checks the same credentials sent at once only once: a browser asking for five files is let in', async () => {
    const { auth } = await aliceAlone();
    const logins = Array.from({ length: 5 }, () =>
      auth.user(req(basic('alice', 'alice password'))),
    );
    assert.deepEqual(await Promise.all(logins), Array(5).fill('alice'));
  });

  it(`runs scrypt ${SCRYPT_AT_ONCE} at a time in the process, ${SCRYPT_WAITING} waiting, and answers 503 past them`, async () => {
    const { auth } = await aliceAlone();
    const many = SCRYPT_AT_ONCE + SCRYPT_WAITING + 6;
    const guesses = Array.from({ length: many }, (_, i) =>
      auth.user(req(basic('alice', `guess ${i}`), `10.1.0.${i}`)),
    );
    assert.deepEqual(await statuses(guesses), { 401: SCRYPT_AT_ONCE + SCRYPT_WAITING, 503: 6 });
    assert.equal(await auth.user(req(basic('alice', 'alice password'), '10.2.0.1')), 'alice');
  });
});
