// Which files a load reads: the sources given, folders walked for known extensions, each file's
// format (readers.ts), and everything that cannot be read refused before any file is opened.
import fs from 'node:fs';
import path from 'node:path';
import { fileHead } from '../../util/utf8';
import { MAX_INPUT_BYTES } from '../limits';
import { LoadError } from '../loadError';
import { detect, FORMAT_NAMES, knownExtension, type SourceFormat } from './readers';
import { mib } from '../reading';
import { MAX_SNAPSHOT_BYTES, SNAPSHOT_START } from '../snapshot/snapshot';

/** Why a path given or found cannot be read, from the error `fs.statSync` threw. */
function unreadable(entry: string, error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT': {
      const link = fs.lstatSync(entry, { throwIfNoEntry: false });
      return link?.isSymbolicLink()
        ? `a symbolic link to ${fs.readlinkSync(entry)}, which does not exist`
        : 'no such file or folder';
    }
    case 'ELOOP':
      return 'a symbolic link in a loop (it leads back to itself)';
    case 'EACCES':
      return 'permission denied';
    case 'ENOTDIR':
      return 'a part of the path is not a folder';
    default:
      return error.message;
  }
}

/** What an operator whose data outgrows the embedded store does instead (docs/scaling.md). */
export const BEYOND_EMBEDDED =
  'a larger dataset goes into a SPARQL server (STORE=remote, docs/scaling.md), as a snapshot the loader streams';

/** A file of a folder given that the load does not read, and why. */
export interface SkippedFile {
  readonly file: string;
  readonly reason: string;
}

/** Why a file found in a folder is not read. */
const notAFormat = (extension: string): string =>
  `${extension ? `unknown extension "${extension}"` : 'no extension'}: not a format the loader reads`;

/**
 * The files to read: given files as they are, folders walked in name order for known extensions
 * (the other files found there are `skipped`, named with why; so is one no reader of its extension
 * takes). Everything that cannot be read is refused before any file is opened: opening a FIFO
 * waits for a writer that may never come, and a device may never end. So are sources larger
 * together than MAX_INPUT_BYTES (snapshots: MAX_SNAPSHOT_BYTES), told from their sizes.
 */
export function expandSources(
  sources: readonly string[],
  format?: SourceFormat,
): { files: { file: string; format: SourceFormat }[]; skipped: SkippedFile[] } {
  const files: { file: string; format: SourceFormat }[] = [];
  const skipped: SkippedFile[] = [];
  /** The bytes of the snapshots, and of the other sources, so far. */
  let snapshots = 0;
  let others = 0;
  const visit = (entry: string, given: boolean) => {
    const refuse = (reason: string) => new LoadError(entry, undefined, undefined, reason);
    const extension = path.extname(entry).toLowerCase();
    const known = format !== undefined || knownExtension(extension);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(entry);
    } catch (error) {
      // In a folder, what the loader would not read anyway is no reason to refuse.
      if (given || known) throw refuse(unreadable(entry, error as Error));
      skipped.push({ file: entry, reason: notAFormat(extension) });
      return;
    }
    if (stat.isDirectory()) {
      let names: string[];
      try {
        names = fs.readdirSync(entry).sort();
      } catch (error) {
        throw refuse(unreadable(entry, error as Error));
      }
      for (const name of names) visit(path.join(entry, name), false);
      return;
    }
    if (!known) {
      if (given) throw refuse(`unknown extension; use --format (${FORMAT_NAMES.join(', ')})`);
      skipped.push({ file: entry, reason: notAFormat(extension) });
      return;
    }
    if (stat.isFIFO()) throw refuse('a FIFO (named pipe), not a file');
    if (stat.isSocket()) throw refuse('a socket, not a file');
    if (!stat.isFile()) throw refuse('not a regular file (a device?)');
    if (stat.size === 0) throw refuse('the file is empty');
    try {
      fs.accessSync(entry, fs.constants.R_OK);
    } catch {
      throw refuse('permission denied');
    }
    let detected = format;
    try {
      detected ??= detect(entry, extension);
    } catch (error) {
      if (given || !(error instanceof LoadError)) throw error;
      skipped.push({ file: entry, reason: error.reason });
      return;
    }
    const snapshot = detected === 'nq' && fileHead(entry, SNAPSHOT_START.length) === SNAPSHOT_START;
    const [limit, name] = snapshot
      ? [MAX_SNAPSHOT_BYTES, 'MAX_SNAPSHOT_BYTES']
      : [MAX_INPUT_BYTES, 'MAX_INPUT_BYTES'];
    const tooMuch = (what: string) =>
      refuse(
        `${what}, more than a load reads (${name}, ${mib(limit)}; docs/loading.md): ${BEYOND_EMBEDDED}`,
      );
    if (stat.size > limit) throw tooMuch(mib(stat.size));
    if (snapshot) snapshots += stat.size;
    else others += stat.size;
    if (others > MAX_INPUT_BYTES || others + snapshots > MAX_SNAPSHOT_BYTES)
      throw tooMuch(`the sources come to ${mib(others + snapshots)} with this file`);
    files.push({ file: entry, format: detected });
  };
  for (const source of sources) visit(source, true);
  return { files, skipped };
}
