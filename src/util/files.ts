// Why a file an operator named cannot be read as one: the checks DATASET and SPARQL_USERS share,
// each answer a sentence that names the file and what is wrong with it.
import fs from 'node:fs';

/**
 * Why `file` cannot be read as `what` (a folder, a FIFO, a socket, a symbolic link in a loop or to
 * nothing, unreadable, or empty unless `empty` allows it), or undefined when it can.
 */
export function fileDefect(
  file: string,
  what: string,
  empty: 'refused' | 'allowed' = 'refused',
): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      // A dangling link is a file that is missing, and says where it points.
      let link: fs.Stats | undefined;
      try {
        link = fs.lstatSync(file, { throwIfNoEntry: false });
      } catch {
        link = undefined;
      }
      return link?.isSymbolicLink()
        ? `${file} is a symbolic link to ${fs.readlinkSync(file)}, which does not exist`
        : `${file} does not exist`;
    }
    if (code === 'ELOOP') return `${file} is a symbolic link in a loop (it leads back to itself)`;
    if (code === 'EACCES') return `${file} cannot be read: permission denied`;
    if (code === 'ENOTDIR') return `${file}: a part of the path is not a folder`;
    return `${file} cannot be read: ${(error as Error).message}`;
  }
  if (stat.isDirectory()) return `${file} is a folder, not ${what}`;
  if (stat.isFIFO()) return `${file} is a FIFO (named pipe), not ${what}`;
  if (stat.isSocket()) return `${file} is a socket, not ${what}`;
  if (!stat.isFile()) return `${file} is not a regular file`;
  if (stat.size === 0 && empty === 'refused') return `${file} is empty`;
  try {
    fs.accessSync(file, fs.constants.R_OK);
  } catch {
    return `${file} cannot be read: permission denied`;
  }
  return undefined;
}
