// A real harvester against the real server: Debian's `oai_pmh` harvests ListRecords (oai_dc)
// through every resumption token and gets every live institution and every deleted header; an
// incremental harvest from a version's time gets exactly the records whose latest event is at or
// after it. The server serves the five-version registry from its snapshot and change log.
import assert from 'node:assert/strict';
import { VERSION_TIMES } from '../../support/history';
import { needsThirdParty } from '../../support';
import { startServerProcess, type ServerProcess } from '../../support/serverProcess';
import {
  hasHarvester,
  readHarvest,
  runHarvester,
  type Harvested,
} from '../../support/oaiHarvester';
import { id, oaiFixture, stamp } from '../../support/oaiApp';

describe('OAI-PMH harvest by oai_pmh (libhttp-oai-perl)', function () {
  this.timeout(240_000);
  let server: ServerProcess | undefined;
  let url: string;
  let base: string[];
  let extra: string;
  let live: string[];
  let deleted: string;
  let whole: Harvested[];

  before(async function () {
    needsThirdParty.call(this);
    if (!hasHarvester) {
      if (process.env.CI)
        throw new Error('oai_pmh (libhttp-oai-perl) is missing: sudo bash .ci/packages');
      this.skip();
    }
    const made = await oaiFixture();
    ({ base, extra, live, deleted } = made);
    server = await startServerProcess({
      env: {
        DATASET: made.fixture.dataset,
        HISTORY_DIR: made.fixture.historyDir,
        BASE_IRI: 'https://ld.zdb-services.de',
      },
    });
    url = `http://127.0.0.1:${server.port}/oai`;
    whole = readHarvest((await runHarvester(url, ['--metadataPrefix', 'oai_dc'])).output);
  });

  after(async () => {
    if (!server) return;
    server.child.kill('SIGTERM');
    await server.exit;
  });

  it('gets every live institution and the deleted header, each once', () =>
    assert.deepEqual(whole.map((r) => r.identifier).sort(), [...live, deleted].map(id).sort()));
  it('live records with metadata, the deleted one without', () => {
    assert.deepEqual(
      whole.filter((r) => r.deleted).map((r) => r.identifier),
      [id(deleted)],
    );
    assert.deepEqual(
      whole.filter((r) => !r.metadata).map((r) => r.identifier),
      [id(deleted)],
    );
  });

  // What changed at each version and is not changed again later (registryVersions).
  const since = (k: number): string[] =>
    [
      ...(k <= 1 ? [base[4]!, extra] : []),
      base[0]!, // renamed at 3, back at 5
      base[2]!, // renamed at 2 and 4, back at 5
      base[6]!, // withdrawn at 3, served again at 5
    ]
      .map(id)
      .sort();
  for (const k of [1, 2, 3, 4])
    it(`--from version ${k + 1}'s time: exactly the records whose latest event is at or after it`, async () => {
      const { output } = await runHarvester(url, [
        '--metadataPrefix',
        'oai_dc',
        '--from',
        stamp(VERSION_TIMES[k]!),
      ]);
      assert.deepEqual(
        readHarvest(output)
          .map((r) => r.identifier)
          .sort(),
        since(k),
      );
    });
  it('the incremental harvest dates each record at or after its --from', async () => {
    const { output } = await runHarvester(url, [
      '--metadataPrefix',
      'oai_dc',
      '--from',
      stamp(VERSION_TIMES[1]!),
    ]);
    for (const r of readHarvest(output))
      assert.ok(r.datestamp >= stamp(VERSION_TIMES[1]!), r.identifier);
  });
  it('ListIdentifiers harvests the same identifiers', async () => {
    const { output } = await runHarvester(url, [
      '-X',
      'ListIdentifiers',
      '--metadataPrefix',
      'oai_dc',
    ]);
    assert.deepEqual(
      readHarvest(output)
        .map((r) => r.identifier)
        .sort(),
      whole.map((r) => r.identifier).sort(),
    );
  });
});
