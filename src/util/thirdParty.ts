// The third-party files the project reads and never commits (data/sources.json): where each lives
// once fetched, whether it is there intact, and the one way to get them, from a folder holding
// them by name (THIRD_PARTY_DIR) or from each file's origin, checked against its SHA-256.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './paths';

/** One file of the manifest: its name (a relative path), its origin, its digest, its licence. */
export interface ThirdPartyFile {
  /** Its path below THIRD_PARTY_DIR and below data/third-party/ (`data/real/….tsv`). */
  readonly name: string;
  readonly title: string;
  /** The public repository it comes from, the path in it and the commit. */
  readonly repository: string;
  readonly path: string;
  readonly commit: string;
  /** Where `npm run fetch-data` takes it from when no folder is given. */
  readonly url: string;
  readonly sha256: string;
  readonly size: number;
  readonly licence: string;
}

export const MANIFEST = path.join(PROJECT_ROOT, 'data', 'sources.json');
/** The project's own ignored folder the files are fetched into, each at its name. */
export const THIRD_PARTY_FOLDER = path.join(PROJECT_ROOT, 'data', 'third-party');
/** The command that fetches them, as messages name it. */
export const FETCH_COMMAND = 'npm run fetch-data';
/** The setting naming a folder that holds the files by name (CI: the shared folder beside the clone). */
export const THIRD_PARTY_DIR = 'THIRD_PARTY_DIR';
/** How long the downloads of one call may take together. */
const ORIGIN_TIMEOUT_MS = 120_000;

let files: ReadonlyMap<string, ThirdPartyFile> | undefined;

/** The manifest's files by name, read once. */
export function thirdPartyFiles(): ReadonlyMap<string, ThirdPartyFile> {
  if (!files) {
    const read = JSON.parse(fs.readFileSync(MANIFEST, 'utf8')) as { files: ThirdPartyFile[] };
    files = new Map(read.files.map((file) => [file.name, Object.freeze(file)]));
  }
  return files;
}

/** The manifest's entry for `name`; a name it does not list is a programming error. */
export function thirdPartyFile(name: string): ThirdPartyFile {
  const file = thirdPartyFiles().get(name);
  if (!file) throw new Error(`${name} is not a third-party file of ${MANIFEST}`);
  return file;
}

/** Where `name` is once fetched (whether or not it is there now). */
export function thirdPartyPath(name: string): string {
  return path.join(THIRD_PARTY_FOLDER, thirdPartyFile(name).name);
}

const sha256 = (bytes: Buffer) => crypto.createHash('sha256').update(bytes).digest('hex');

/** Whether `name` is in data/third-party/ (or `folder`) with its size and SHA-256 (a file edited by hand is not). */
export function thirdPartyIntact(name: string, folder = THIRD_PARTY_FOLDER): boolean {
  const file = thirdPartyFile(name);
  const at = path.join(folder, file.name);
  try {
    if (fs.statSync(at).size !== file.size) return false;
    return sha256(fs.readFileSync(at)) === file.sha256;
  } catch {
    return false;
  }
}

/** THIRD_PARTY_DIR, resolved; undefined when not set. */
export function thirdPartyDir(
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  const dir = env[THIRD_PARTY_DIR]?.trim();
  return dir ? path.resolve(dir) : undefined;
}

/** What became of one file: there already, fetched (from where), or refused and why (one line). */
export type Fetched =
  | { readonly name: string; readonly outcome: 'present' }
  | { readonly name: string; readonly outcome: 'fetched'; readonly from: string }
  | { readonly name: string; readonly outcome: 'failed'; readonly reason: string };

export interface FetchOptions {
  /** The files to fetch; all of the manifest's when not given. */
  readonly names?: readonly string[];
  /** A folder holding the files by name; when not given, each file's origin URL. */
  readonly from?: string;
  /** How long the downloads may take together: past it, the files not fetched yet fail. */
  readonly timeoutMs?: number;
  /** Where to put them: data/third-party/ unless a test says otherwise. */
  readonly into?: string;
}

/**
 * Puts each file into data/third-party/ unless it is there intact: read from `from` or downloaded,
 * checked against its size and SHA-256, written to a temporary file and renamed into place, so
 * that a mismatch, a missing file or a broken download leaves nothing at the file's name.
 */
export async function fetchThirdParty(options: FetchOptions = {}): Promise<Fetched[]> {
  const names = options.names ?? [...thirdPartyFiles().keys()];
  const deadline = AbortSignal.timeout(options.timeoutMs ?? ORIGIN_TIMEOUT_MS);
  const outcomes: Fetched[] = [];
  for (const name of names) outcomes.push(await fetchOne(thirdPartyFile(name), options, deadline));
  return outcomes;
}

async function fetchOne(
  file: ThirdPartyFile,
  options: FetchOptions,
  deadline: AbortSignal,
): Promise<Fetched> {
  const { name } = file;
  const into = options.into ?? THIRD_PARTY_FOLDER;
  if (thirdPartyIntact(name, into)) return { name, outcome: 'present' };
  // A copy there that is not the manifest's is said too: a failure names both.
  const changed = fs.existsSync(path.join(into, name))
    ? `${path.join(into, name)} is not the file of the manifest, and `
    : '';
  const from = options.from ? path.join(options.from, name) : file.url;
  let bytes: Buffer;
  try {
    bytes = options.from ? await fs.promises.readFile(from) : await download(file.url, deadline);
  } catch (error) {
    return { name, outcome: 'failed', reason: `${changed}${from}: ${reasonOf(error)}` };
  }
  const digest = sha256(bytes);
  if (bytes.length !== file.size || digest !== file.sha256)
    return {
      name,
      outcome: 'failed',
      reason: `${changed}${from}: not the file of the manifest (sha256 ${digest}, ${bytes.length} bytes; expected ${file.sha256}, ${file.size} bytes): refused`,
    };
  const target = path.join(into, name);
  const partial = `${target}.tmp-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  try {
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    await fs.promises.writeFile(partial, bytes, { mode: 0o644 });
    await fs.promises.rename(partial, target);
  } catch (error) {
    await fs.promises.rm(partial, { force: true });
    return { name, outcome: 'failed', reason: `${target}: ${reasonOf(error)}` };
  }
  return { name, outcome: 'fetched', from };
}

async function download(url: string, signal: AbortSignal): Promise<Buffer> {
  const response = await fetch(url, { signal, redirect: 'follow' });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

/** An error as one line: a missing file says so, a failed download says why. */
function reasonOf(error: unknown): string {
  const err = error as NodeJS.ErrnoException & { cause?: { code?: string; message?: string } };
  if (err.code === 'ENOENT') return 'no such file';
  if (err.name === 'TimeoutError') return 'timed out';
  const cause = err.cause?.code ?? err.cause?.message;
  return `${err.message}${cause ? ` (${cause})` : ''}`.replace(/\s+/g, ' ');
}
