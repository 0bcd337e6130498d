// The OAI-PMH harvester against a stand-in for the agency's provider serving the real PicaPlus-XML
// records of the bundled file: every page through its tokens, deletions kept, the window asked
// for, noRecordsMatch an empty harvest; a 503 waited out; a refused token, a protocol error or a
// broken answer end the harvest with the previous file left as it was.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SaxesParser } from 'saxes';
import { harvestOai, type OaiOptions } from '../../cli/oaiHarvest';
import { parseOaiCommandLine } from '../../cli/oaiCommand';
import {
  readPica,
  sniffPica,
  type MalformedPicaRecord,
  type PicaRecord,
} from '../../src/mapping/pica/read';
import { PROJECT_ROOT } from '../../src/util/paths';
import {
  needsThirdParty,
  parseRdfXml,
  readWhenThere,
  REAL_DATA,
  sameGraph,
  tempDir,
} from '../support';
import { Parser } from 'n3';
import { OaiProvider, type ProviderFault, type ProviderItem } from '../support/oaiProvider';

const FIXTURE = path.join(REAL_DATA, 'isil-directory_picaplus-xml_2013_9-records.xml');
const RECORDS =
  readWhenThere(FIXTURE)
    .toString('utf8')
    .match(/<ppxml:record\b[\s\S]*?<\/ppxml:record>/g) ?? [];
const stampOf = (day: number) => `2026-11-${String(day).padStart(2, '0')}T10:00:00Z`;
/** The nine records changed on days 1 to 9, and two deleted on days 10 and 11. */
const ITEMS: ProviderItem[] = [
  ...RECORDS.map((metadata, i) => ({
    identifier: `oai:stand-in.invalid:${i + 1}`,
    datestamp: stampOf(i + 1),
    metadata,
  })),
  { identifier: 'oai:stand-in.invalid:deleted-1', datestamp: stampOf(10) },
  { identifier: 'oai:stand-in.invalid:deleted-2', datestamp: stampOf(11) },
];

const withoutPosition = (r: PicaRecord | MalformedPicaRecord) => ({ ...r, position: undefined });
const picaOf = (file: string) => [...readPica(file, 'ppxml')].map(withoutPosition);

/** The deletions a harvest file keeps, read as an XML reader sees them. */
function deletionsOf(file: string): { identifier: string; datestamp: string }[] {
  const found: { identifier: string; datestamp: string }[] = [];
  const parser = new SaxesParser({ xmlns: true });
  parser.on('processinginstruction', ({ target, body }) => {
    if (target !== 'oai-deleted') return;
    const [, identifier, datestamp] = /^identifier="([^"]*)" datestamp="([^"]*)"$/.exec(body)!;
    found.push({ identifier: identifier!, datestamp: datestamp! });
  });
  parser.write(fs.readFileSync(file, 'utf8')).close();
  return found;
}

