// The container image's files agree with the code: the build context lets in every file the
// Dockerfile copies, and every setting the service reads is in the Dockerfile, docker-compose.yml
// and the README's table. No engine runs here, so these are checked from the files themselves.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { PROJECT_ROOT } from '../../src/util/paths';
import { runtimeDefaults } from '../bench/drivers';

const read = (file: string) => fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8');

/** The sources of the Dockerfile's COPY instructions from the build context (not `--from`). */
function copiedSources(dockerfile: string): string[] {
  const joined = dockerfile.replace(/\\\r?\n/g, ' ');
  const sources: string[] = [];
  for (const line of joined.split('\n')) {
    const words = line.trim().split(/\s+/);
    if (words[0] !== 'COPY' || words.some((w) => w.startsWith('--from'))) continue;
    const args = words.slice(1).filter((w) => !w.startsWith('--'));
    sources.push(...args.slice(0, -1));
  }
  return [...new Set(sources)];
}

/**
 * Whether `.dockerignore` lets `source` into the build context: the last rule that matches it
 * decides (Docker's rule), `!` letting it in. Only the forms this file uses are read: `*`, a path,
 * a folder with its slash.
 */
function admitted(rules: readonly string[], source: string): boolean {
  const target = source.replace(/\/$/, '');
  let admit = true;
  for (const rule of rules) {
    const negated = rule.startsWith('!');
    const pattern = (negated ? rule.slice(1) : rule).replace(/\/$/, '');
    // `*` matches every top-level name, and a folder kept out keeps out what it holds.
    const matches = pattern === '*' || target === pattern || target.startsWith(`${pattern}/`);
    if (matches) admit = negated;
  }
  return admit;
}

/** The variables `loadConfig` reads, from its source (the SPARQL endpoint's and the store's in files of their own). */
function settingsRead(): string[] {
  const source =
    read('src/config/config.ts') +
    read('src/config/sparqlConfig.ts') +
    read('src/config/storeConfig.ts');
  const names = new Set<string>();
  for (const match of source.matchAll(/env\.([A-Z_]+)|integer\(env, '([A-Z_]+)'/g))
    names.add(match[1] ?? match[2]!);
  return [...names].sort();
}

describe('the container image', () => {
  const rules = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const sources = copiedSources(read('Dockerfile'));

  it('copies files from the build context', () => assert.ok(sources.length >= 5));

  for (const source of sources) {
    it(`lets ${source} into the build context, and it exists`, () => {
      assert.ok(admitted(rules, source), `.dockerignore keeps ${source} out`);
      assert.ok(fs.existsSync(path.join(PROJECT_ROOT, source)), `${source} does not exist`);
    });
  }

  it('fetches the bundled dataset at build time by the command developers use, and copies it', () => {
    const dockerfile = read('Dockerfile');
    assert.match(dockerfile, /^ARG THIRD_PARTY_DIR=$/m);
    assert.match(dockerfile, /node dist\/cli\/fetchData\.js --bundled$/m);
    assert.match(dockerfile, /^COPY --from=build \/app\/data\/ data\/$/m);
    assert.ok(admitted(rules, 'data/sources.json') && admitted(rules, 'data/third-party/x.tsv'));
    // Where the command puts them is where the server reads them.
    for (const file of BUNDLED_DATASET)
      assert.ok(path.relative(PROJECT_ROOT, file).startsWith('data/third-party/'), file);
  });

  it('keeps what is not copied out (node_modules, .git, data)', () => {
    for (const kept of ['node_modules', '.git', 'data/dataset.nq', 'test/unit/image.test.ts'])
      assert.ok(!admitted(rules, kept), `${kept} is let in`);
  });

  const settings = settingsRead();
  it('reads a dozen settings', () => assert.ok(settings.length >= 12, settings.join(', ')));

  it('sets every setting in the Dockerfile', () => {
    const dockerfile = read('Dockerfile');
    for (const name of settings) assert.match(dockerfile, new RegExp(`\\b${name}=`), name);
  });

  it('sets every setting in docker-compose.yml', () => {
    const compose = read('docker-compose.yml');
    for (const name of settings) assert.match(compose, new RegExp(`^\\s+${name}:`, 'm'), name);
  });

  it("runs the server with glibc's malloc as deployed: in the image, with npm start, in every bench", () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> })
      .scripts;
    // The figures live in runtime.sh alone; every launcher goes through it.
    assert.deepEqual(runtimeDefaults(), {
      MALLOC_ARENA_MAX: '2',
      MALLOC_MMAP_THRESHOLD_: '131072',
    });
    const run = spawnSync(
      'sh',
      [
        path.join(PROJECT_ROOT, 'runtime.sh'),
        'sh',
        '-c',
        'echo $MALLOC_ARENA_MAX $MALLOC_MMAP_THRESHOLD_',
      ],
      {
        env: { PATH: process.env.PATH },
        encoding: 'utf8',
      },
    );
    assert.equal(run.stdout, '2 131072\n');
    assert.match(
      read('Dockerfile'),
      /^ENTRYPOINT \["\.\/runtime\.sh", "\.\/docker-entrypoint\.sh"\]$/m,
    );
    assert.match(read('Dockerfile'), /^COPY .*\bruntime\.sh\b/m);
    for (const script of ['start', 'start:dist', 'load'])
      assert.match(scripts[script]!, /^exec sh runtime\.sh /, `npm run ${script}`);
    assert.doesNotMatch(read('Dockerfile'), /MALLOC_/, 'no figure repeated in the Dockerfile');
    for (const bench of [
      'bench.ts',
      'scaleOut.ts',
      'search.ts',
      'staffLoad.ts',
      'staffIdle.ts',
      'loadPhases.ts',
      'searchFlood.ts',
    ])
      assert.match(read(`test/bench/${bench}`), /\.\.\.AS_DEPLOYED/, bench);
  });

  it("lists every setting in the README's table", () => {
    const readme = read('README.md');
    for (const name of settings)
      assert.match(readme, new RegExp(`^\\| \`${name}\` \\|`, 'm'), name);
  });
});
