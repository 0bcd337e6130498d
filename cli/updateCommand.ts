// `npm run load -- --update FILE…`: the records of FILE applied over the current version
// (src/update/): the update's own report, then the outcome's line, as a load prints them.
// With STORE=remote the version goes into the remote store (cli/remoteUpdate.ts).
import type { Config } from '../src/config/config';
import type { Committed } from '../src/load/commit/commitVersion';
import type { LoadOptions, LoadReport } from '../src/load/loadSources';
import { prepareUpdate, type PreparedUpdate } from '../src/update/applyUpdate';
import { commitUpdate } from '../src/update/commitUpdate';
import { crashAt, outcomeOf, printReport } from './loadCommand';
import type { Progress } from './progress';
import type { RemoteTarget } from './remote';
import { updateRemote } from './remoteUpdate';

export interface UpdateHooks {
  readonly progress: Progress;
  /** Why the update's report refuses it (`--strict`), if it does. */
  readonly refusal: (report: LoadReport, unchanged: string) => string | undefined;
  readonly now?: Date;
  /** With STORE=remote: the way into the store (cli/remoteCommand.ts, remoteVia). */
  readonly via?: RemoteTarget['via'];
}

/** What the update was, for the outcome's line. */
function appliedOf(update: PreparedUpdate): string {
  const { merged, base, loaded } = update;
  const { report } = loaded;
  return (
    `update over version ${base.trailer.version}: ${report.institutions} institutions and ${report.withdrawn} withdrawn in it, ` +
    `${update.deletions} deletions, ${merged.dropped.size} institutions of the base replaced or removed; `
  );
}

/** Writes the update into the remote store; its outcome's line. */
async function intoRemote(
  update: PreparedUpdate,
  config: Config,
  via: RemoteTarget['via'],
  sources: readonly string[],
  now: Date | undefined,
): Promise<string> {
  const { store } = config;
  if (store.kind !== 'remote') throw new Error('not a remote store');
  if (update.merged.version === update.base.trailer.version)
    return `version ${update.merged.version} again: the remote store and ${config.dataset} unchanged`;
  const target = { endpoint: store.endpoint, user: store.user, password: store.password, via };
  const written = await updateRemote(update, config, target, sources, now);
  const { history } = written;
  const events = history?.step ? `, ${history.changes.length} events` : '';
  return written.unchanged
    ? `version ${written.version} is in ${store.endpoint} already: marked current${events}; snapshot ${config.dataset} replaced`
    : `wrote version ${written.version} into ${store.endpoint}: ${written.quads} quads of the changed descriptions sent, the others copied in the store${events}; transfer ${written.transferMs} ms; marked current (replicas switch on their next reload); snapshot ${config.dataset} (${written.bytes} bytes, ${written.triples} quads)`;
}

/**
 * Applies the update: its exit code, and what went live (none when refused). A refusal is thrown,
 * as a load's (cli/loadCommand.ts prints it).
 */
export async function applyUpdate(
  sources: readonly string[],
  config: Config,
  options: LoadOptions,
  hooks: UpdateHooks,
): Promise<{ code: number; committed?: Committed }> {
  if (config.store.kind === 'remote' && hooks.via === undefined)
    throw new Error('an update of a remote store needs its way in');
  const update = await prepareUpdate(sources, config.dataset, options);
  const { report } = update.loaded;
  hooks.progress.end();
  try {
    const refused = hooks.refusal(report, 'snapshot unchanged');
    if (refused !== undefined) {
      printReport(report, 'no snapshot written');
      process.stderr.write(`${refused}\n`);
      return { code: 1 };
    }
    if (hooks.via) {
      const outcome = await intoRemote(update, config, hooks.via, sources, hooks.now);
      printReport(report, appliedOf(update) + outcome);
      return { code: 0 };
    }
    const at = crashAt(process.env.ISIL_LD_CRASH_AT);
    const committed = await commitUpdate(update, config, {
      ...(at ? { at } : {}),
      ...(hooks.now ? { now: hooks.now } : {}),
    });
    printReport(report, appliedOf(update) + outcomeOf(config.dataset, committed));
    return { code: 0, committed };
  } finally {
    update.loaded.canonical?.snapshot?.discard();
    update.loaded.dataset.free();
  }
}

/** `npm run load -- --update`: the update's exit code. */
export async function updateCommand(...args: Parameters<typeof applyUpdate>): Promise<number> {
  return (await applyUpdate(...args)).code;
}