describe('OAI-PMH harvester against a stand-in provider', function () {
  this.timeout(60_000);
  before(needsThirdParty);
  let dir: string;
  let provider: OaiProvider | undefined;
  before(() => (dir = tempDir()));
  afterEach(async () => {
    await provider?.close();
    provider = undefined;
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function harvest(
    name: string,
    more: { faults?: Record<number, ProviderFault>; items?: ProviderItem[]; args?: string[] } = {},
    options: Partial<OaiOptions> = {},
  ) {
    provider = await OaiProvider.start({
      items: more.items ?? ITEMS,
      pageSize: 2,
      ...(more.faults ? { faults: more.faults } : {}),
    });
    const out = path.join(dir, name);
    const parsed = parseOaiCommandLine(
      ['--oai', provider.url, '--out', out, ...(more.args ?? [])],
      'test',
    );
    assert.notEqual(parsed, 'help');
    const run = harvestOai({ ...(parsed as OaiOptions), rate: 500, backoffMs: 5, ...options });
    return { out, run, provider };
  }

  /** A file standing for the last good harvest, and a check that it is still as it was. */
  function previous(name: string): () => void {
    const out = path.join(dir, name);
    fs.writeFileSync(out, '<harvest><!-- the previous harvest --></harvest>\n');
    return () => {
      assert.equal(
        fs.readFileSync(out, 'utf8'),
        '<harvest><!-- the previous harvest --></harvest>\n',
      );
      assert.deepEqual(
        fs.readdirSync(dir).filter((f) => f.startsWith(`${name}.tmp-`)),
        [],
      );
    };
  }

  describe('a whole list', () => {
    let out: string;
    let report: Awaited<ReturnType<typeof harvestOai>>;
    let requests: URLSearchParams[];
    before(async () => {
      const h = await harvest('whole.xml');
      report = await h.run;
      out = h.out;
      requests = h.provider.requests.map((r) => r.params);
    });

    it('follows every resumption token to the page without one', () => {
      assert.equal(requests.length, 6);
      assert.equal(report.pages, 6);
    });
    it('asks ListRecords in PicaPlus-xml first, then by token alone', () => {
      assert.deepEqual(
        [...requests[0]!.entries()],
        [
          ['verb', 'ListRecords'],
          ['metadataPrefix', 'PicaPlus-xml'],
        ],
      );
      for (const params of requests.slice(1))
        assert.deepEqual([...params.keys()], ['verb', 'resumptionToken']);
    });
    it('writes a file the loader knows as PicaPlus-XML', () =>
      assert.equal(sniffPica(out), 'ppxml'));
    it("holds the provider's nine records, as the loader reads the bundled file", () =>
      assert.deepEqual(picaOf(out), picaOf(FIXTURE)));
    it('keeps the deleted records as deletions, with identifier and datestamp', () =>
      assert.deepEqual(deletionsOf(out), [
        { identifier: 'oai:stand-in.invalid:deleted-1', datestamp: stampOf(10) },
        { identifier: 'oai:stand-in.invalid:deleted-2', datestamp: stampOf(11) },
      ]));
    it('reports records and deletions', () => {
      assert.equal(report.records, 9);
      assert.equal(report.deleted, 2);
      assert.equal(report.noRecordsMatch, false);
      assert.equal(report.bytes, fs.statSync(out).size);
    });
  });

  it('asks for the window and set given, and gets what changed in it', async () => {
    const { out, run, provider } = await harvest('window.xml', {
      args: ['--from', stampOf(8), '--until', stampOf(10), '--set', 'bib'],
    });
    const report = await run;
    assert.deepEqual(Object.fromEntries(provider.requests[0]!.params), {
      verb: 'ListRecords',
      metadataPrefix: 'PicaPlus-xml',
      from: stampOf(8),
      until: stampOf(10),
      set: 'bib',
    });
    assert.deepEqual(picaOf(out), picaOf(FIXTURE).slice(7));
    assert.deepEqual(
      deletionsOf(out).map((d) => d.identifier),
      ['oai:stand-in.invalid:deleted-1'],
    );
    assert.equal(report.records, 2);
  });

  it('takes noRecordsMatch for an empty harvest, and writes it', async () => {
    const untouched = previous('empty.xml');
    const { out, run } = await harvest('empty.xml', { args: ['--from', stampOf(20)] });
    const report = await run;
    assert.throws(untouched);
    assert.equal(report.noRecordsMatch, true);
    assert.equal(report.records + report.deleted, 0);
    assert.deepEqual(deletionsOf(out), []);
    assert.throws(() => [...readPica(out, 'ppxml')], /no PicaPlus-XML record/);
  });

  it('keeps only the last copy of a record that came again later in the list', async () => {
    const again = { ...ITEMS[1]!, datestamp: stampOf(12), metadata: RECORDS[5]! };
    const { out, run } = await harvest('again.xml', { items: [...ITEMS, again] });
    const report = await run;
    assert.equal(report.superseded, 1);
    const expected = picaOf(FIXTURE);
    assert.deepEqual(picaOf(out), [expected[0], ...expected.slice(2), expected[5]]);
  });

  it('writes rdf records into one RDF/XML graph, each blank node its own', async () => {
    // Two descriptions that label their blank nodes alike, as two documents may.
    const description = (n: number) =>
      `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:v="http://www.w3.org/2006/vcard/ns#">` +
      `<rdf:Description rdf:about="http://example.org/${n}"><v:adr rdf:nodeID="b0"/></rdf:Description>` +
      `<rdf:Description rdf:nodeID="b0"><v:locality xml:lang="de">Ort ${n}</v:locality></rdf:Description></rdf:RDF>`;
    const items = [1, 2].map((n) => ({
      identifier: `oai:x.invalid:${n}`,
      datestamp: stampOf(n),
      metadata: description(n),
    }));
    const { out, run } = await harvest('rdf.rdf', { items, args: ['--metadata-prefix', 'rdf'] });
    await run;
    const expected = new Parser({ format: 'N-Triples' }).parse(
      [1, 2]
        .map(
          (n) =>
            `<http://example.org/${n}> <http://www.w3.org/2006/vcard/ns#adr> _:a${n} .\n` +
            `_:a${n} <http://www.w3.org/2006/vcard/ns#locality> "Ort ${n}"@de .\n`,
        )
        .join(''),
    );
    assert.ok(sameGraph(await parseRdfXml(fs.readFileSync(out, 'utf8')), expected));
  });

  it('waits out a 503 as long as its Retry-After asks, then goes on', async () => {
    const { out, run, provider } = await harvest('busy.xml', {
      faults: { 3: { status: 503, retryAfter: '1' } },
    });
    const report = await run;
    assert.equal(report.retries, 1);
    const [, , refused, again] = provider.requests;
    assert.ok(again!.at - refused!.at >= 1000, `${again!.at - refused!.at} ms`);
    assert.deepEqual(again!.params.get('resumptionToken'), refused!.params.get('resumptionToken'));
    assert.deepEqual(picaOf(out), picaOf(FIXTURE));
  });

  const failures: [string, Record<number, ProviderFault>, RegExp, Partial<OaiOptions>?][] = [
    [
      'a token that expires mid-list',
      { 3: { oaiError: 'badResumptionToken', message: 'expired' } },
      /page 3: the provider refused the resumption token after 4 records \(badResumptionToken: expired\); it may have expired: harvest again/,
    ],
    [
      'another protocol error',
      { 1: { oaiError: 'cannotDisseminateFormat', message: 'no such format' } },
      /page 1: OAI-PMH error cannotDisseminateFormat: no such format/,
    ],
    [
      'an answer cut off',
      {
        2: {
          body: '<?xml version="1.0"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><ListRecords><record>',
        },
      },
      /the response is not well-formed XML/,
    ],
    [
      'an answer that is not OAI-PMH',
      { 2: { body: '<html><body>maintenance</body></html>' } },
      /not an OAI-PMH response: the document is <html>/,
    ],
    [
      'a Retry-After longer than the harvest waits',
      { 2: { status: 503, retryAfter: '3600' } },
      /page 2: HTTP 503 Service Unavailable asks to wait 3600 s, more than 300 s/,
    ],
    [
      'a provider that sends empty pages with new tokens for ever',
      Object.fromEntries(
        [2, 3, 4].map((n) => [
          n,
          {
            body: `<?xml version="1.0"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2026-01-01T00:00:00Z</responseDate><request verb="ListRecords">x</request><ListRecords><resumptionToken>t${n}</resumptionToken></ListRecords></OAI-PMH>`,
          },
        ]),
      ),
      /page 4: the provider sent 3 pages in a row without a record/,
      { maxEmptyPages: 3 },
    ],
    [
      'a provider that stays down',
      { 1: { status: 500 }, 2: { status: 500 } },
      /page 1: gave up after 2 attempts; last: HTTP 500/,
      { retries: 1 },
    ],
  ];
  for (const [what, faults, message, options] of failures)
    it(`fails on ${what}, leaving the previous file as it was`, async () => {
      const untouched = previous('failing.xml');
      const { run } = await harvest('failing.xml', { faults }, options);
      await assert.rejects(run, message);
      untouched();
    });

  describe('command line', () => {
    /** The command run as a child; the provider answers it from this process meanwhile. */
    const cli = (args: readonly string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli', 'harvest.ts'), ...args],
          { cwd: PROJECT_ROOT },
        );
        let [stdout, stderr] = ['', ''];
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });

    it('harvests with --oai, printing a line a page and the summary; exit 0', async () => {
      provider = await OaiProvider.start({ items: ITEMS, pageSize: 4 });
      const out = path.join(dir, 'cli.xml');
      const result = await cli(['--oai', provider.url, '--out', out, '--rate', '100', '--quiet']);
      assert.equal(result.status, 0, result.stderr);
      assert.match(result.stdout, /^page\t1\t4 records\t0 deleted\t1 requests\t\d+ ms$/m);
      assert.match(
        result.stdout,
        /^harvested 9 records and 2 deletions \(0 earlier copies left out\) in 3 pages/m,
      );
      assert.deepEqual(picaOf(out), picaOf(FIXTURE));
    });
    it('exits 0 on noRecordsMatch, saying so', async () => {
      provider = await OaiProvider.start({ items: ITEMS, pageSize: 4 });
      const result = await cli([
        '--oai',
        provider.url,
        '--out',
        path.join(dir, 'none.xml'),
        '--from',
        '2027-01-01',
        '--quiet',
      ]);
      assert.equal(result.status, 0, result.stderr);
      assert.match(result.stdout, /no records match \(noRecordsMatch\): an empty harvest/);
    });
    it('exits 1 on a failure, naming the file left unchanged', async () => {
      provider = await OaiProvider.start({
        items: ITEMS,
        pageSize: 4,
        faults: { 2: { oaiError: 'badResumptionToken', message: 'gone' } },
      });
      const result = await cli([
        '--oai',
        provider.url,
        '--out',
        path.join(dir, 'cli-failing.xml'),
        '--rate',
        '100',
        '--quiet',
      ]);
      assert.equal(result.status, 1);
      assert.match(
        result.stderr,
        /^harvest failed, .*cli-failing\.xml unchanged: page 2: the provider refused the resumption token/m,
      );
    });
    for (const [args, message] of [
      [['--from', '2026-13-01'], /--from: expected YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ/],
      [
        ['--from', '2026-11-02', '--until', '2026-11-01'],
        /--from 2026-11-02 is after --until 2026-11-01/,
      ],
      [
        ['--from', '2026-11-01', '--until', '2026-11-02T00:00:00Z'],
        /both as days or both as seconds/,
      ],
      [['--prefix', 'DE-'], /Unknown option '--prefix'/],
    ] as const)
      it(`exits 2 on ${args.join(' ')}`, async () => {
        const result = await cli(['--oai', 'http://127.0.0.1:9/oai', ...args]);
        assert.equal(result.status, 2);
        assert.match(result.stderr, message);
      });
  });
});
