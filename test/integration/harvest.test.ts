// The harvester against a stub SRU server serving the agency's real PicaPlus-XML records: every
// record arrives once and in order, as sent; failures are retried politely or end the harvest
// with the previous file left as it was.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SaxesParser } from 'saxes';
import { harvestToFile, parseCommandLine, type HarvestOptions } from '../../cli/harvest';
import {
  readPica,
  sniffPica,
  type MalformedPicaRecord,
  type PicaRecord,
} from '../../src/mapping/pica/read';
import { PPXML_NS, SruError } from '../../cli/sru';
import { PROJECT_ROOT } from '../../src/util/paths';
import { tempDir, REAL_DATA, needsThirdParty, readWhenThere } from '../support';
import { SruStub, diagnosticResponse, pageResponse, type SruStubOptions } from '../support/sruStub';

const FIXTURE = path.join(REAL_DATA, 'isil-directory_picaplus-xml_2013_9-records.xml');
const FIXTURE_TEXT = readWhenThere(FIXTURE).toString('utf8');
/** The nine `<ppxml:record>` elements of the real file, as text. */
const RECORDS = FIXTURE_TEXT.match(/<ppxml:record\b[\s\S]*?<\/ppxml:record>/g) ?? [];
const DECLARATION = `xmlns:ppxml="${PPXML_NS}"`;

/** An element as a comparable value: expanded names, attributes sorted, blank text dropped. */
interface Canonical {
  readonly name: string;
  readonly attributes: readonly (readonly [string, string])[];
  readonly children: readonly (Canonical | string)[];
}

/** Every PicaPlus-XML record of a document, canonicalised; throws when it is not well-formed. */
function canonicalRecords(xml: string): Canonical[] {
  const parser = new SaxesParser({ xmlns: true });
  const found: Canonical[] = [];
  const stack: {
    name: string;
    attributes: [string, string][];
    children: (Canonical | string)[];
  }[] = [];
  parser.on('opentag', (tag) => {
    stack.push({
      name: `{${tag.uri}}${tag.local}`,
      attributes: Object.values(tag.attributes)
        .filter((a) => a.prefix !== 'xmlns' && a.name !== 'xmlns')
        .map((a): [string, string] => [`{${a.uri}}${a.local}`, a.value])
        .sort(([a], [b]) => a.localeCompare(b)),
      children: [],
    });
  });
  parser.on('text', (text) => {
    if (text.trim() !== '') stack[stack.length - 1]?.children.push(text);
  });
  parser.on('closetag', () => {
    const element = stack.pop();
    if (!element) return;
    if (element.name === `{${PPXML_NS}}record`) found.push(element);
    else stack[stack.length - 1]?.children.push(element);
  });
  parser.write(xml).close();
  return found;
}

/** A record's subfield value, e.g. `field(record, '003@', '0')`. */
function field(record: Canonical, tag: string, code: string): string | undefined {
  const global = record.children[0] as Canonical;
  for (const t of global.children as Canonical[]) {
    if (t.attributes.find(([n]) => n === '{}id')?.[1] !== tag) continue;
    for (const s of t.children as Canonical[]) {
      if (s.attributes.find(([n]) => n === '{}id')?.[1] === code) return s.children[0] as string;
    }
  }
  return undefined;
}

/** The record text as the harvest must write it: as sent, declaring the prefix it relies on. */
function asWritten(record: string): string {
  const startTag = record.slice(0, record.indexOf('>'));
  return startTag.includes(DECLARATION)
    ? record
    : record.replace('<ppxml:record', `<ppxml:record ${DECLARATION}`);
}

const EXPECTED = FIXTURE_TEXT === '' ? [] : canonicalRecords(FIXTURE_TEXT);

/** A record as the loader's reader gives it, without where in its file it was. */
function withoutPosition(record: PicaRecord | MalformedPicaRecord): object {
  return { ...record, position: undefined };
}

