// Command line: `npm run update -- --oai URL [--pid PID] …`: the daily run in one command, for cron
// or a systemd timer (docs/operations.md). It harvests what the repository changed since the
// current version's time (the snapshot's trailer names it, from the change log), applies it over
// that version (`load --update`), and tells the server to reload (SIGHUP to --pid). An empty
// harvest, or one that changes nothing, writes no version and exits 0, saying "nothing changed".
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../src/config/config';
import { snapshotPointer } from '../src/load/commit/commitVersion';
import { pacingFlags, numberFlag, UsageError } from './flags';
import { USER_AGENT } from './harvest';
import { failure } from './loadCommand';
import {
  DEFAULT_METADATA_PREFIX,
  harvestOai,
  OaiError,
  RDF_PREFIX,
  type OaiOptions,
} from './oaiHarvest';
import { SruError } from './sru';
import { oaiSummary, parseOaiCommandLine } from './oaiCommand';
import { Progress, progressMode } from './progress';
import { remoteVia } from './remoteCommand';
import { applyUpdate } from './updateCommand';

const USAGE = `usage: npm run update -- --oai URL [--metadata-prefix P] [--set SPEC] [--from DATE]
                           [--overlap SECONDS] [--out FILE] [--pid PID] [--strict | --skip-validation]
                           [--rate N] [--retries N] [--timeout SECONDS] [--quiet]
Harvests the OAI-PMH repository's changes since the current version's time (less --overlap,
default 3600 s; or since --from), applies them over that version as load --update does, and sends
SIGHUP to the server --pid names, which swaps the new version in. An empty harvest, or one that
changes nothing, writes no version: "nothing changed", exit 0. A failure leaves the version as it
was: exit 1 (2 for a usage error). Needs the change log (HISTORY_DIR) for the version's time,
unless --from is given (docs/operations.md).
  --metadata-prefix P  ${DEFAULT_METADATA_PREFIX} (default; the agency's) or ${RDF_PREFIX} (another instance of this service: a mirror)
  --out FILE           where the harvest is kept (default data/harvest/update.<format>)`;

const OPTIONS = {
  oai: { type: 'string' },
  'metadata-prefix': { type: 'string' },
  set: { type: 'string' },
  from: { type: 'string' },
  overlap: { type: 'string' },
  out: { type: 'string' },
  pid: { type: 'string' },
  strict: { type: 'boolean' },
  'skip-validation': { type: 'boolean' },
  rate: { type: 'string' },
  retries: { type: 'string' },
  timeout: { type: 'string' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];

/** `seconds` as an OAI-PMH datestamp of seconds (OAI-PMH §3.3.1). */
const datestamp = (seconds: number) =>
  new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The harvest the command asks for, from the version at DATASET's time when not --from. */
function harvestOf(values: Values, since: string | undefined): OaiOptions {
  const prefix = values['metadata-prefix'] ?? DEFAULT_METADATA_PREFIX;
  const out =
    values.out ??
    path.join('data', 'harvest', prefix === RDF_PREFIX ? 'update.rdf' : 'update.picaplus.xml');
  const pass = (name: 'set' | 'rate' | 'retries' | 'timeout') =>
    values[name] === undefined ? [] : [`--${name}`, values[name]];
  const argv = [
    ...['--oai', values.oai ?? '', '--metadata-prefix', prefix, '--out', out],
    ...(since === undefined ? [] : ['--from', since]),
    ...pass('set'),
    ...pass('rate'),
    ...pass('retries'),
    ...pass('timeout'),
    ...(values.quiet ? ['--quiet'] : []),
  ];
  const parsed = parseOaiCommandLine(argv, USER_AGENT.replace('SRU harvester', 'updater'));
  if (parsed === 'help') throw new UsageError('--help');
  return parsed;
}

function parse(argv: readonly string[]): Values | number {
  try {
    const { values } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: false });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (values.oai === undefined) throw new UsageError('--oai: the repository to harvest');
    if (values.strict && values['skip-validation'])
      throw new UsageError('--strict needs the validation that --skip-validation leaves out');
    pacingFlags(values);
    if (values.pid !== undefined) {
      numberFlag('pid', values.pid, 0, isPid, 'a process id');
      // Asked before the harvest: a pid that names no server to tell is the operator's slip, and
      // the run would otherwise apply a version nobody reloads.
      const why = signalable(Number(values.pid));
      if (why !== undefined) throw new UsageError(`--pid: ${values.pid} cannot be told (${why})`);
    }
    numberFlag('overlap', values.overlap, 0, (n) => n >= 0, 'seconds, 0 or more');
    return values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
}

