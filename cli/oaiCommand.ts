// Command line: `npm run harvest -- --oai URL [--from D] [--until D] [--set S] [--metadata-prefix P]`
// harvests an OAI-PMH repository's records (all, or those changed in a window) into one file the
// loader reads, or leaves the previous file as it was when the harvest fails.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseDatestamp, type Bound } from '../src/oai/request';
import { pacingFlags, runHarvest, UsageError } from './flags';
import {
  DEFAULT_METADATA_PREFIX,
  harvestOai,
  RDF_PREFIX,
  type OaiHarvestReport,
  type OaiOptions,
} from './oaiHarvest';

export const DEFAULT_OAI_OUT = path.join('data', 'harvest', 'oai.picaplus.xml');
export const DEFAULT_OAI_RDF_OUT = path.join('data', 'harvest', 'oai.rdf');

export const OAI_USAGE = `usage: npm run harvest -- --oai URL [--from DATE] [--until DATE] [--set SPEC]
                            [--metadata-prefix P] [--out FILE] [--rate N] [--retries N]
                            [--timeout SECONDS] [--quiet]
Fetches the records of an OAI-PMH repository (ListRecords, every resumption token) and replaces
FILE with them; deleted records are kept as <?oai-deleted identifier="…" datestamp="…"?> lines.
  --oai URL            the repository's base URL
  --from, --until D    the window of datestamps: YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ, inclusive
  --set SPEC           one set of the repository
  --metadata-prefix P  the format (default ${DEFAULT_METADATA_PREFIX}); ${RDF_PREFIX} goes into one RDF/XML file
  --out FILE           default ${DEFAULT_OAI_OUT} (${DEFAULT_OAI_RDF_OUT} for ${RDF_PREFIX});
                       written to a temporary file, then renamed
  --rate N             at most N requests a second, retries included (default 1)
  --retries N          retries of one page before the harvest gives up, 0 to 20 (default 5)
  --timeout S          seconds one request may take (default 60)
  --quiet              no progress on stderr`;

const OPTIONS = {
  oai: { type: 'string' },
  from: { type: 'string' },
  until: { type: 'string' },
  set: { type: 'string' },
  'metadata-prefix': { type: 'string' },
  out: { type: 'string' },
  rate: { type: 'string' },
  retries: { type: 'string' },
  timeout: { type: 'string' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

/** A `--from` or `--until` value, read as the provider reads it (OAI-PMH §3.3.1). */
function datestamp(name: 'from' | 'until', value: string | undefined): Bound | undefined {
  if (value === undefined) return undefined;
  const bound = parseDatestamp(value, name);
  if ('code' in bound)
    throw new UsageError(
      `--${name}: expected YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ (UTC), got ${JSON.stringify(value)}`,
    );
  return bound;
}

/** Whether the command line asks for an OAI-PMH harvest. */
export const asksForOai = (argv: readonly string[]): boolean =>
  argv.some((a) => a === '--oai' || a.startsWith('--oai='));

/** The harvest the command line asks for, validated. */
export function parseOaiCommandLine(
  argv: readonly string[],
  userAgent: string,
): OaiOptions | 'help' {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];
  try {
    ({ values } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return 'help';
  let url: URL;
  try {
    url = new URL(values.oai ?? '');
  } catch {
    throw new UsageError(`--oai: not a URL: ${JSON.stringify(values.oai)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--oai: expected http or https, got ${JSON.stringify(values.oai)}`);
  const from = datestamp('from', values.from);
  const until = datestamp('until', values.until);
  // §3.3.1: both arguments of one request have the same granularity, and from is not after until.
  if (from !== undefined && until !== undefined) {
    if (from.day !== until.day)
      throw new UsageError('--from and --until: give both as days or both as seconds');
    if (from.seconds > until.seconds)
      throw new UsageError(`--from ${values.from} is after --until ${values.until}`);
  }
  const metadataPrefix = values['metadata-prefix'] ?? DEFAULT_METADATA_PREFIX;
  if (!/^[A-Za-z0-9_.!~*'()-]+$/.test(metadataPrefix))
    throw new UsageError(
      `--metadata-prefix: not a metadata prefix: ${JSON.stringify(metadataPrefix)}`,
    );
  if (values.set !== undefined && values.set.trim() === '') throw new UsageError('--set: empty');
  const out = values.out ?? (metadataPrefix === RDF_PREFIX ? DEFAULT_OAI_RDF_OUT : DEFAULT_OAI_OUT);
  if (out.trim() === '') throw new UsageError('--out: empty');
  if (fs.existsSync(out) && fs.statSync(out).isDirectory())
    throw new UsageError(`--out: ${out} is a directory`);
  return {
    url: url.href,
    metadataPrefix,
    from: values.from,
    until: values.until,
    set: values.set,
    out,
    userAgent,
    ...(values.quiet ? { quiet: true } : {}),
    ...pacingFlags(values),
  };
}

/** The summary line a harvest ends with on stdout. */
export function oaiSummary(report: OaiHarvestReport): string {
  const what = report.noRecordsMatch
    ? 'no records match (noRecordsMatch): an empty harvest'
    : `harvested ${report.records} records and ${report.deleted} deletions (${report.superseded} earlier copies left out)`;
  return (
    `${what} in ${report.pages} pages, ${report.requests} requests, ${report.retries} retries, ` +
    `${(report.ms / 1000).toFixed(1)} s; wrote ${report.out} (${report.bytes} bytes)\n`
  );
}

export async function oaiMain(argv: readonly string[], userAgent: string): Promise<number> {
  let options: OaiOptions | 'help';
  try {
    options = parseOaiCommandLine(argv, userAgent);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n${OAI_USAGE}\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(`${OAI_USAGE}\n`);
    return 0;
  }
  const out = process.stdout;
  const window = [
    options.from && `from ${options.from}`,
    options.until && `until ${options.until}`,
  ];
  out.write(
    `harvest\t${options.url}\tListRecords ${options.metadataPrefix}` +
      `${options.set ? ` set ${options.set}` : ''}${window
        .filter(Boolean)
        .map((w) => ` ${w}`)
        .join('')}\n`,
  );
  return runHarvest(options, async (signal, progress) =>
    oaiSummary(
      await harvestOai(
        {
          ...options,
          signal,
          onRetry: (e) =>
            process.stderr.write(
              `retry\tpage ${e.page}\t#${e.retry}\t${e.reason}\twaiting ${Math.round(e.delayMs)} ms\n`,
            ),
        },
        (page) => {
          out.write(
            `page\t${page.page}\t${page.records} records\t${page.deleted} deleted\t` +
              `${page.attempts} requests\t${Math.round(page.ms)} ms\n`,
          );
          progress.report('fetching', page.harvested, page.completeListSize, 'records');
        },
      ),
    ),
  );
}
