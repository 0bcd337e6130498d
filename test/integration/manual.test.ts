// The manual works from a clone: every relative link of README.md and docs/ names a tracked file
// or folder of the repository (and, into a Markdown file, one of its headings), and no tracked
// text file names the folder beside the clone that only CI has.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/util/paths';

const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: PROJECT_ROOT, encoding: 'utf8' })
  .split('\0')
  .filter((file) => file !== '' && fs.existsSync(path.join(PROJECT_ROOT, file)));
const trackedFiles = new Set(tracked);
const trackedFolders = new Set(
  tracked.flatMap((file) => {
    const parts = file.split('/').slice(0, -1);
    return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  }),
);

const manual = tracked.filter((file) => file === 'README.md' || /^docs\/.*\.md$/.test(file));

/** Markdown without its fenced blocks and code spans, where a link is not a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The anchors GitHub gives a Markdown file's headings (a repeated one gets `-1`, `-2`, …). */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
  for (const [, heading] of text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} +(.+)$/gm)) {
    const slug = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** The relative links of a Markdown file: `[text](target)`, without scheme. */
function relativeLinks(file: string): string[] {
  const text = prose(fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8'));
  return [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('the manual', () => {
  it('is README.md and the Markdown files of docs/', () => {
    assert.ok(manual.includes('README.md'));
    assert.ok(manual.includes('docs/http-contract.md') && manual.includes('docs/data-model.md'));
  });

  for (const file of manual) {
    it(`${file}: every relative link names a tracked file of the repository, and its heading`, () => {
      const broken: string[] = [];
      for (const link of relativeLinks(file)) {
        const [target = '', anchor] = link.split('#', 2);
        const resolved = target
          ? path.posix.normalize(path.posix.join(path.posix.dirname(file), target))
          : file;
        const name = resolved.replace(/\/$/, '');
        if (name.startsWith('../') || !(trackedFiles.has(name) || trackedFolders.has(name))) {
          broken.push(`${link}: no such file in the repository`);
          continue;
        }
        if (anchor && name.endsWith('.md') && !anchorsOf(name).has(decodeURIComponent(anchor)))
          broken.push(`${link}: no such heading in ${name}`);
      }
      assert.deepEqual(broken, []);
    });
  }

  it('finds a broken link and a missing heading (the check itself)', () => {
    assert.ok(anchorsOf('docs/http-contract.md').has('5-identifiers-that-are-not-plain-hits'));
    assert.ok(!anchorsOf('docs/http-contract.md').has('8-nothing'));
    assert.ok(relativeLinks('README.md').includes('docs/http-contract.md'));
    assert.ok(!trackedFiles.has('docs/nothing.md'));
  });

  it('the sources, tests and manual name no issue number (a TODO excepted): git has the history', () => {
    const naming: string[] = [];
    const where = /^(README\.md|docs\/|src\/|loader\/|test\/|queries\/)/;
    for (const file of tracked.filter((name) => where.test(name))) {
      const bytes = fs.readFileSync(path.join(PROJECT_ROOT, file));
      if (bytes.includes(0)) continue;
      bytes
        .toString('utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/\bissues? \d/i.test(line) && !line.includes('TODO')) naming.push(`${file}:${i + 1}`);
        });
    }
    assert.deepEqual(naming, []);
  });

  it('no tracked text file names the folder beside the clone (but CI, which reads it)', () => {
    const beside = ['..', 'shared'].join('/');
    const naming: string[] = [];
    for (const file of tracked) {
      if (file === '.ci/run') continue;
      const bytes = fs.readFileSync(path.join(PROJECT_ROOT, file));
      if (bytes.includes(0)) continue;
      const lines = bytes.toString('utf8').split('\n');
      lines.forEach((line, i) => {
        // The manual may say where CI fetches the third-party files from.
        const saysCi = manual.includes(file) && /\bCI\b/.test(line);
        if (line.includes(beside) && !saysCi) naming.push(`${file}:${i + 1}`);
      });
    }
    assert.deepEqual(naming, []);
  });
});
