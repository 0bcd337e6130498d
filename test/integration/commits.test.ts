// The commit subjects' check of CI (.ci/commits): at most 72 characters and no bare merge subject,
// for the commits after its base only, in a repository of the test's own.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/util/paths';
import { tempDir } from '../support';

const CHECK = path.join(PROJECT_ROOT, '.ci', 'commits');

describe('the commit subjects check (.ci/commits)', () => {
  let repo: string;
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repo, ...args], {
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@example.org',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@example.org',
      },
    }).trim();
  const commit = (subject: string) => git('commit', '-q', '--allow-empty', '-m', subject);
  const check = (base: string) =>
    spawnSync('bash', [CHECK, repo], {
      encoding: 'utf8',
      env: { ...process.env, COMMITS_BASE: base },
    });

  let base: string;
  before(() => {
    repo = tempDir();
    git('init', '-q');
    commit(`An old subject, long before the rule: ${'x'.repeat(100)}`);
    commit("Merge branch 'old'");
    base = git('rev-parse', 'HEAD');
  });

  it('passes subjects of at most 72 characters after the base, counting characters, not bytes', () => {
    commit('ä'.repeat(72));
    commit('Merge main into the feature branch');
    const run = check(base);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^commits: 2 subjects after /);
  });

  it('refuses a longer subject and a bare merge subject, naming each commit', () => {
    commit('y'.repeat(73));
    commit("Merge branch 'main' into topic");
    const run = check(base);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /^commit [0-9a-f]+: subject of 73 characters, at most 72: y+$/m);
    assert.match(
      run.stderr,
      /^commit [0-9a-f]+: a merge says what it brings, not only "Merge branch 'main' into topic"$/m,
    );
  });

  it('refuses a base that is not in the history', () => {
    const run = check('0'.repeat(40));
    assert.equal(run.status, 1);
    assert.match(run.stderr, /is not in the history of/);
  });
});