const isPid = (n: number) => Number.isInteger(n) && n > 0;

/** Why `pid` cannot be sent a signal (ESRCH: no such process; EPERM: not ours), or undefined. */
function signalable(pid: number): string | undefined {
  try {
    process.kill(pid, 0);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
}

/** Tells the server `pid` to reload; whether it was told. */
function tell(pid: number): boolean {
  try {
    process.kill(pid, 'SIGHUP');
    process.stdout.write(`reload\tSIGHUP sent to the server, pid ${pid}\n`);
    return true;
  } catch (error) {
    process.stderr.write(
      `update done, but the server was not told: SIGHUP to pid ${pid} failed (${(error as NodeJS.ErrnoException).code}): the version goes live at its next start or reload\n`,
    );
    return false;
  }
}

export async function main(argv: readonly string[]): Promise<number> {
  const values = parse(argv);
  if (typeof values === 'number') return values;
  const progress = new Progress('update', progressMode(values.quiet));
  try {
    const config = loadConfig();
    const pointer = snapshotPointer(config.dataset, config.baseIri);
    const overlap = Number(values.overlap ?? 3600);
    const since = values.from ?? (pointer && datestamp(Math.max(0, pointer.time - overlap)));
    if (since === undefined)
      throw new ConfigError(
        'DATASET',
        `${config.dataset} names no version time (no snapshot, or one written without a change log, HISTORY_DIR): load in full first, or give --from`,
      );
    const harvest = harvestOf(values, since);
    const out = process.stdout;
    out.write(
      `update\t${harvest.url}\t${harvest.metadataPrefix} from ${since}` +
        (pointer ? `\t(version ${pointer.version} at ${datestamp(pointer.time)})\n` : '\n'),
    );
    const harvested = await harvestOai(harvest, (page) =>
      progress.report('fetching', page.harvested, page.completeListSize, 'records'),
    );
    progress.end();
    out.write(oaiSummary(harvested));
    if (harvested.records + harvested.deleted === 0) {
      out.write(`nothing changed: the harvest since ${since} is empty; no version written\n`);
      return 0;
    }
    const validate = !values['skip-validation'];
    const applied = await applyUpdate(
      [harvested.out],
      config,
      { baseIri: config.baseIri, validate, onProgress: progress.report },
      {
        progress,
        ...(config.store.kind === 'remote' ? { via: remoteVia(undefined, undefined) } : {}),
        refusal: (report, unchanged) =>
          values.strict && report.defective > 0
            ? `update refused (--strict), ${unchanged}: ${report.defective} institutions violate the shapes`
            : undefined,
      },
    );
    if (applied.committed === undefined) return applied.code;
    if (applied.committed.unchanged) {
      out.write(
        `nothing changed: the harvest holds the version ${applied.committed.version} again\n`,
      );
      return 0;
    }
    return values.pid === undefined || tell(Number(values.pid)) ? 0 : 1;
  } catch (error) {
    progress.end(false);
    const harvest = error instanceof OaiError || error instanceof SruError;
    const why = harvest ? `the harvest failed: ${error.message}` : failure(error);
    process.stderr.write(`update failed, snapshot unchanged: ${why}\n`);
    return 1;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => (process.exitCode = code));
}
