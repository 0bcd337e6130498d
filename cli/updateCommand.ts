// `npm run load -- --update FILE…`: the records of FILE applied over the current version
// (src/load/update/): the update's own report, then the outcome's line, as a load prints them.
import type { Config } from '../src/config/config';
import type { Committed } from '../src/load/commit/commitVersion';
import type { LoadOptions, LoadReport } from '../src/load/loadSources';
import { prepareUpdate } from '../src/load/update/applyUpdate';
import { commitUpdate } from '../src/load/update/commitUpdate';
import { crashAt, outcomeOf, printReport } from './loadCommand';
import type { Progress } from './progress';

export interface UpdateHooks {
  readonly progress: Progress;
  /** Why the update's report refuses it (`--strict`), if it does. */
  readonly refusal: (report: LoadReport, unchanged: string) => string | undefined;
  readonly now?: Date;
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
  if (config.store.kind === 'remote') {
    process.stderr.write('--update writes the embedded store only (STORE=embedded)\n');
    return { code: 2 };
  }
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
    const at = crashAt(process.env.ISIL_LD_CRASH_AT);
    const committed = await commitUpdate(update, config, {
      ...(at ? { at } : {}),
      ...(hooks.now ? { now: hooks.now } : {}),
    });
    const { merged, base } = update;
    const applied =
      `update over version ${base.trailer.version}: ${report.institutions} institutions and ${report.withdrawn} withdrawn in it, ` +
      `${update.deletions} deletions, ${merged.dropped.size} institutions of the base replaced or removed; `;
    printReport(report, applied + outcomeOf(config.dataset, committed));
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
