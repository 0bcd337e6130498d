// Golden loads: the loader's output for a fixed set of inputs, pinned as digests taken once from
// an earlier loader, so that a change to how it reads, places, canonicalises or writes cannot alter
// a snapshot's bytes, a version, the defects found or a change log's events unnoticed. The inputs:
// the bundled sources, the bench's 17,000 generated institutions and 17,000 generated PICA+
// records, a chain of 100,000 blank nodes, and a history of several versions.
// GOLDEN_PRINT=1 prints the digests this loader gives instead of comparing them.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { generate, generatePica } from '../../cli/generate';
import {
  FIRST_VERSION_TIME,
  generateHistory,
  sourceFile,
  VERSION_INTERVAL,
} from '../../cli/generateHistory';
import { LOG_FILE } from '../../src/history/log';
import { commitVersion } from '../../src/load/commit/commitVersion';
import { loadSources, type LoadOptions } from '../../src/load/loadSources';
import { BUNDLED_DATASET } from '../../src/util/bundled';
import { BASE, needsThirdParty, tempDir } from '../support';

/** What a load gives, as digests. */
interface Golden {
  readonly version: string;
  /** The sha256 of the snapshot's bytes, its log's id made a constant. */
  readonly snapshot: string;
  /** The sha256 of the report's defects (what the shapes found), as JSON. */
  readonly defects: string;
  /** The sha256 of the change log's bytes, its id made a constant, when one was written. */
  readonly log?: string;
}

const GOLDEN: Record<string, Golden> = {
  bundled: {
    version: '32d0a2c025d7',
    snapshot: '16e135a2836b962c45ef60d640795b8b5060cb62d64f18c84395d82f3eb9526a',
    defects: '07f51e4e6f6cf5b78ac3ab31000fb8104aa93890679da765b0dd9d2019958965',
    log: 'b72d6f60e4448cb513be2bf3b382d4efc64a30977e70a748e6cdab0e834d8331',
  },
  generated: {
    version: '631b154f9c4b',
    snapshot: '9b45f9972c16e7605b7c26e8e0151d56dd83449bd99fb0fd944557bb554f5676',
    defects: '28eec7bff904c759fa30a51b0f9f48a92f2040df7d7d5792f973a10fb2995773',
    log: '734bce81950c7fa9cb879341f9b562f9f3203030ccfc05b08657f19cf7a6a621',
  },
  pica: {
    version: '7d32e25744d1',
    snapshot: 'a3634daac27ad463ea61eb3a780cff438f9e3c8fc83b33991d83923ba583116b',
    defects: '4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945',
    log: '265c1f70df6f6158a67f66de7e47371bcab5667b55955be048b57fa95055385a',
  },
  chain: {
    version: 'e926349d446a',
    snapshot: '8b143a57458ed223731981808d8e71eed1e06497998c7f185ab8e479f8b44f24',
    defects: 'c71c492313057c050a904db3253b78874ec9b86c6c8369d94a16c6f6a9155964',
  },
  'chain again': {
    version: 'e926349d446a',
    snapshot: '8b143a57458ed223731981808d8e71eed1e06497998c7f185ab8e479f8b44f24',
    defects: 'c71c492313057c050a904db3253b78874ec9b86c6c8369d94a16c6f6a9155964',
  },
  'history 1': {
    version: '311c5c8f91eb',
    snapshot: '66585ce086b3fbb3c8674c670b1559451f31e091192aeac50620b99fe36f20f3',
    defects: 'b1f043631f5341873ecca8d84494d91098ce78df27a5741f03fbaccc80259143',
    log: '82f2775f07edb98958a7ac08aa24aba9e4cd89f6141ee42df6814d0d625cea34',
  },
  'history 2': {
    version: '3c576e69bc80',
    snapshot: 'a7cc73841cd400c6ac8c08216ce8c4ffe1a0e075b1d758a83b15e97645e2122b',
    defects: '926e98e30b8121e904133c96ffc658fbeb8a682251b680204c6f42f35432192b',
    log: 'b78c05cdc95470d868e8f0683dd5b3c747ff3ac434faaf253dc59c312fd25eb1',
  },
  'history 3': {
    version: 'c6dea2e0d539',
    snapshot: '621c387cc383e03ee785351fedaabfe601661b6b21934e27faa277709da74cd4',
    defects: '926e98e30b8121e904133c96ffc658fbeb8a682251b680204c6f42f35432192b',
    log: '7e64cd3a2a67bb8a45f23e31d5a45b32f842366d695e978fad3db43fe840f69d',
  },
  'history 4': {
    version: '9da9ca5991be',
    snapshot: '6c23271558b4ae6fcabb4cd9c0f02934ccdeedb49ca0c240699c08861b0224d7',
    defects: '7eb133e854f1336a6582f98621cc7bcf2a116f08d1a75cbe560513f356eeead8',
    log: '272fa0a723a3385afc9a121002b1502229c18b5cb3522b342a19acd953523626',
  },
  'history 5': {
    version: 'e31d1c14b1b2',
    snapshot: '8ba3932ec0d5ff441b44d5ed536358845d9ac0990806269d58500698970f7cdf',
    defects: '3bd8274e01629ee698caf59ed962029b239cf76acde960424a3b4bcec381a424',
    log: '3ec60a5d6f50afd11838e0b696c386e6e1a3a83912f707357604e5659aeb766a',
  },
};

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
/** A log's id is a new UUID on every first version: the one byte sequence a load does not decide. */
const withoutLogId = (bytes: Buffer) =>
  bytes
    .toString('latin1')
    .replace(/"log":"[0-9a-f-]{36}"/g, '"log":"ID"')
    .replace(/"id":"[0-9a-f-]{36}"/g, '"id":"ID"');

