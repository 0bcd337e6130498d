// The history's settings (docs/history.md): where the embedded store's change log lives, how many
// versions it keeps, and what the OAI-PMH provider names as its administrator.
import fs from 'node:fs';
import path from 'node:path';
import { repositoryIdentifier } from './oai/identifiers';

type Env = Readonly<Record<string, string | undefined>>;
type Fail = (name: string, message: string) => Error;

export interface HistoryConfig {
  /**
   * Where the change log of the embedded store's versions lives (HISTORY_DIR): by default the
   * folder of DATASET; empty: no history is kept.
   */
  readonly historyDir: string;
  /** How many versions the change log keeps (HISTORY_KEEP_VERSIONS); 0: every one. */
  readonly historyKeepVersions: number;
  /** The `adminEmail` of the OAI-PMH provider's Identify (OAI_ADMIN_EMAIL). */
  readonly oaiAdminEmail: string;
}

export function historyConfig(
  env: Env,
  { dataset, baseIri }: { dataset: string; baseIri: string },
  integer: (env: Env, name: string, fallback: number, min: number, max: number) => number,
  fail: Fail,
): HistoryConfig {
  return {
    historyDir: historyDir(env, dataset, fail),
    historyKeepVersions: integer(env, 'HISTORY_KEEP_VERSIONS', 0, 0, 1_000_000),
    oaiAdminEmail: oaiAdminEmail(env, baseIri, fail),
  };
}

/** HISTORY_DIR: a folder (made when the loader first writes it), by default DATASET's; '' for none. */
function historyDir(env: Env, dataset: string, fail: Fail): string {
  if (env.HISTORY_DIR === '') return '';
  const dir = path.resolve(env.HISTORY_DIR || path.dirname(dataset));
  // DATASET's own folder is DATASET's to refuse (a path through a file): said for it, not here.
  if (!env.HISTORY_DIR) return dir;
  if (fs.existsSync(dir) && !isFolder(dir))
    throw fail(
      'HISTORY_DIR',
      `expected a folder for the change log, got the file ${JSON.stringify(dir)} (HISTORY_DIR='' keeps no history)`,
    );
  return dir;
}

/**
 * OAI_ADMIN_EMAIL: an address of the form OAI-PMH.xsd's `emailType` asks (`\S+@(\S+\.)+\S+`); by
 * default `webmaster@` the repository identifier (the host of BASE_IRI).
 */
function oaiAdminEmail(env: Env, baseIri: string, fail: Fail): string {
  const value = env.OAI_ADMIN_EMAIL || `webmaster@${repositoryIdentifier(baseIri)}`;
  if (!/^[^\s@]+@([^\s@.]+\.)+[^\s@.]+$/.test(value) || value.length > 254)
    throw fail(
      'OAI_ADMIN_EMAIL',
      `expected an e-mail address (name@host.domain), got ${JSON.stringify(value)}`,
    );
  return value;
}

function isFolder(file: string): boolean {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
