// Command line: `npm run harvest -- [--prefix DE-]… [--out FILE]` fetches the agency's records in
// PicaPlus-XML through its SRU interface into one source file the loader reads, or leaves the
// previous file as it was when the harvest fails.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../src/util/paths';
import { numberFlag, pacingFlags, runHarvest, UsageError } from './flags';
import { asksForOai, oaiMain } from './oaiCommand';
import { isilPrefixQuery, PPXML_NS, searchRetrievePages, SruError, type SruOptions } from './sru';
import { xmlAttribute, type SruRecord } from './sruResponse';

/**
 * The ISIL and address catalogue of the DNB (its SRU explain names it "ISIL- und
 * Sigelverzeichnis: Adressdatei der Deutschen ISIL-Agentur").
 */
export const DNB_ISIL_SRU = 'https://services.dnb.de/sru/bib';
export const RECORD_SCHEMA = 'PicaPlus-xml';
export const DEFAULT_OUT = path.join('data', 'isil-directory.picaplus.xml');
/** The DNB's SRU answers at most 100 records a request. */
const MAX_PAGE_SIZE = 100;

const VERSION = (
  JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
export const USER_AGENT = `isil-ld/${VERSION} (ISIL Linked Data service; SRU harvester; Node.js ${process.versions.node})`;

const USAGE = `usage: npm run harvest -- [--prefix DE-]… [--query CQL] [--out FILE] [--url URL]
                            [--from DATE --date-index NAME] [--page-size N] [--rate N] [--retries N] [--timeout SECONDS]
Fetches every record whose ISIL starts with one of the prefixes (default DE-) in PicaPlus-XML
from the SRU interface (default ${DNB_ISIL_SRU}) and replaces FILE with them.
  --prefix P      an ISIL prefix; repeat for several (query: isl="P*" or …)
  --query CQL     the CQL query itself, instead of --prefix
  --from DATE     only records changed since DATE, by the catalogue's date-of-change index
  --date-index I  that index's CQL name (the DNB's ISIL catalogue has none: use --oai)
  --out FILE      where the records go (default ${DEFAULT_OUT});
                  written to a temporary file, then renamed
  --url URL       the SRU base URL
  --page-size N   records a request, 1 to ${MAX_PAGE_SIZE} (default 100)
  --rate N        at most N requests a second, retries included (default 1)
  --retries N     retries of one page before the harvest gives up, 0 to 20 (default 5)
  --timeout S     seconds one request may take (default 60)
  --quiet         no progress on stderr (a bar on a terminal, a line every 10 s otherwise)
npm run harvest -- --oai URL …: OAI-PMH instead (npm run harvest -- --oai URL --help)`;

export interface HarvestOptions extends SruOptions {
  readonly out: string;
  /** No progress on stderr (--quiet). */
  readonly quiet?: boolean;
}

export interface HarvestReport {
  readonly out: string;
  readonly query: string;
  readonly numberOfRecords: number;
  readonly records: number;
  /** Records whose 003@ came a second time, left out. */
  readonly duplicates: number;
  readonly pages: number;
  readonly requests: number;
  readonly retries: number;
  readonly bytes: number;
  readonly ms: number;
}

/** The start of a harvest file: the XML declaration and the `<harvest>` element's start tag. */
function harvestStart(options: HarvestOptions): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<harvest xmlns:ppxml="${PPXML_NS}" source="${xmlAttribute(options.url)}"` +
    ` query="${xmlAttribute(options.query)}"` +
    ` recordSchema="${xmlAttribute(options.recordSchema)}" date="${new Date().toISOString()}">\n`
  );
}

/** Whether a record of the same id was harvested before (a result set that shifted between
 * pages); a record without an id is never a duplicate. Notes the id of one that was not. */
function seenBefore(record: SruRecord, seen: Set<string>): boolean {
  if (record.id === undefined) return false;
  if (seen.has(record.id)) return true;
  seen.add(record.id);
  return false;
}

/**
 * Harvests into `options.out`: the records go to a temporary file beside it page by page, inside a
 * plain `<harvest>` element (which declares `ppxml` as the real files do, so the loader knows the
 * file from its first line), each as the server sent it; the file replaces `out` only once the
 * last page is in. On any error the temporary file is removed and `out` is untouched.
 */
export async function harvestToFile(
  options: HarvestOptions,
  onPage: (page: {
    startRecord: number;
    records: number;
    attempts: number;
    ms: number;
    numberOfRecords: number;
  }) => void = () => {},
): Promise<HarvestReport> {
  const began = performance.now();
  const out = path.resolve(options.out);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const temporary = `${out}.tmp-${process.pid}-${Date.now().toString(36)}`;
  const file = await fs.promises.open(temporary, 'wx');
  const seen = new Set<string>();
  let numberOfRecords = 0;
  let records = 0;
  let duplicates = 0;
  let pages = 0;
  let requests = 0;
  let bytes = 0;
  const write = async (text: string): Promise<void> => {
    // A write may take less than it is given; the rest goes in the next one.
    const buffer = Buffer.from(text, 'utf8');
    for (let offset = 0; offset < buffer.length;) {
      offset += (await file.write(buffer, offset)).bytesWritten;
    }
    bytes += buffer.length;
  };
  try {
    await write(harvestStart(options));
    for await (const page of searchRetrievePages(options)) {
      numberOfRecords = page.numberOfRecords;
      pages++;
      requests += page.attempts;
      const fresh = page.records.filter((record) => !seenBefore(record, seen));
      duplicates += page.records.length - fresh.length;
      records += fresh.length;
      await write(fresh.map((record) => `${record.xml}\n`).join(''));
      onPage({
        startRecord: page.startRecord,
        records: page.records.length,
        attempts: page.attempts,
        ms: page.ms,
        numberOfRecords: page.numberOfRecords,
      });
    }
    if (records === 0) {
      throw new SruError(`the query ${options.query} matched no records; nothing to write`);
    }
    await write('</harvest>\n');
    await file.sync();
    await file.close();
    fs.renameSync(temporary, out);
  } catch (error) {
    await file.close().catch(() => {});
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  return {
    out,
    query: options.query,
    numberOfRecords,
    records,
    duplicates,
    pages,
    requests,
    retries: requests - pages,
    bytes,
    ms: performance.now() - began,
  };
}

const OPTIONS = {
  prefix: { type: 'string', multiple: true },
  query: { type: 'string' },
  from: { type: 'string' },
  'date-index': { type: 'string' },
  out: { type: 'string' },
  url: { type: 'string' },
  'page-size': { type: 'string' },
  rate: { type: 'string' },
  retries: { type: 'string' },
  timeout: { type: 'string' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

/**
 * The query narrowed to the records changed since `from`, by the catalogue's date-of-change
 * index. The DNB's ISIL catalogue lists none in its SRU explain, so there is no default.
 */
function sinceQuery(query: string, from: string | undefined, index: string | undefined): string {
  if (from === undefined && index === undefined) return query;
  if (from === undefined || index === undefined)
    throw new UsageError(
      '--from needs --date-index, the CQL index of the date of change; the DNB ISIL catalogue ' +
        'has none (its SRU explain lists none): harvest its changes with --oai',
    );
  if (!/^[A-Za-z][\w.]*$/.test(index))
    throw new UsageError(`--date-index: not a CQL index: ${index}`);
  if (!/^\d{4}-\d{2}-\d{2}([T ][\d:]+Z?)?$/.test(from))
    throw new UsageError(`--from: expected a date YYYY-MM-DD, got ${JSON.stringify(from)}`);
  return `(${query}) and ${index}>="${from}"`;
}

/** The harvest the command line asks for, validated. */
export function parseCommandLine(argv: readonly string[]): HarvestOptions | 'help' {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];
  try {
    ({ values } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return 'help';
  if (values.query !== undefined && values.prefix !== undefined) {
    throw new UsageError('--query and --prefix exclude each other');
  }
  let query: string;
  if (values.query !== undefined) {
    if (values.query.trim() === '') throw new UsageError('--query: empty');
    query = values.query;
  } else {
    try {
      query = isilPrefixQuery(values.prefix ?? ['DE-']);
    } catch (error) {
      throw new UsageError(`--prefix: ${(error as Error).message}`);
    }
  }
  query = sinceQuery(query, values.from, values['date-index']);
  const url = values.url ?? DNB_ISIL_SRU;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url: not a URL: ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`--url: expected http or https, got ${JSON.stringify(url)}`);
  }
  const out = values.out ?? DEFAULT_OUT;
  if (out.trim() === '') throw new UsageError('--out: empty');
  if (fs.existsSync(out) && fs.statSync(out).isDirectory()) {
    throw new UsageError(`--out: ${out} is a directory`);
  }
  return {
    ...(values.quiet ? { quiet: true } : {}),
    url,
    query,
    out,
    recordSchema: RECORD_SCHEMA,
    userAgent: USER_AGENT,
    pageSize: numberFlag(
      'page-size',
      values['page-size'],
      MAX_PAGE_SIZE,
      (n) => Number.isInteger(n) && n >= 1 && n <= MAX_PAGE_SIZE,
      `an integer from 1 to ${MAX_PAGE_SIZE}`,
    ),
    ...pacingFlags(values),
  };
}

export async function main(argv: readonly string[]): Promise<number> {
  if (asksForOai(argv)) return oaiMain(argv, USER_AGENT.replace('SRU harvester', 'harvester'));
  let options: HarvestOptions | 'help';
  try {
    options = parseCommandLine(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n${USAGE}\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const out = process.stdout;
  out.write(`harvest\t${options.url}\t${options.query}\n`);
  return runHarvest(options, async (signal, progress) => {
    const report = await harvestToFile(
      {
        ...options,
        signal,
        onRetry: (event) =>
          process.stderr.write(
            `retry\tstartRecord ${event.startRecord}\t#${event.retry}\t${event.reason}\t` +
              `waiting ${Math.round(event.delayMs)} ms\n`,
          ),
      },
      (page) => {
        out.write(
          `page\tstartRecord ${page.startRecord}\t${page.records} records\t` +
            `${page.attempts} requests\t${Math.round(page.ms)} ms\n`,
        );
        const fetched = page.startRecord - 1 + page.records;
        progress.report('fetching', fetched, page.numberOfRecords, 'records');
      },
    );
    return (
      `harvested ${report.records} records (numberOfRecords ${report.numberOfRecords}, ` +
      `${report.duplicates} duplicates left out) in ${report.pages} pages, ${report.requests} requests, ` +
      `${report.retries} retries, ${(report.ms / 1000).toFixed(1)} s; wrote ${report.out} (${report.bytes} bytes)\n`
    );
  });
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