/** Loads `sources` and commits them at `time` as the version at `dataset` (`historyDir`: its log). */
async function loadAndCommit(
  sources: readonly string[],
  dataset: string,
  historyDir: string,
  time: number,
  options: Partial<LoadOptions> = {},
): Promise<Golden> {
  // The snapshot's pieces written as they are made, as `npm run load` writes them.
  const loaded = await loadSources(sources, {
    baseIri: BASE,
    validate: true,
    snapshot: dataset,
    ...options,
  });
  try {
    await commitVersion(
      loaded,
      { dataset, baseIri: BASE, historyDir, historyKeepVersions: 0 },
      { time },
    );
  } finally {
    loaded.dataset.free();
  }
  const log = historyDir === '' ? undefined : path.join(historyDir, LOG_FILE);
  return {
    version: loaded.dataset.version,
    snapshot: sha256(withoutLogId(fs.readFileSync(dataset))),
    defects: sha256(JSON.stringify(loaded.report.defects)),
    ...(log && { log: sha256(withoutLogId(fs.readFileSync(log))) }),
  };
}

function holds(name: string, got: Golden): void {
  if (process.env.GOLDEN_PRINT) {
    process.stdout.write(`  ${JSON.stringify(name)}: ${JSON.stringify(got)},\n`);
    return;
  }
  assert.deepEqual(got, GOLDEN[name], `${name}: not the pinned output`);
}

const TIME = FIRST_VERSION_TIME;

describe('golden loads', function () {
  // The large cases take minutes on a busy machine: a guard against a hung load, not a figure.
  this.timeout(900_000);
  let dir: string;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const inDir = (name: string) => path.join(dir, name);

  it('the bundled sources', async function () {
    needsThirdParty.call(this);
    // The sources as they were when the digests were pinned: the positions source came later,
    // and its own test holds that it changes no published document.
    const sources = BUNDLED_DATASET.filter((file) => !file.endsWith('.geojson'));
    const got = await loadAndCommit(sources, inDir('d.nq'), inDir('h'), TIME);
    holds('bundled', got);
  });

  // Described by two threads, and by the same function in the loading thread (`workers: 0`).
  for (const workers of [2, 0]) {
    const by = workers === 0 ? 'in the loading thread' : `in ${workers} threads`;
    it(`the bench’s 17,000 generated institutions, described ${by}`, async () => {
      const source = inDir('synthetic.nt');
      const fd = fs.openSync(source, 'w');
      for (const text of generate({ count: 17_000, seed: 1, base: BASE })) fs.writeSync(fd, text);
      fs.closeSync(fd);
      const got = await loadAndCommit([source], inDir('d.nq'), inDir('h'), TIME, { workers });
      holds('generated', got);
    });

    it(`the bench’s 17,000 generated PICA+ records, described ${by}`, async () => {
      const source = inDir('synthetic.dat');
      const fd = fs.openSync(source, 'w');
      for (const record of generatePica({ count: 17_000, seed: 1 })) fs.writeSync(fd, record);
      fs.closeSync(fd);
      const got = await loadAndCommit([source], inDir('d.nq'), inDir('h'), TIME, { workers });
      holds('pica', got);
    });
  }

  it('a chain of 100,000 blank nodes below one institution, and its snapshot loaded again', async () => {
    const I = `<${BASE}/resource/organisations/DE-Deep>`;
    const lines = [
      `${I} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Organization> .`,
      `${I} <http://xmlns.com/foaf/0.1/name> "Deep" .`,
    ];
    for (let i = 100_000 - 1; i >= 0; i--)
      lines.push(`_:b${i} <http://example.org/next> _:b${i + 1} .`);
    lines.push(`${I} <http://example.org/next> _:b0 .`);
    const chain = inDir('chain.nt');
    fs.writeFileSync(chain, `${lines.join('\n')}\n`);
    holds('chain', await loadAndCommit([chain], inDir('d.nq'), '', TIME));
    fs.copyFileSync(inDir('d.nq'), inDir('chain.nq'));
    holds('chain again', await loadAndCommit([inDir('chain.nq')], inDir('d.nq'), '', TIME));
  });

  it('a history of several versions, its change log’s events included', async () => {
    const sources = inDir('sources');
    fs.mkdirSync(sources);
    const versions = 5;
    generateHistory({
      count: 400,
      seed: 9,
      base: BASE,
      versions,
      change: 0.1,
      snapshot: inDir('generated.nq'),
      historyDir: inDir('generated'),
      sourcesDir: sources,
    });
    fs.mkdirSync(inDir('h'));
    for (let n = 1; n <= versions; n++) {
      const time = FIRST_VERSION_TIME + (n - 1) * VERSION_INTERVAL;
      const got = await loadAndCommit([sourceFile(sources, n)], inDir('d.nq'), inDir('h'), time);
      holds(`history ${n}`, got);
    }
  });
});
