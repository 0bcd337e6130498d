// A real harvester against the real server: Debian's `oai_pmh` harvests ListRecords (oai_dc)
// through every resumption token and gets every live institution and every deleted header; an
// incremental harvest from a version's time gets exactly the records whose latest event is at or
// after it. A harvest cut short and started again with `from` gets the records of its last
// datestamp again; one resumed with its token, across a restart with the same OAI_TOKEN_KEY,
// gets nothing twice; the key is in none of the server's output. The server serves the
// five-version registry from its snapshot and change log.
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
import { readOai, type OaiAnswer } from '../../support/oaiXml';
import { skipWithout } from '../../support/missing';

/** The providers' key: the restarted server is given the same one. */
const KEY = 'harvest-test-token-key-0123456789abcdef';

async function part(url: string, query: string): Promise<OaiAnswer> {
  const res = await fetch(`${url}?${query}`);
  assert.equal(res.status, 200);
  const answer = readOai(await res.text());
  assert.deepEqual(answer.errors, []);
  return answer;
}

describe('OAI-PMH harvest by oai_pmh (libhttp-oai-perl)', function () {
  this.timeout(240_000);
  let server: ServerProcess | undefined;
  let url: string;
  let base: string[];
  let extra: string;
  let live: string[];
  let deleted: string;
  let whole: Harvested[];
  let fixture: Awaited<ReturnType<typeof oaiFixture>>['fixture'];
  const env = () => ({
    DATASET: fixture.dataset,
    HISTORY_DIR: fixture.historyDir,
    BASE_IRI: 'https://ld.zdb-services.de',
    OAI_TOKEN_KEY: KEY,
    LOG_LEVEL: 'trace',
  });

  before(async function () {
    needsThirdParty.call(this);
    if (!hasHarvester)
      skipWithout(this, 'libhttp-oai-perl (oai_pmh)', 'sudo bash .ci/packages installs it');
    ({ fixture, base, extra, live, deleted } = await oaiFixture());
    server = await startServerProcess({ env: env() });
    url = `http://127.0.0.1:${server.port}/oai`;
    whole = readHarvest((await runHarvester(url, ['--metadataPrefix', 'oai_dc'])).output);
  });

  const stop = async () => {
    if (!server) return;
    server.child.kill('SIGTERM');
    await server.exit;
  };
  after(stop);

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

  describe('a harvest cut short after its first part', () => {
    let first: OaiAnswer;
    before(async () => (first = await part(url, 'verb=ListRecords&metadataPrefix=oai_dc')));

    it('started again with from = its last datestamp: exactly the records at or after it, those of that datestamp again', async () => {
      const last = first.headers.at(-1)!.datestamp;
      const { output } = await runHarvester(url, ['--metadataPrefix', 'oai_dc', '--from', last]);
      const again = readHarvest(output).map((r) => r.identifier);
      assert.deepEqual(
        [...again].sort(),
        whole
          .filter((r) => r.datestamp >= last)
          .map((r) => r.identifier)
          .sort(),
      );
      // Fetched twice: every record of the first part dated `last`, and none older.
      assert.deepEqual(
        first.headers.filter((h) => again.includes(h.identifier)).map((h) => h.identifier),
        first.headers.filter((h) => h.datestamp === last).map((h) => h.identifier),
      );
    });

    it('resumed with its token after a restart with the same OAI_TOKEN_KEY: the rest, nothing twice', async () => {
      await stop();
      server = await startServerProcess({ env: env() });
      url = `http://127.0.0.1:${server.port}/oai`;
      const got = first.headers.map((h) => h.identifier);
      let answer = first;
      while (answer.token?.value) {
        answer = await part(
          url,
          `verb=ListRecords&resumptionToken=${encodeURIComponent(answer.token.value)}`,
        );
        got.push(...answer.headers.map((h) => h.identifier));
      }
      assert.equal(new Set(got).size, got.length, 'nothing twice');
      assert.deepEqual([...got].sort(), whole.map((r) => r.identifier).sort());
    });

    it('the key is in none of the server’s log lines', async () => {
      // The access log reaches the test through a pipe: on a busy machine after the answers.
      await server!.line((l) => JSON.stringify(l).includes('resumptionToken'));
      const logged = JSON.stringify(server!.lines);
      assert.ok(!logged.includes(KEY.slice(0, 12)));
    });
  });
});
