// Command line: `npm run load -- [--format F] [--strict] [--allow-empty] <files or folders…>` loads
// the sources, validates them, and replaces the snapshot at DATASET, or leaves it as it was when
// any file is broken, the result holds no institution (unless --allow-empty), or, with --strict,
// any institution violates the shapes. Every refusal is one line on stderr, never a stack trace.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../src/config/config';
import {
  FORMAT_NAMES,
  LoadError,
  loadSources,
  NoInstitutionError,
  type LoadReport,
  type OnPhase,
  type SourceFormat,
  type WrittenSnapshot,
} from '../src/load/loadSources';
import { ShapesError } from '../src/load/describe/shapes';
import { HistoryError } from '../src/history/log';
import {
  commitVersion,
  LiveVersionError,
  type CommitStep,
  type Committed,
} from '../src/load/commit/commitVersion';
import { Progress, progressMode } from './progress';
import { intoRemote, remoteVia } from './remoteCommand';
import { servedVersion } from './servedVersion';
import { updateCommand } from './updateCommand';

const USAGE = `usage: npm run load -- [--format ${FORMAT_NAMES.join('|')}] [--strict | --skip-validation] [--allow-empty] [--workers N] [--reset-history | --update] [--quiet] <file or folder>…
Reads the sources (format by extension unless --format is given), validates every published
institution against the shapes, and replaces the snapshot at $DATASET with what they hold.
--strict refuses to write the snapshot when any institution violates the shapes;
--skip-validation leaves the shapes out (SHACL costs about 0.2 ms of CPU an institution);
--allow-empty writes a snapshot that holds no institution (refused otherwise: a server would not
serve it);
--workers N makes descriptions canonical and validates them in N threads beside the loading one
(0: in the loading one; default and most: one a core);
--reset-history starts the change log anew (the log in place is renamed beside it): the past's
mementos answer 404 and its feed pages 410 (docs/history.md);
--update applies the records of the files (a harvest: records, and <?oai-deleted?> lines) over
the current version instead, keeping every other institution as it is (docs/data.md).
Limits (input size, literal length): docs/loading.md.
With STORE=remote and SPARQL_ENDPOINT set, writes a new version into that store instead, beside
the live one, and marks it current (docs/scaling.md): through the Graph Store Protocol at
--graph-store URL (or $GRAPH_STORE_ENDPOINT), or through Virtuoso's bulk loader from the folder
--virtuoso-bulk DIR (or $VIRTUOSO_BULK_DIR; isql at $VIRTUOSO_ISQL as $VIRTUOSO_USER with
$VIRTUOSO_PASSWORD or $VIRTUOSO_PASSWORD_FILE). A snapshot file is streamed as it is.
Progress goes to stderr: a bar on a terminal, a line every 10 s otherwise; --quiet: none.`;

/**
 * Why a load failed, in one line. The errors a load is known to end with say what is wrong in
 * their message (a stack would say only where the loader noticed); any other error is a defect
 * of the loader, and keeps its stack for the report.
 */
export function failure(error: unknown, remote = false): string {
  if (error instanceof NoInstitutionError)
    return `${error.message}; --allow-empty writes such a snapshot all the same`;
  if (
    error instanceof LoadError ||
    error instanceof ConfigError ||
    error instanceof ShapesError ||
    error instanceof HistoryError
  )
    return error.message;
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  // The file system (a full disk, a folder that cannot be written) and V8's limits.
  if (code !== undefined)
    return error.message.includes(code) ? error.message : `${error.message} (${code})`;
  if (error instanceof RangeError) return `${error.message} (a limit of the JavaScript engine)`;
  // Oxigraph is WebAssembly: a panic, or memory it cannot grow past 4 GiB, ends here.
  if (error instanceof WebAssembly.RuntimeError)
    return remote
      ? `the loader's store failed: ${error.message} (out of memory? a larger dataset goes in as a snapshot: docs/scaling.md)`
      : `the embedded store failed: ${error.message} (out of memory? its WebAssembly memory ends at 4 GiB, about 13 million triples: STORE=remote loads larger datasets into a SPARQL server, docs/scaling.md)`;
  return error.stack ?? error.message;
}

