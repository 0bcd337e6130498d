// A load's version and states: read from the store canonically, or taken from where they were kept
// before (the trailer of the snapshot loaded, the states cache of the bundled sources), so that a
// server's start costs no canonicalisation.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { compactStates, readCompactStates, versionOf } from '../../history/canonical';
import type { Dataset } from '../../store/dataset';
import type { DatasetStore } from '../../store/embedded/datasetStore';
import {
  canonicalDataset,
  type CanonicalDataset,
  type Validation,
  type VersionHistory,
} from '../describe/canonicalDataset';
import type { DescribePool } from '../describe/describePool';
import type { LoadOptions } from '../report';
import type { Trailer } from '../snapshot/snapshot';
import { SnapshotWriter } from '../snapshot/snapshotWriter';

/**
 * Changes whenever what canonicalisation makes of the same data changes (labels, order, hashes):
 * cached states of another scheme are not taken.
 */
const CANONICAL_SCHEME = 'isil-ld canonical 1';

/**
 * The version history of the loaded `dataset`, whose sources' bytes have the sha256 `sha256`, and
 * whose only source, nothing placed since, was the snapshot of `trailer`; when it was read for it,
 * the reading's, with the snapshot its pieces went to when the load names one
 * (`LoadOptions.snapshot`).
 */
export async function versionHistory(
  dataset: Dataset<DatasetStore>,
  { sha256, trailer }: { readonly sha256: string; readonly trailer: Trailer | undefined },
  options: LoadOptions,
  pool?: DescribePool,
  validation?: Validation,
): Promise<{ history: VersionHistory; canonical?: CanonicalDataset }> {
  const kept = options.reuseStates && trailer && keptHistory(trailer, dataset);
  if (kept) return { history: kept };
  const file = options.statesCache && cacheFile(options.statesCache, sha256, dataset);
  const cached = file ? fromCache(file, dataset) : undefined;
  if (cached) return { history: cached };
  const snapshot =
    options.snapshot === undefined
      ? undefined
      : new SnapshotWriter(options.snapshot, dataset.baseIri);
  try {
    const { history } = await canonicalDataset(
      dataset,
      options.onProgress,
      pool,
      validation,
      snapshot,
    );
    if (file) toCache(file, history);
    return { history, canonical: { history, ...(snapshot && { snapshot }) } };
  } catch (error) {
    snapshot?.discard();
    throw error;
  }
}

/**
 * The history of states kept (in a snapshot's trailer or the states cache), when they are there
 * whole and count the dataset's live and withdrawn institutions.
 */
function keptHistory(
  kept: Pick<Trailer, 'states'> & { readonly rest?: unknown; readonly version?: unknown },
  dataset: Dataset<DatasetStore>,
): VersionHistory | undefined {
  const { states, rest, version } = kept;
  if (!states || typeof rest !== 'string' || typeof version !== 'string') return undefined;
  let live = 0;
  for (const state of states.values()) if (state.status === 'live') live++;
  if (live !== dataset.institutionCount || states.size - live !== dataset.withdrawnCount)
    return undefined;
  return { states, descriptions: new Map(), rest, version };
}

/** The cache file of sources read as `sha256`, for the dataset's base. */
function cacheFile(folder: string, sha256: string, dataset: Dataset<DatasetStore>): string {
  const key = crypto
    .createHash('sha256')
    .update(`${CANONICAL_SCHEME}\n${dataset.baseIri}\n${sha256}\n`)
    .digest('hex')
    .slice(0, 32);
  return path.join(folder, `states-${key}.json`);
}

/** The cached history, when the file holds one that adds up; else nothing (it is rewritten). */
function fromCache(file: string, dataset: Dataset<DatasetStore>): VersionHistory | undefined {
  try {
    const json = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    const states = readCompactStates(json.states);
    const history = keptHistory({ states, rest: json.rest, version: json.version }, dataset);
    return history && versionOf(history.states, history.rest) === history.version
      ? history
      : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the history to the cache, whole (a temporary file renamed); a failure is ignored. */
function toCache(file: string, history: VersionHistory): void {
  const temporary = `${file}.tmp-${process.pid}`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const { version, rest, states } = history;
    fs.writeFileSync(temporary, JSON.stringify({ version, rest, states: compactStates(states) }));
    fs.renameSync(temporary, file);
  } catch {
    fs.rmSync(temporary, { force: true });
  }
}
