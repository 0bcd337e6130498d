// The sources a server serves without a snapshot of its own (the bundled dataset, or the
// demonstration data), loaded as fast as a snapshot: the canonical snapshot of their bytes is kept
// beside their states (`LoadOptions.statesCache`) at the first start, and every later start loads
// it instead of reading PICA+, lists and RDF again (docs/operations.md, "Start time").
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { loadSources } from './loadSources';
import { hashFile } from './reading';
import type { Loaded, LoadOptions } from './report';
import { writeSnapshot } from './snapshot/snapshotWriter';

/**
 * Changes whenever what a load makes of the same sources may change (the loader's rules, the
 * snapshot's layout): snapshots cached by another scheme are never read. The trailer's states are
 * checked against the index of every load besides.
 */
const SNAPSHOT_SCHEME = 'isil-ld served snapshot 1';

/**
 * Loads `sources` as `loadSources` does. With a states cache (the server's bundled or
 * demonstration sources), a snapshot of the same bytes kept there is loaded instead, and one is
 * kept after a load from the sources; a kept snapshot that cannot be loaded, or whose trailer does
 * not add up, is removed and the sources are read. `Loaded.report` is then the snapshot's: the
 * server reads only its triples and version from it.
 */
export async function loadServed(
  sources: readonly string[],
  options: LoadOptions,
): Promise<Loaded> {
  // A load that validates reports the sources' defects, which a snapshot does not keep.
  const file = options.validate ? undefined : cachedSnapshot(sources, options);
  if (!file) return loadSources(sources, options);
  const kept = isFile(file) ? await fromCache(file, options) : undefined;
  if (kept) return kept;
  const loaded = await loadSources(sources, { ...options, snapshot: file });
  await toCache(file, loaded);
  return loaded;
}

/** The snapshot of `sources` in the states cache; none without a cache, or for a source no file. */
function cachedSnapshot(sources: readonly string[], options: LoadOptions): string | undefined {
  const folder = options.statesCache;
  if (!folder) return undefined;
  const key = crypto.createHash('sha256');
  key.update(`${SNAPSHOT_SCHEME}\n${options.baseIri}\n${options.format ?? ''}\n`);
  for (const source of sources) {
    try {
      if (!fs.statSync(source).isFile()) return undefined;
      const bytes = crypto.createHash('sha256');
      hashFile(source, bytes);
      key.update(`${bytes.digest('hex')}\n`);
    } catch {
      // A source that cannot be read: the load says why.
      return undefined;
    }
  }
  return path.join(folder, `snapshot-${key.digest('hex').slice(0, 32)}.nq`);
}

/** The load of a kept snapshot, when it loads and its trailer's states fit; else none (removed). */
async function fromCache(file: string, options: LoadOptions): Promise<Loaded | undefined> {
  let loaded: Loaded | undefined;
  try {
    loaded = await loadSources([file], { ...options, statesCache: undefined, reuseStates: true });
    // States read canonically: the trailer did not fit the data.
    if (loaded.canonical === undefined) return loaded;
  } catch {
    // Unreadable, cut or of another layout: read the sources again.
  }
  loaded?.dataset.free();
  forget(file);
  return undefined;
}

/** Whether `file` is a regular file: anything else in its place (a folder, a FIFO) is not read. */
function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Removes a kept snapshot; one that cannot be removed is left (the sources are read anyway). */
function forget(file: string): void {
  try {
    fs.rmSync(file, { force: true });
  } catch {
    // A folder in its place, say: left as it is.
  }
}

/**
 * Keeps the snapshot of a load from the sources (its pieces written as it read them, then ended and
 * renamed), in place of those of other bytes; a snapshot that cannot be written is not kept, and
 * the load stands.
 */
async function toCache(file: string, loaded: Loaded): Promise<void> {
  try {
    const folder = path.dirname(file);
    await writeSnapshot(loaded, file);
    for (const other of fs.readdirSync(folder))
      if (/^snapshot-[0-9a-f]{32}\.nq$/.test(other) && other !== path.basename(file))
        forget(path.join(folder, other));
  } catch {
    // Not kept: the next start reads the sources again.
  }
}