/** What the load made of the report's data, for its last line. */
function snapshotOf(target: string, written: WrittenSnapshot): string {
  return `snapshot ${target} (${written.bytes} bytes, version ${written.version})`;
}

/** The snapshot written and what the change log gained, for the report's last line. */
export function outcomeOf(target: string, committed: Committed): string {
  const snapshot = committed.written
    ? snapshotOf(target, committed.written)
    : `snapshot ${target} unchanged (version ${committed.version})`;
  if (committed.changes === undefined) return `${snapshot}; no change log (HISTORY_DIR='')`;
  if (committed.unchanged) return `${snapshot}; the change log ends with this version already`;
  const kinds = new Map<string, number>();
  for (const c of committed.changes) kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1);
  const counts = ['created', 'updated', 'withdrawn', 'deleted']
    .map((kind) => `${kinds.get(kind) ?? 0} ${kind}`)
    .join(', ');
  const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000', '');
  const when = iso(committed.time ?? 0);
  const dropped = committed.dropped > 0 ? `; ${committed.dropped} old versions dropped` : '';
  // A log's first version: the one served before (kept as it was served), or a history anew.
  const first = committed.adopted
    ? ' (the time the version was served at before)'
    : committed.setAside
      ? ` (the history starts anew, --reset-history: the log it replaces is kept as ${committed.setAside}; the past's mementos answer 404 and its feed pages 410)`
      : committed.kept
        ? ` (after version ${committed.kept.version}, served before without a change log and logged first, at ${iso(committed.kept.time)}, as it was served)`
        : committed.restarted
          ? ` (the history starts anew: version ${committed.restarted}, served before without a change log, is not in it, nor its mementos and feed pages)`
          : '';
  return `${snapshot}; change log: version at ${when}${first}, ${counts}${dropped}`;
}

/**
 * A test's hook (ISIL_LD_CRASH_AT=append|before-rename|after-rename|retention): the loader is
 * killed at that step of going live, as a crash or `kill -9` would stop it.
 */
export function crashAt(step: string | undefined): ((at: CommitStep) => void) | undefined {
  if (!step) return undefined;
  return (at) => {
    if (at === step) process.kill(process.pid, 'SIGKILL');
  };
}

