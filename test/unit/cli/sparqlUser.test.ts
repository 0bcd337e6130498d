// `npm run sparql-user`: the password from standard input, never from the command line; add,
// change, remove and list; a short password or a bad name refused with nothing written.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readUsers, verify } from '../../../src/http/sparql/users';
import { PROJECT_ROOT } from '../../../src/util/paths';
import { tempDir } from '../../support';

const SCRIPT = path.join(PROJECT_ROOT, 'cli', 'sparqlUser.ts');

function run(args: string[], input = '', env: Record<string, string> = {}) {
  return spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, ...args], {
    input,
    encoding: 'utf8',
    env: { ...process.env, SPARQL_USERS: '', ...env },
    timeout: 30_000,
  });
}

describe('npm run sparql-user', function () {
  this.timeout(60_000);

  it('adds a user with the password read from standard input, and removes it', async () => {
    const file = path.join(tempDir(), 'users');
    const add = run(['add', 'alice'], 'a good password\n', { SPARQL_USERS: file });
    assert.equal(add.status, 0, add.stderr);
    assert.match(add.stderr, /added alice/);
    assert.ok(!add.stdout.includes('a good password') && !add.stderr.includes('a good password'));
    assert.equal(await verify('a good password', readUsers(file).get('alice')!), true);
    assert.equal(run(['list', '--file', file]).stdout, 'alice\n');
    const change = run(['add', 'alice', '--file', file], 'another password\n');
    assert.match(change.stderr, /changed the password of alice/);
    assert.equal(await verify('another password', readUsers(file).get('alice')!), true);
    assert.equal(run(['remove', 'alice', '--file', file]).status, 0);
    assert.equal(readUsers(file).size, 0);
    assert.equal(run(['remove', 'alice', '--file', file]).status, 1);
  });

  it('refuses a short password, a bad name, no file, or no command, writing nothing', () => {
    const file = path.join(tempDir(), 'users');
    assert.equal(run(['add', 'alice', '--file', file], 'short\n').status, 2);
    assert.equal(run(['add', 'al:ice', '--file', file], 'a good password\n').status, 2);
    assert.ok(!fs.existsSync(file));
    assert.equal(run(['add', 'alice'], 'a good password\n').status, 2);
    assert.equal(run([]).status, 2);
  });

  it("writes the README's and docs' example files outside the repository", () => {
    // `SPARQL_USERS=sparql-users` wrote the credentials where `git status` offered to commit them.
    const docs =
      fs.readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8') +
      fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'sparql.md'), 'utf8');
    const commands = docs
      .split('\n')
      .filter((line) => /^(SPARQL_USERS=|npm run sparql-user)/.test(line));
    const files = commands.flatMap((line) =>
      [...line.replace(/\s#.*/, '').matchAll(/(?:^SPARQL_USERS=|--file )(\S+)/g)].map((m) => m[1]!),
    );
    assert.ok(files.length >= 4, files.join(', '));
    for (const file of files) {
      const where = path.resolve(PROJECT_ROOT, file.replace(/^~(?=\/)/, os.homedir()));
      assert.ok(
        path.relative(PROJECT_ROOT, where).startsWith('..'),
        `${file} is in the repository`,
      );
    }
  });

  it('has git ignore a credentials file written at the root of the repository', () => {
    execFileSync('git', ['check-ignore', '--quiet', 'sparql-users'], { cwd: PROJECT_ROOT });
  });
});
