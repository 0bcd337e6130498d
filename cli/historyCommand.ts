// Command line: `npm run generate -- --history V …` (cli/generate.ts), the synthetic history of
// cli/generateHistory.ts, checked, written with progress, and summed up in one line.
import path from 'node:path';
import { LOG_FILE } from '../src/history/log';
import { generateHistory } from './generateHistory';
import { Progress, progressMode } from './progress';

/** The bench's number of institutions: a history's default. */
export const HISTORY_COUNT = 17_000;

export interface HistoryArgs {
  count?: string;
  out?: string;
  seed?: string;
  base?: string;
  format?: string;
  quiet?: boolean;
  history?: string;
  change?: string;
  'history-dir'?: string;
  'sources-dir'?: string;
  next?: string;
}

/** The checked arguments, or what is wrong with them. */
function check(values: HistoryArgs):
  | string
  | {
      versions: number;
      change: number;
      count: number;
      seed: number;
      base: string;
      snapshot: string;
      historyDir: string;
    } {
  const versions = Number(values.history);
  const change = Number(values.change ?? 0.01);
  const count = Number(values.count ?? HISTORY_COUNT);
  const seed = Number(values.seed ?? 1);
  const base = (values.base ?? 'https://ld.zdb-services.de').replace(/\/+$/, '');
  const snapshot = values.out ?? process.env.DATASET;
  const dir = values['history-dir'] ?? process.env.HISTORY_DIR;
  if (!Number.isInteger(versions) || versions < 1 || versions > 10_000)
    return '--history: a whole number of versions from 1 to 10000';
  if (!(change >= 0 && change <= 1))
    return '--change: the share of institutions a version changes, from 0 to 1';
  if (!Number.isInteger(count) || count < 2 || count > 1_000_000)
    return '--count: a whole number from 2 to 1000000';
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    return '--seed: a whole number from 0 to 4294967295';
  if (!/^https?:\/\/[^\s<>"]+$/.test(base)) return '--base: an http(s) IRI';
  if (values.format !== undefined)
    return '--format: not with --history (it writes a snapshot and its log)';
  if (!snapshot) return "--out (or DATASET): the file of the last version's snapshot";
  if (dir === '') return 'HISTORY_DIR is empty (no log): give --history-dir';
  const historyDir = path.resolve(dir ?? path.dirname(path.resolve(snapshot)));
  return { versions, change, count, seed, base, snapshot: path.resolve(snapshot), historyDir };
}

/** Writes the history `values` ask for; returns the exit code. */
export function historyCommand(values: HistoryArgs, usage: string): number {
  const checked = check(values);
  if (typeof checked === 'string') {
    process.stderr.write(`${checked}\n${usage}\n`);
    return 2;
  }
  const started = Date.now();
  const progress = new Progress('generate', progressMode(values.quiet));
  let written;
  try {
    written = generateHistory({
      ...checked,
      ...(values['sources-dir'] ? { sourcesDir: path.resolve(values['sources-dir']) } : {}),
      ...(values.next ? { next: path.resolve(values.next) } : {}),
      onVersion: (done, of) => progress.report('writing', done, of, 'versions'),
    });
  } catch (error) {
    progress.end(false);
    process.stderr.write(`generate failed: ${(error as Error).message}\n`);
    return 1;
  }
  progress.end();
  const { kinds } = written;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stderr.write(
    `generated a history of ${written.versions} versions, seed ${checked.seed}, in ${seconds} s: ` +
      `${written.events} events (${kinds.created} created, ${kinds.updated} updated, ${kinds.withdrawn} withdrawn, ${kinds.deleted} deleted); ` +
      `change log ${path.join(checked.historyDir, LOG_FILE)} (${written.logBytes} bytes); ` +
      `snapshot ${checked.snapshot} (${written.snapshotBytes} bytes, version ${written.last.version} at ${new Date(written.last.time * 1000).toISOString().replace('.000', '')}, ` +
      `${written.institutions} institutions, ${written.withdrawn} withdrawn)` +
      (written.sourcesBytes > 0 ? `; sources ${written.sourcesBytes} bytes` : '') +
      '\n',
  );
  return 0;
}
