// A fresh clone whose third-party files cannot be had (no THIRD_PARTY_DIR holding them, origins
// out of reach) still starts: one line says what is missing and how to fetch it, and 500 generated
// institutions are served, labelled as demonstration data on the home page and in /readyz; once
// the files are fetched, a reload serves the real data. Run on a copy of the project, so that its
// own data/third-party/ starts empty.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BUNDLED_NAMES } from '../../src/util/bundled';
import { PROJECT_ROOT } from '../../src/util/paths';
import { thirdPartyPath } from '../../src/util/thirdParty';
import { needsThirdParty, onLogLines, serverEnv, tempDir, type LogLine } from '../support';

/** The parts of the project a server runs from, copied; node_modules linked. */
function copyOfProject(): string {
  const root = tempDir();
  for (const part of [
    'package.json',
    'tsconfig.json',
    'src',
    'queries',
    'vocab',
    'data/sources.json',
  ])
    fs.cpSync(path.join(PROJECT_ROOT, part), path.join(root, part), { recursive: true });
  fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), path.join(root, 'node_modules'));
  return root;
}

describe('a fresh clone without the third-party files', function () {
  this.timeout(120_000);
  before(needsThirdParty);
  let root: string;
  let child: ChildProcess;
  let base: string;
  const lines: LogLine[] = [];
  const waitFor = (what: (line: LogLine) => boolean, ms = 60_000) =>
    new Promise<LogLine>((resolve, reject) => {
      const found = lines.find(what);
      if (found) return resolve(found);
      const timer = setTimeout(() => reject(new Error('not logged in time')), ms);
      const look = setInterval(() => {
        const line = lines.find(what);
        if (line) {
          clearTimeout(timer);
          clearInterval(look);
          resolve(line);
        }
      }, 50);
    });

  before(async () => {
    root = copyOfProject();
    child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src', 'main.ts')], {
      cwd: root,
      // A folder that holds none of them: the start cannot have them, on any machine.
      env: serverEnv({ THIRD_PARTY_DIR: tempDir() }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onLogLines(child.stdout!, (line) => lines.push(line));
    const listening = await waitFor((line) => line.msg === 'listening');
    base = `http://127.0.0.1:${(listening.address as { port: number }).port}`;
    await waitFor((line) => line.msg === 'dataset loaded');
  });
  after(() => {
    child?.kill('SIGKILL');
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('says in one line what is missing and the command that fetches it', () => {
    const warnings = lines.filter((line) => /bundled dataset is missing/.test(String(line.msg)));
    assert.equal(warnings.length, 1);
    const { msg } = warnings[0]!;
    const count = BUNDLED_NAMES.length;
    assert.match(String(msg), new RegExp(`missing ${count} of its ${count} files`));
    assert.match(String(msg), /no such file/);
    assert.match(String(msg), /npm run fetch-data/);
  });

  it('serves the generated demonstration institutions, and /readyz says so', async () => {
    const ready = (await (await fetch(`${base}/readyz`)).json()) as Record<string, unknown>;
    assert.equal(ready.status, 'ready');
    assert.equal(ready.institutions, 500);
    assert.match(String(ready.demonstration), /demonstration data, not the agency's/);
  });

  it('labels the home page as demonstration data', async () => {
    for (const [lang, words] of [
      ['en', /Demonstration data: the institutions here are generated/],
      ['de', /Demonstrationsdaten: Die Einrichtungen hier sind erzeugt/],
    ] as const) {
      const page = await (await fetch(`${base}/?lang=${lang}`)).text();
      assert.match(page, /<p class="notice" role="status">/);
      assert.match(page, words);
      assert.match(page, /npm run fetch-data/);
    }
  });

  it('serves the real data after the files are fetched and a reload', async () => {
    for (const name of BUNDLED_NAMES) {
      const target = path.join(root, 'data', 'third-party', name);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(thirdPartyPath(name), target);
    }
    child.kill('SIGHUP');
    await waitFor((line) => line.msg === 'reload finished');
    const ready = (await (await fetch(`${base}/readyz`)).json()) as Record<string, unknown>;
    assert.equal(ready.institutions, 18_672);
    assert.equal(ready.demonstration, undefined);
    const page = await (await fetch(`${base}/?lang=en`)).text();
    assert.doesNotMatch(page, /class="notice"/);
  });

  it('keeps the real data when a file goes missing again: the reload is refused, never the demonstration', async () => {
    fs.rmSync(path.join(root, 'data', 'third-party', BUNDLED_NAMES[0]!));
    child.kill('SIGHUP');
    const refused = await waitFor((line) => line.msg === 'reload refused');
    assert.match(String(refused.reason), /bundled dataset's files are missing/);
    assert.ok(String(refused.reason).includes(BUNDLED_NAMES[0]!), 'the reason names the file');
    const ready = (await (await fetch(`${base}/readyz`)).json()) as Record<string, unknown>;
    assert.equal(ready.institutions, 18_672);
    assert.equal(ready.demonstration, undefined);
  });
});
