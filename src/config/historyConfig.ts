// The history's settings (docs/history.md): where the embedded store's change log lives, how many
// versions it keeps, what the OAI-PMH provider names as its administrator and the key its
// resumption tokens are signed with.
import fs from 'node:fs';
import path from 'node:path';
import { repositoryIdentifier } from '../oai/identifiers';
import { TOKEN_KEY_MIN_BYTES, TokenKey } from '../oai/token';

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
  /**
   * The key of the OAI-PMH resumption tokens (OAI_TOKEN_KEY): replicas given the same one take
   * each other's tokens; unset, one of this process's own, which dies with it.
   */
  readonly oaiTokenKey: TokenKey;
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
    oaiTokenKey: oaiTokenKey(env, fail),
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

/**
 * OAI_TOKEN_KEY: a secret of at least 32 bytes (`openssl rand -base64 32`). Its value is never
 * said, not even in the error that refuses it: only its length.
 */
function oaiTokenKey(env: Env, fail: Fail): TokenKey {
  const value = env.OAI_TOKEN_KEY;
  if (value === undefined || value === '') return TokenKey.random();
  const bytes = Buffer.byteLength(value);
  if (bytes < TOKEN_KEY_MIN_BYTES)
    throw fail(
      'OAI_TOKEN_KEY',
      `expected a secret of at least ${TOKEN_KEY_MIN_BYTES} bytes (openssl rand -base64 32 makes one), got ${bytes}`,
    );
  return new TokenKey(value);
}

function isFolder(file: string): boolean {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}
