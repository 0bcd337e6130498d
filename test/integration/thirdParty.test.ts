// Third-party files stay outside the repository: no tracked file is a copy of one (by SHA-256,
// against the manifest and against the folder THIRD_PARTY_DIR names), a tracked fixture larger
// than fixtures/README.md allows is one it lists, and `npm run fetch-data` refuses a file that
// does not match the manifest or is missing, leaving nothing at its name.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/util/paths';
import {
  fetchThirdParty,
  MANIFEST,
  thirdPartyDir,
  thirdPartyFiles,
  thirdPartyIntact,
} from '../../src/util/thirdParty';
import { needsThirdParty, tempDir } from '../support';

const sha256 = (bytes: Buffer) => crypto.createHash('sha256').update(bytes).digest('hex');

/** Every file below `dir`, recursively. */
function filesBelow(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => fs.statSync(file).isFile());
}

const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: PROJECT_ROOT, encoding: 'utf8' })
  .split('\0')
  .filter((file) => file !== '' && fs.existsSync(path.join(PROJECT_ROOT, file)));

describe('third-party files', () => {
  describe('the manifest (data/sources.json)', () => {
    const files = [...thirdPartyFiles().values()];
    it('names every file with its origin, SHA-256, size and licence', () => {
      assert.ok(files.length >= 25, `${files.length} files`);
      for (const file of files) {
        assert.match(file.repository, /^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/, file.name);
        assert.match(file.commit, /^[0-9a-f]{7,40}$/, file.name);
        assert.ok(file.path !== '' && file.url.endsWith(`/${file.commit}/${file.path}`), file.name);
        assert.match(file.sha256, /^[0-9a-f]{64}$/, file.name);
        assert.ok(Number.isInteger(file.size) && file.size > 0, file.name);
        assert.ok(file.licence.length > 3, file.name);
        assert.match(file.name, /^(data\/real|conformance)\/[^/].*[^/]$/, file.name);
        assert.ok(!file.name.split('/').includes('..'), file.name);
      }
    });
    it('is tracked; data/third-party/ is not', () => {
      assert.ok(tracked.includes(path.relative(PROJECT_ROOT, MANIFEST)));
      assert.ok(!tracked.some((file) => file.startsWith('data/third-party/')));
    });
  });

  describe('no tracked copy', () => {
    const digests = new Map<string, string>();
    before(() => {
      for (const file of thirdPartyFiles().values()) digests.set(file.sha256, file.name);
      // Everything in the shared folders, listed in the manifest or not.
      const from = thirdPartyDir();
      for (const file of [
        ...filesBelow(path.join(from ?? '/nonexistent', 'data')),
        ...filesBelow(path.join(from ?? '/nonexistent', 'conformance')),
      ])
        digests.set(sha256(fs.readFileSync(file)), file);
      if (process.env.CI) assert.ok(from, 'CI names THIRD_PARTY_DIR (.ci/run)');
    });
    it('has the SHA-256 of a third-party file', () => {
      const copies = tracked.filter((file) => {
        const bytes = fs.readFileSync(path.join(PROJECT_ROOT, file));
        return bytes.length > 0 && digests.has(sha256(bytes));
      });
      assert.deepEqual(
        copies.map((file) => `${file} is ${digests.get(sha256(fs.readFileSync(file)))}`),
        [],
      );
    });
    it('is a fixture larger than fixtures/README.md allows, unless it lists it as ours', () => {
      const readme = fs.readFileSync(path.join(PROJECT_ROOT, 'fixtures', 'README.md'), 'utf8');
      const limit = Number(/at most \*\*(\d+) KiB\*\*/.exec(readme)?.[1]) * 1024;
      assert.ok(limit > 0, 'fixtures/README.md states the size');
      const listed = new Set([...readme.matchAll(/^\| `([^`]+)` \| .+ \|$/gm)].map((m) => m[1]));
      const large = tracked.filter(
        (file) =>
          file.startsWith('fixtures/') &&
          fs.statSync(path.join(PROJECT_ROOT, file)).size > limit &&
          !listed.has(path.relative('fixtures', file)),
      );
      assert.deepEqual(large, []);
    });
  });

  describe('npm run fetch-data', function () {
    this.timeout(60_000);
    before(needsThirdParty);
    const name = 'data/real/isil-redirects_lobid-resources.tsv';
    const other = 'conformance/sparql11-protocol/data1.nt';
    let from: string;
    let into: string;
    beforeEach(() => {
      from = tempDir();
      into = tempDir();
    });
    const put = (file: string, bytes: Buffer | string) => {
      fs.mkdirSync(path.dirname(path.join(from, file)), { recursive: true });
      fs.writeFileSync(path.join(from, file), bytes);
    };
    const real = (file: string) =>
      fs.readFileSync(path.join(PROJECT_ROOT, 'data/third-party', file));

    it('fetches a file that matches, from the folder named', async () => {
      put(name, real(name));
      const [outcome] = await fetchThirdParty({ names: [name], from, into });
      assert.equal(outcome?.outcome, 'fetched');
      assert.ok(thirdPartyIntact(name, into));
      const [again] = await fetchThirdParty({ names: [name], from, into });
      assert.equal(again?.outcome, 'present');
    });
    it('refuses a file that does not match, and leaves nothing at its name', async () => {
      const bytes = real(name);
      bytes.writeUInt8(bytes.readUInt8(10) ^ 1, 10);
      put(name, bytes);
      const [outcome] = await fetchThirdParty({ names: [name], from, into });
      assert.equal(outcome?.outcome, 'failed');
      assert.match(
        outcome.outcome === 'failed' ? outcome.reason : '',
        /not the file of the manifest/,
      );
      assert.deepEqual(filesBelow(into), []);
    });
    it('refuses a missing file, and fetches the others', async () => {
      put(other, real(other));
      const outcomes = await fetchThirdParty({ names: [name, other], from, into });
      assert.deepEqual(
        outcomes.map((o) => o.outcome),
        ['failed', 'fetched'],
      );
      assert.match(outcomes[0]!.outcome === 'failed' ? outcomes[0]!.reason : '', /no such file/);
      assert.deepEqual(filesBelow(into), [path.join(into, other)]);
    });
    it('takes the place of a file edited in place', async () => {
      put(name, real(name));
      fs.mkdirSync(path.dirname(path.join(into, name)), { recursive: true });
      fs.writeFileSync(path.join(into, name), 'edited');
      assert.equal(thirdPartyIntact(name, into), false);
      assert.equal((await fetchThirdParty({ names: [name], from, into }))[0]?.outcome, 'fetched');
      assert.ok(thirdPartyIntact(name, into));
    });
    it('says so when a copy is there but changed, and cannot be had again', async () => {
      fs.mkdirSync(path.dirname(path.join(into, name)), { recursive: true });
      fs.writeFileSync(path.join(into, name), 'edited');
      const [outcome] = await fetchThirdParty({ names: [name], from, into });
      assert.equal(outcome?.outcome, 'failed');
      assert.match(
        outcome.outcome === 'failed' ? outcome.reason : '',
        /is not the file of the manifest, and .*no such file/,
      );
    });
    it('as a command: keeps a file there intact over a bad copy; an unknown name or folder, exit 2', () => {
      put(name, 'not the redirect list\n');
      const run = (args: string[]) =>
        spawnSync(
          process.execPath,
          ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli', 'fetchData.ts'), ...args],
          { cwd: PROJECT_ROOT, env: { ...process.env, THIRD_PARTY_DIR: from }, encoding: 'utf8' },
        );
      // The project's own folder holds the file intact: a name it holds is "already there".
      const present = run([name]);
      assert.equal(present.status, 0, present.stderr);
      assert.match(present.stderr, /0 fetched, 1 already there, 0 failed/);
      const unknown = run(['data/real/no-such-file.tsv']);
      assert.equal(unknown.status, 2);
      assert.match(unknown.stderr, /not a third-party file/);
      const badDir = spawnSync(
        process.execPath,
        ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli', 'fetchData.ts')],
        {
          cwd: PROJECT_ROOT,
          env: { ...process.env, THIRD_PARTY_DIR: path.join(from, 'missing') },
          encoding: 'utf8',
        },
      );
      assert.equal(badDir.status, 2);
      assert.match(badDir.stderr, /^configuration error: THIRD_PARTY_DIR: expected a folder/);
    });
  });
});
