// The process's limit of open files (RLIMIT_NOFILE), which bounds the connections it can hold.
import fs from 'node:fs';

/**
 * The soft limit of open files as Linux reports it (`/proc/self/limits`; Node raises it to the hard
 * limit as it starts), or undefined where it cannot be read (another system) or is unlimited.
 */
export function openFilesLimit(): number | undefined {
  try {
    const limits = fs.readFileSync('/proc/self/limits', 'utf8');
    const soft = /^Max open files\s+(\d+)/m.exec(limits)?.[1];
    return soft === undefined ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}
