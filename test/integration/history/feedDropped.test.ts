// The change feed once versions are gone (docs/history.md, "Following the change feed"): a page of
// a version the log dropped (retention, a reset) is 410, a page of a time no version ever had is
// 404, and the root states the retention the log made, whatever HISTORY_KEEP_VERSIONS says now.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Parser, type Quad } from 'n3';
import request from 'supertest';
import type { Express } from 'express';
import { LOG_FILE } from '../../../src/history/log';
import { commitVersion } from '../../../src/load/commit/commitVersion';
import { loadSources } from '../../../src/load/loadSources';
import {
  HISTORY_BASE,
  historyApp,
  registryVersions,
  VERSION_TIMES,
  writeHistory,
  type HistoryFixture,
} from '../../support/history';

const LDES = 'https://w3id.org/ldes#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const ORIGIN = 'http://feed.test';
const DAY = 86_400;
const t14 = (t: number) => new Date(t * 1000).toISOString().replace(/[-:TZ]|\.000/g, '');
const get = (app: Express, path: string) =>
  request(app).get(path).set('Host', 'feed.test').set('Accept', 'application/trig');

async function appOf(fixture: HistoryFixture, keep: string): Promise<Express> {
  return (await historyApp(fixture, { HISTORY_KEEP_VERSIONS: keep })).app;
}

/** The types of the root's retention policy. */
async function policyTypes(app: Express): Promise<string[]> {
  const quads: Quad[] = new Parser({ format: 'application/trig', baseIRI: `${ORIGIN}/feed` }).parse(
    (await get(app, '/feed')).text,
  );
  const policies = quads
    .filter(
      (q) => q.subject.value === `${ORIGIN}/feed` && q.predicate.value === `${LDES}retentionPolicy`,
    )
    .map((q) => q.object.value);
  return quads
    .filter((q) => policies.includes(q.subject.value) && q.predicate.value === RDF_TYPE)
    .map((q) => q.object.value);
}

describe('the change feed of a log that kept every version', function () {
  this.timeout(120_000);
  let app: Express;
  before(async () => {
    app = await appOf(await writeHistory(registryVersions(), 0), '0');
  });

  it('answers 404 to a page of a time before its first version: no version was ever there', async () => {
    assert.equal((await get(app, `/feed/${t14(VERSION_TIMES[0]! - DAY)}/1`)).status, 404);
  });
  it('serves the page of its first version', async () => {
    assert.equal((await get(app, `/feed/${t14(VERSION_TIMES[0]!)}/1`)).status, 200);
  });
  it('states every member since the first as kept', async () => {
    assert.deepEqual(await policyTypes(app), [`${LDES}PointInTimePolicy`]);
  });
});

describe('the change feed of a log retention cut, served with HISTORY_KEEP_VERSIONS=0', function () {
  this.timeout(120_000);
  let fixture: HistoryFixture;
  let app: Express;
  before(async () => {
    fixture = await writeHistory(registryVersions(), 2);
    app = await appOf(fixture, '0');
  });

  for (const dropped of VERSION_TIMES.slice(0, 3))
    it(`answers 410 to the page of the dropped version of ${t14(dropped)}`, async () => {
      assert.equal((await get(app, `/feed/${t14(dropped)}/1`)).status, 410);
    });
  it('answers 404 to a page of a time before the oldest version it ever held', async () => {
    assert.equal((await get(app, `/feed/${t14(VERSION_TIMES[0]! - DAY)}/1`)).status, 404);
  });
  it('answers 404 to a page of a time after its newest version', async () => {
    assert.equal((await get(app, `/feed/${t14(VERSION_TIMES[4]! + DAY)}/1`)).status, 404);
  });
  it('states the latest version of each member as kept, not every member since the first', async () => {
    assert.deepEqual(await policyTypes(app), [`${LDES}LatestVersionSubset`]);
  });
  it('records the versions dropped in the header of its log', () => {
    const header = JSON.parse(
      fs.readFileSync(path.join(fixture.historyDir, LOG_FILE), 'utf8').split('\n')[0]!,
    ) as { dropped?: unknown };
    assert.deepEqual(header.dropped, {
      first: VERSION_TIMES[0],
      last: VERSION_TIMES[2],
      versions: 3,
    });
  });

  describe('a log an older loader cut (no dropped versions in its header)', () => {
    let older: Express;
    before(async () => {
      const file = path.join(fixture.historyDir, LOG_FILE);
      const [header, ...rest] = fs.readFileSync(file, 'utf8').split('\n');
      const old = JSON.parse(header!) as Record<string, unknown>;
      delete old.dropped;
      fs.writeFileSync(file, [JSON.stringify(old), ...rest].join('\n'));
      older = await appOf(fixture, '0');
    });

    it('still answers 410 to the pages of the versions its carried events came from', async () => {
      assert.equal((await get(older, `/feed/${t14(VERSION_TIMES[0]!)}/1`)).status, 410);
    });
    it('answers 404 before them', async () => {
      assert.equal((await get(older, `/feed/${t14(VERSION_TIMES[0]! - DAY)}/1`)).status, 404);
    });
    it('states the latest version of each member as kept', async () => {
      assert.deepEqual(await policyTypes(older), [`${LDES}LatestVersionSubset`]);
    });
  });
});

describe('the change feed after a deliberate reset', function () {
  this.timeout(120_000);
  let app: Express;
  before(async () => {
    const fixture = await writeHistory(registryVersions().slice(0, 2), 0);
    const target = {
      dataset: fixture.dataset,
      baseIri: HISTORY_BASE,
      historyDir: fixture.historyDir,
      historyKeepVersions: 0,
    };
    const loaded = await loadSources([fixture.sources[0]!], { baseIri: HISTORY_BASE });
    try {
      await commitVersion(loaded, target, {
        now: new Date(VERSION_TIMES[3]! * 1000),
        resetHistory: true,
      });
    } finally {
      loaded.dataset.free();
    }
    app = await appOf(fixture, '0');
  });

  it('answers 410 to the pages of the versions set aside', async () => {
    for (const time of VERSION_TIMES.slice(0, 2))
      assert.equal((await get(app, `/feed/${t14(time)}/1`)).status, 410, t14(time));
  });
  it('answers 404 to a page of a time before them', async () => {
    assert.equal((await get(app, `/feed/${t14(VERSION_TIMES[0]! - DAY)}/1`)).status, 404);
  });
  it('states every member since the version that started it anew as kept', async () => {
    assert.deepEqual(await policyTypes(app), [`${LDES}PointInTimePolicy`]);
  });
  it('serves the page of the version that started it anew', async () => {
    assert.equal((await get(app, `/feed/${t14(VERSION_TIMES[3]!)}/1`)).status, 200);
  });
});