/** The report, one item a line, tab-separated: the first column says what the line is. */
export function printReport(report: LoadReport, outcome: string): void {
  const out = process.stdout;
  for (const f of report.files) {
    const records = f.records === undefined ? '' : `${f.records} records, `;
    out.write(`file\t${f.file}\t${f.format}\t${records}${f.triples} triples\n`);
  }
  for (const s of report.skippedFiles) out.write(`skipped-file\t${s.file}\t${s.reason}\n`);
  if (report.rewritten > 0) {
    out.write(
      `rewritten\t${report.rewritten} triples with http:// base IRIs served under the configured base\n`,
    );
  }
  const notPublished = new Map<string, number>();
  for (const s of report.skipped) {
    if (s.kind === 'malformed') out.write(`malformed\t${s.origin}\t${s.id ?? ''}\t${s.reason}\n`);
    else notPublished.set(s.reason, (notPublished.get(s.reason) ?? 0) + 1);
  }
  for (const [reason, count] of notPublished) out.write(`skipped\t${count}\t${reason}\n`);
  for (const c of report.conflicts) {
    const lost = c.origins.filter((origin) => origin !== c.winner);
    out.write(`conflict\t${c.isil}\twon ${c.winner}\tlost ${lost.join(', ')}\n`);
  }
  for (const d of report.defects) {
    out.write(`defect\t${d.defect}\t${d.count}\n`);
    for (const e of d.examples)
      out.write(`defect-example\t${d.defect}\t${e.focus}\t${e.message}\n`);
  }
  for (const w of report.warnings) out.write(`warning\t${w.kind}\t${w.subject}\t${w.message}\n`);
  const links = report.links;
  if (links)
    out.write(
      `links\t${links.links} owl:sameAs to ${links.institutions} institutions, made ${links.modified.slice(0, 10)}` +
        (links.unknown !== undefined
          ? `; left out: ${links.unknown} ISILs not in the data, ${links.withdrawn} withdrawn\n`
          : '\n'),
    );
  if (report.positions !== undefined)
    out.write(`positions\t${report.positions} institutions with a position from Wikidata\n`);
  const malformed = report.skipped.filter((s) => s.kind === 'malformed').length;
  const validation = report.validated
    ? `${report.defective} institutions with defects`
    : 'not validated';
  // The outcome names the snapshot's version, as a server that loads it shows it (the report's).
  out.write(
    `loaded ${report.files.length} files: ${report.institutions} institutions, ` +
      `${report.triples} triples, ${report.warnings.length} warnings; ` +
      `${report.withdrawn} withdrawn, ${report.skipped.length - malformed} skipped, ` +
      `${malformed} malformed, ${report.conflicts.length} conflicts, ${validation}; ` +
      `${outcome}; peak memory ${Math.round(process.resourceUsage().maxRSS / 1024)} MB\n`,
  );
}