describe('harvest', () => {
  before(needsThirdParty);
  let dir: string;
  let stub: SruStub | undefined;

  before(() => {
    dir = tempDir();
  });
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function serve(options: Partial<SruStubOptions> = {}): Promise<SruStub> {
    stub = await SruStub.start({ records: RECORDS, ...options });
    return stub;
  }

  function options(server: SruStub, out: string, more: Partial<HarvestOptions> = {}) {
    const parsed = parseCommandLine(['--url', server.url, '--out', out, '--page-size', '2']);
    assert.notEqual(parsed, 'help');
    return { ...(parsed as HarvestOptions), rate: 500, backoffMs: 5, ...more };
  }

  /** A file standing for the last good harvest, and a check that it is still as it was. */
  function previous(name: string): { out: string; untouched: () => void } {
    const out = path.join(dir, name);
    const content = '<harvest><!-- the previous harvest --></harvest>\n';
    fs.writeFileSync(out, content);
    return {
      out,
      untouched: () => {
        assert.equal(fs.readFileSync(out, 'utf8'), content);
        const left = fs.readdirSync(dir).filter((f) => f.startsWith(`${name}.tmp-`));
        assert.deepEqual(left, [], 'no temporary file is left behind');
      },
    };
  }

  it('has the nine real records to serve', () => {
    assert.equal(RECORDS.length, 9);
    assert.equal(EXPECTED.length, 9);
  });

  describe('five pages of two records', () => {
    let server: SruStub;
    let out: string;
    let report: Awaited<ReturnType<typeof harvestToFile>>;
    let written: string;

    before(async () => {
      server = await SruStub.start({ records: RECORDS });
      out = path.join(dir, 'all.xml');
      report = await harvestToFile(options(server, out));
      written = fs.readFileSync(out, 'utf8');
    });
    after(() => server.close());

    it('writes a well-formed file with the same records, in order', () => {
      assert.deepEqual(canonicalRecords(written), EXPECTED);
    });

    it('writes each record as the server sent it', () => {
      const records = written.match(/<ppxml:record\b[\s\S]*?<\/ppxml:record>/g);
      assert.deepEqual(records, RECORDS.map(asWritten));
    });

    it('has every record once: their 003@ and 008H $e in the order of the real file', () => {
      const ids = canonicalRecords(written).map((r) => [
        field(r, '003@', '0'),
        field(r, '008H', 'e'),
      ]);
      assert.deepEqual(
        ids,
        EXPECTED.map((r) => [field(r, '003@', '0'), field(r, '008H', 'e')]),
      );
      assert.equal(new Set(ids.map(([id]) => id)).size, 9);
      assert.deepEqual(ids[0], ['009008845', 'DE-38']);
    });

    it('is a file the loader reads as PicaPlus-XML, with the records of the real file', () => {
      assert.equal(sniffPica(out), 'ppxml');
      const read = [...readPica(out, 'ppxml')].map(withoutPosition);
      assert.equal(read.length, 9);
      assert.deepEqual(read, [...readPica(FIXTURE, 'ppxml')].map(withoutPosition));
    });

    it('pages with startRecord and maximumRecords until numberOfRecords', () => {
      assert.deepEqual(server.starts, [1, 3, 5, 7, 9]);
      for (const { params } of server.requests) assert.equal(params.get('maximumRecords'), '2');
    });

    it('asks SRU 1.1 for PicaPlus-XML records whose ISIL starts with DE-', () => {
      for (const { params } of server.requests) {
        assert.equal(params.get('version'), '1.1');
        assert.equal(params.get('operation'), 'searchRetrieve');
        assert.equal(params.get('query'), 'isl="DE-*"');
        assert.equal(params.get('recordSchema'), 'PicaPlus-xml');
        assert.equal(params.get('recordPacking'), 'xml');
      }
    });

    it('names the project in User-Agent', () => {
      for (const { userAgent } of server.requests) assert.match(userAgent ?? '', /^isil-ld\/\S+ /);
    });

    it('reports pages, records and requests', () => {
      assert.equal(report.pages, 5);
      assert.equal(report.records, 9);
      assert.equal(report.numberOfRecords, 9);
      assert.equal(report.requests, 5);
      assert.equal(report.retries, 0);
      assert.equal(report.duplicates, 0);
      assert.equal(report.bytes, Buffer.byteLength(written));
    });
  });

  it('ORs several prefixes into one query', async () => {
    const server = await serve();
    const base = options(server, path.join(dir, 'two.xml'));
    const parsed = parseCommandLine(['--prefix', 'DE-', '--prefix', 'AT-', '--url', server.url]);
    assert.notEqual(parsed, 'help');
    await harvestToFile({ ...base, query: (parsed as HarvestOptions).query, pageSize: 100 });
    assert.equal(server.requests[0]?.params.get('query'), 'isl="DE-*" or isl="AT-*"');
    assert.deepEqual(server.starts, [1]);
  });

  it('retries a page that failed with 500, and loses nothing', async () => {
    const server = await serve({ faults: { 5: [{ status: 500 }] } });
    const out = path.join(dir, 'retried.xml');
    const retries: string[] = [];
    const report = await harvestToFile(
      options(server, out, { onRetry: (e) => retries.push(`${e.startRecord} ${e.reason}`) }),
    );
    assert.deepEqual(server.starts, [1, 3, 5, 5, 7, 9]);
    assert.deepEqual(retries, ['5 HTTP 500 Internal Server Error']);
    assert.equal(report.retries, 1);
    assert.deepEqual(canonicalRecords(fs.readFileSync(out, 'utf8')), EXPECTED);
  });

  it('backs off exponentially, with jitter, between retries of a page', async () => {
    const server = await serve({
      faults: { 1: [{ status: 500 }, { status: 503 }, { status: 500 }] },
    });
    const delays: number[] = [];
    await harvestToFile(
      options(server, path.join(dir, 'backoff.xml'), {
        backoffMs: 100,
        onRetry: (e) => delays.push(e.delayMs),
      }),
    );
    // Retry n waits between half and all of 100 ms · 2^(n-1).
    delays.forEach((delay, i) => {
      const ceiling = 100 * 2 ** i;
      assert.ok(delay >= ceiling / 2 && delay <= ceiling, `retry ${i + 1} waited ${delay} ms`);
    });
    assert.equal(delays.length, 3);
    const at = server.requests.slice(0, 4).map((r) => r.at);
    at.slice(1).forEach((t, i) => {
      const gap = t - (at[i] ?? 0);
      assert.ok(gap >= (delays[i] ?? 0) - 10, `retry ${i + 1} came ${gap.toFixed(0)} ms later`);
    });
  });

  it('waits as long as Retry-After asks after a 429', async () => {
    const server = await serve({ faults: { 3: [{ status: 429, retryAfter: '1' }] } });
    const out = path.join(dir, 'throttled.xml');
    await harvestToFile(options(server, out));
    assert.deepEqual(server.starts, [1, 3, 3, 5, 7, 9]);
    const [refused, retried] = [server.requests[1], server.requests[2]];
    assert.ok(refused && retried);
    const waited = retried.at - refused.at;
    assert.ok(waited >= 900, `retried after ${waited.toFixed(0)} ms, Retry-After asked for 1000`);
    assert.deepEqual(canonicalRecords(fs.readFileSync(out, 'utf8')), EXPECTED);
  });

  it('retries a request that gets no answer within the timeout', async () => {
    const server = await serve({ faults: { 1: ['hang'] } });
    const out = path.join(dir, 'timeout.xml');
    const reasons: string[] = [];
    const report = await harvestToFile(
      options(server, out, { timeoutMs: 300, onRetry: (e) => reasons.push(e.reason) }),
    );
    assert.deepEqual(reasons, ['no complete answer within 300 ms']);
    assert.equal(report.records, 9);
  });

  it('keeps at most `rate` requests a second, retries included', async () => {
    const server = await serve({ faults: { 3: [{ status: 503 }] } });
    await harvestToFile(options(server, path.join(dir, 'paced.xml'), { rate: 10 }));
    assert.equal(server.requests.length, 6);
    const at = server.requests.map((r) => r.at);
    const gaps = at.slice(1).map((t, i) => Math.round(t - (at[i] ?? 0)));
    // 10 a second is one every 100 ms from the start of one request to the next. The stub sees
    // them arrive, later by however long each took to leave a busy machine: the margins cover
    // that, and no unpaced client comes near them.
    for (const gap of gaps) assert.ok(gap >= 50, `requests ${gaps.join(', ')} ms apart`);
    const span = (at[at.length - 1] ?? 0) - (at[0] ?? 0);
    assert.ok(span >= 450, `six requests over ${span.toFixed(0)} ms, at least 500 promised`);
  });

  it('ends with the diagnostic’s message when the server answers with one', async () => {
    const server = await serve({
      faults: {
        3: [
          {
            diagnostic: {
              uri: 'info:srw/diagnostic/1/8',
              details: 'Unsupported parameter',
              message: '[quer]',
            },
          },
        ],
      },
    });
    const { out, untouched } = previous('diagnostic.xml');
    await assert.rejects(
      harvestToFile(options(server, out)),
      (error: Error) =>
        error instanceof SruError &&
        /SRU diagnostic info:srw\/diagnostic\/1\/8: \[quer\] – Unsupported parameter/.test(
          error.message,
        ),
    );
    assert.deepEqual(server.starts, [1, 3], 'a diagnostic is not retried');
    untouched();
  });

  it('gives up after its retries when the server keeps failing; the previous file stays', async () => {
    const server = await serve({ always: { status: 502 } });
    const { out, untouched } = previous('failing.xml');
    await assert.rejects(
      harvestToFile(options(server, out, { retries: 3 })),
      /startRecord 1: gave up after 4 attempts; last: HTTP 502 Bad Gateway/,
    );
    assert.equal(server.requests.length, 4);
    untouched();
  });

  it('does not retry a 4xx other than 429', async () => {
    const server = await serve({ faults: { 1: [{ status: 404 }] } });
    const { out, untouched } = previous('not-found.xml');
    await assert.rejects(harvestToFile(options(server, out)), /HTTP 404 Not Found/);
    assert.equal(server.requests.length, 1);
    untouched();
  });

  const surrogate =
    `<searchRetrieveResponse xmlns="http://www.loc.gov/zing/srw/"><version>1.1</version>` +
    `<numberOfRecords>9</numberOfRecords><records><record>` +
    `<recordSchema>info:srw/schema/1/diagnostics-v1.1</recordSchema><recordPacking>xml</recordPacking>` +
    `<recordData><diagnostic xmlns="http://www.loc.gov/zing/srw/diagnostic/">` +
    `<uri>info:srw/diagnostic/1/64</uri><message>Record temporarily unavailable</message>` +
    `</diagnostic></recordData><recordPosition>3</recordPosition></record></records>` +
    `<nextRecordPosition>4</nextRecordPosition></searchRetrieveResponse>`;
  const broken: [string, SruStubOptions['faults'], RegExp][] = [
    [
      'an HTML page with status 200',
      { 3: [{ body: '<html><body>Wartungsarbeiten</body></html>' }] },
      /not an SRU 1\.1 searchRetrieveResponse: the document is <html>/,
    ],
    [
      'a page cut off in the middle',
      { 3: [{ body: pageResponse(RECORDS, 3, 2, 'x').slice(0, 3000) }] },
      /not well-formed XML/,
    ],
    [
      'a surrogate diagnostic instead of a record',
      { 3: [{ body: surrogate }] },
      /record 1 of the page is an SRU diagnostic: info:srw\/diagnostic\/1\/64: Record temporarily unavailable/,
    ],
    [
      'a result set that grows between pages',
      { 5: [{ numberOfRecords: 10 }] },
      /result set changed during the harvest: numberOfRecords was 9, then 10 at startRecord 5/,
    ],
    [
      'a page with no records before the end',
      { 7: [{ body: pageResponse(RECORDS, 10, 2, 'x', 9) }] },
      /no records at startRecord 7 of 9/,
    ],
    [
      'a nextRecordPosition that skips records',
      {
        3: [
          {
            body: pageResponse(RECORDS, 3, 2, 'x').replace(
              '>5</nextRecordPosition>',
              '>6</nextRecordPosition>',
            ),
          },
        ],
      },
      /nextRecordPosition 6 does not follow record 4/,
    ],
    [
      'records out of position',
      {
        3: [
          {
            body: pageResponse(RECORDS, 3, 2, 'x').replace(
              '>3</recordPosition>',
              '>2</recordPosition>',
            ),
          },
        ],
      },
      /record at recordPosition 2 where 3 was expected/,
    ],
    [
      'bytes that are not UTF-8',
      { 3: [{ body: Buffer.from(pageResponse(RECORDS, 3, 2, 'Köln'), 'latin1') }] },
      /response to http:\/\/127\.0\.0\.1:\d+\/sru\/bib\?.*startRecord=3.* is not UTF-8/,
    ],
    [
      'a whole-response diagnostic',
      {
        1: [{ body: diagnosticResponse('info:srw/diagnostic/1/10', 'Query syntax error', 'isl=') }],
      },
      /info:srw\/diagnostic\/1\/10: isl= – Query syntax error/,
    ],
  ];
  for (const [what, faults, message] of broken) {
    it(`refuses ${what}, and leaves the previous file`, async () => {
      const server = await serve({ faults });
      const { out, untouched } = previous('broken.xml');
      await assert.rejects(harvestToFile(options(server, out)), message);
      untouched();
    });
  }

  it('leaves out a record whose 003@ came already, and counts it', async () => {
    const server = await SruStub.start({ records: [...RECORDS, RECORDS[0] ?? ''] });
    stub = server;
    const out = path.join(dir, 'duplicate.xml');
    const report = await harvestToFile(options(server, out));
    assert.equal(report.numberOfRecords, 10);
    assert.equal(report.records, 9);
    assert.equal(report.duplicates, 1);
    assert.deepEqual(canonicalRecords(fs.readFileSync(out, 'utf8')), EXPECTED);
  });

  it('stops when interrupted, and leaves the previous file', async () => {
    const server = await serve({ faults: { 3: ['hang'] } });
    const { out, untouched } = previous('interrupted.xml');
    const abort = new AbortController();
    const harvest = harvestToFile(options(server, out, { signal: abort.signal }), (page) => {
      if (page.startRecord === 1) setTimeout(() => abort.abort(), 50);
    });
    await assert.rejects(harvest, /^SruError: interrupted$/);
    untouched();
  });

  it('refuses to replace the file with an empty harvest', async () => {
    const server = await SruStub.start({ records: [] });
    stub = server;
    const { out, untouched } = previous('empty.xml');
    await assert.rejects(harvestToFile(options(server, out)), /matched no records/);
    untouched();
  });

  describe('command line', () => {
    function run(
      args: string[],
    ): Promise<{ status: number | null; stdout: string; stderr: string }> {
      return new Promise((resolve) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli', 'harvest.ts'), ...args],
          { cwd: PROJECT_ROOT },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
    }

    it('exits 0 and prints its report', async () => {
      const server = await serve({ faults: { 5: [{ status: 500 }] } });
      const out = path.join(dir, 'cli.xml');
      const result = await run([
        '--url',
        server.url,
        '--out',
        out,
        '--page-size',
        '4',
        '--rate',
        '50',
      ]);
      assert.equal(result.status, 0, result.stderr);
      assert.match(
        result.stdout,
        /harvested 9 records \(numberOfRecords 9, 0 duplicates left out\) in 3 pages, 4 requests, 1 retries/,
      );
      assert.match(result.stdout, /^page\tstartRecord 5\t4 records\t2 requests\t/m);
      assert.match(
        result.stderr,
        /^retry\tstartRecord 5\t#1\tHTTP 500 Internal Server Error\twaiting \d+ ms$/m,
      );
      assert.deepEqual(canonicalRecords(fs.readFileSync(out, 'utf8')), EXPECTED);
    });

    it('exits 1 when the harvest fails, and leaves the previous file', async () => {
      const server = await serve({ always: { status: 500 } });
      const { out, untouched } = previous('cli-failing.xml');
      const result = await run([
        '--url',
        server.url,
        '--out',
        out,
        '--retries',
        '1',
        '--rate',
        '50',
      ]);
      assert.equal(result.status, 1);
      assert.match(
        result.stderr,
        /^harvest failed, .*cli-failing\.xml unchanged: startRecord 1: gave up after 2 attempts/m,
      );
      untouched();
    });

    it('exits 2 on a bad flag, saying which', () => {
      const result = spawnSync(
        process.execPath,
        ['--import', 'tsx', path.join(PROJECT_ROOT, 'cli', 'harvest.ts'), '--rate', 'fast'],
        { cwd: PROJECT_ROOT, encoding: 'utf8' },
      );
      assert.equal(result.status, 2);
      assert.match(
        result.stderr,
        /^--rate: expected requests a second, more than 0 and at most 100, got "fast"\nusage:/,
      );
    });
  });

  describe('flags', () => {
    const refused: [string[], RegExp][] = [
      [['--rate', '0'], /^--rate: expected requests a second/],
      [['--rate=-1'], /^--rate: /],
      [['--page-size', '0'], /^--page-size: expected an integer from 1 to 100, got "0"/],
      [['--page-size', '101'], /^--page-size: /],
      [['--page-size', '2.5'], /^--page-size: /],
      [['--retries=-1'], /^--retries: expected an integer from 0 to 20/],
      [['--retries', ''], /^--retries: /],
      [['--timeout', '0'], /^--timeout: /],
      [['--prefix', 'DE*'], /^--prefix: ISIL prefix "DE\*": expected 1 to 16 of/],
      [['--prefix', 'DE-" or dnb.woe="x'], /^--prefix: /],
      [['--prefix', 'DE-', '--query', 'isl=DE-1a'], /^--query and --prefix exclude each other/],
      [['--url', 'ftp://example.org/sru'], /^--url: expected http or https/],
      [['--url', 'not a url'], /^--url: not a URL/],
      [['--out', PROJECT_ROOT], /^--out: .* is a directory/],
      [['--colour'], /Unknown option '--colour'/],
      [['stray'], /Unexpected argument 'stray'/],
    ];
    for (const [argv, message] of refused) {
      it(`refuses ${argv.join(' ')}`, () => {
        assert.throws(
          () => parseCommandLine(argv),
          (error: Error) => message.test(error.message),
        );
      });
    }

    it('defaults to the DNB ISIL catalogue, DE-, 100 a page, 1 request a second', () => {
      const parsed = parseCommandLine([]) as HarvestOptions;
      assert.equal(parsed.url, 'https://services.dnb.de/sru/bib');
      assert.equal(parsed.query, 'isl="DE-*"');
      assert.equal(parsed.recordSchema, 'PicaPlus-xml');
      assert.equal(parsed.pageSize, 100);
      assert.equal(parsed.rate, 1);
      assert.equal(parsed.retries, 5);
      assert.equal(parsed.timeoutMs, 60_000);
    });
  });
});