const OPTIONS = {
  format: { type: 'string' },
  strict: { type: 'boolean' },
  'skip-validation': { type: 'boolean' },
  'allow-empty': { type: 'boolean' },
  workers: { type: 'string' },
  'graph-store': { type: 'string' },
  'virtuoso-bulk': { type: 'string' },
  quiet: { type: 'boolean' },
  'reset-history': { type: 'boolean' },
  update: { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

type Args = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;

/** The command line, checked: its arguments, or the exit code when it asks for none or is wrong. */
function parseCommand(
  argv: readonly string[],
): number | { args: Args; format: SourceFormat | undefined; workers: number | undefined } {
  let args: Args;
  try {
    args = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (args.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const format = args.values.format as SourceFormat | undefined;
  if (format !== undefined && !FORMAT_NAMES.includes(format)) {
    process.stderr.write(
      `--format: expected one of ${FORMAT_NAMES.join(', ')}, got ${JSON.stringify(format)}\n`,
    );
    return 2;
  }
  if (args.values.strict && args.values['skip-validation']) {
    process.stderr.write(`--strict needs the validation that --skip-validation leaves out\n`);
    return 2;
  }
  if (args.values.update && args.values['reset-history']) {
    process.stderr.write(`--update applies over the history that --reset-history starts anew\n`);
    return 2;
  }
  const given = args.values.workers;
  if (given !== undefined && !/^\d+$/.test(given)) {
    process.stderr.write(
      `--workers: expected a whole number, 0 or more, got ${JSON.stringify(given)}\n`,
    );
    return 2;
  }
  const workers = given === undefined ? undefined : Number(given);
  // Each thread holds its batches and the shapes: more than the cores buy nothing but memory.
  if (workers !== undefined && workers > os.availableParallelism()) {
    process.stderr.write(
      `--workers: at most ${os.availableParallelism()} here (this machine's cores), got ${given}\n`,
    );
    return 2;
  }
  if (args.positionals.length === 0) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  return { args, format, workers };
}

/** What a caller of `main` may watch besides the report (test/bench/loadPhases.ts). */
export interface LoadHooks {
  readonly onPhase?: OnPhase;
  /**
   * The process ends after the load (the command line itself): the written store goes with it
   * instead of being freed, which takes time (docs/benchmark.md, "a store freed") and gives
   * nothing back (WebAssembly memory does not shrink).
   */
  readonly exits?: boolean;
}

/** The way into a remote store that the flags, else the environment, name. */
const viaOf = (values: { 'graph-store'?: string; 'virtuoso-bulk'?: string }) =>
  remoteVia(values['graph-store'], values['virtuoso-bulk']);

export async function main(argv: readonly string[], hooks: LoadHooks = {}): Promise<number> {
  const command = parseCommand(argv);
  if (typeof command === 'number') return command;
  const { args, format, workers } = command;
  const progress = new Progress('load', progressMode(args.values.quiet));
  let remote = false;
  const refusal = (report: LoadReport, unchanged: string): string | undefined =>
    args.values.strict && report.defective > 0
      ? `load refused (--strict), ${unchanged}: ${report.defective} institutions violate the shapes (the defect lines above say how)`
      : undefined;
  try {
    const config = loadConfig();
    const options = {
      baseIri: config.baseIri,
      validate: !args.values['skip-validation'],
      requireInstitutions: !args.values['allow-empty'],
      onProgress: progress.report,
      ...(hooks.onPhase ? { onPhase: hooks.onPhase } : {}),
      // The loading thread keeps a core busy: a thread for it too adds memory, no speed.
      workers: workers ?? os.availableParallelism() - 1,
      ...(format ? { format } : {}),
    };
    remote = config.store.kind === 'remote';
    const via = remote ? viaOf(args.values) : undefined;
    const updating = { progress, refusal, ...(via ? { via } : {}) };
    if (args.values.update) return await updateCommand(args.positionals, config, options, updating);
    if (config.store.kind === 'remote' && via) {
      return await intoRemote(
        args.positionals,
        config,
        via,
        options,
        (report) => {
          const refused = refusal(report, 'the store unchanged');
          if (refused === undefined) return;
          progress.end();
          printReport(report, 'nothing written');
          throw new Refused(refused);
        },
        (report) => {
          progress.end();
          if (report)
            printReport(report, 'written into the remote store (the next line says where)');
        },
      );
    }
    // The snapshot's pieces go to the file beside DATASET as they are made (docs/loading.md).
    const loaded = await loadSources(args.positionals, { ...options, snapshot: config.dataset });
    const { dataset, report } = loaded;
    progress.end();
    const refused = refusal(report, 'snapshot unchanged');
    if (refused !== undefined) {
      loaded.canonical?.snapshot?.discard();
      dataset.free();
      printReport(report, 'no snapshot written');
      process.stderr.write(`${refused}\n`);
      return 1;
    }
    let committed: Committed;
    try {
      committed = await commitVersion(loaded, config, {
        served: () => servedVersion(config, dataset),
        resetHistory: args.values['reset-history'] === true,
        at: crashAt(process.env.ISIL_LD_CRASH_AT),
        ...(hooks.onPhase ? { onPhase: hooks.onPhase } : {}),
      });
    } catch (error) {
      dataset.free();
      throw error;
    }
    if (!hooks.exits) dataset.free();
    hooks.onPhase?.('end');
    printReport(report, outcomeOf(config.dataset, committed));
    return 0;
  } catch (error) {
    progress.end(false);
    process.stderr.write(`${failed(error, remote)}\n`);
    return 1;
  }
}

/** What a failed load says: what happened to the snapshot, and why. */
function failed(error: unknown, remote: boolean): string {
  if (error instanceof Refused) return error.message;
  // Failed after the rename: the new version is the one in place.
  if (error instanceof LiveVersionError)
    return `load incomplete, snapshot replaced: ${error.message}`;
  const unchanged = remote ? 'the live version unchanged' : 'snapshot unchanged';
  return `load failed, ${unchanged}: ${failure(error, remote)}`;
}

/** A load --strict refused: its message is the whole line. */
class Refused extends Error {}

if (require.main === module) {
  main(process.argv.slice(2), { exits: true }).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`load failed, snapshot unchanged: ${failure(error)}\n`);
      process.exitCode = 1;
    },
  );
}
