// An update of a remote store (`load --update` with STORE=remote): the new version is the current
// one with the update's descriptions written anew and those it removes left out. Its unchanged
// description graphs are copied inside the store from the current version's (Transport.copy), so
// what crosses the network is the update's descriptions, its events and the registry's write: the
// transfer follows the change, not the dataset. It goes live as a load does (versionWriter.ts).
import { descriptionGraph, type VersionEntry } from './layout';
import { listVersions } from './registry';
import type { SparqlClient } from './sparqlClient';
import { writeVersion, type HistoryInput, type Transport, type Written } from './versionWriter';

/** The store's current version is not the one the update was made over. */
export class StaleVersion extends Error {
  override name = 'StaleVersion';
}

export interface RemoteUpdate {
  /** The version the update was made over: the store's current one. */
  readonly base: string;
  /** The new version's entry, with its triples (all of them, not only the update's). */
  readonly entry: Omit<VersionEntry, 'created'>;
  /** The description graphs of the base (their names in a snapshot) the update replaces or removes. */
  readonly except: readonly string[];
  /** The N-Quads lines of the update's descriptions, in pieces no blank node spans. */
  readonly pieces: AsyncIterable<readonly string[]> | Iterable<readonly string[]>;
}

/** Refuses unless the store marks `base` current. */
async function checkCurrent(client: SparqlClient, base: string): Promise<void> {
  const current = (await listVersions(client)).current?.version;
  if (current !== base)
    throw new StaleVersion(
      `the update was made over version ${base}, but the remote store's current version is ${current ?? 'none'}: another load happened meanwhile; load its snapshot (DATASET) or the sources in full, then update`,
    );
}

/**
 * Writes `update` through `transport` and publishes it with its place in the history. Refused,
 * with nothing written, when the store's current version is not the update's base, and, with the
 * live version untouched, when another version went live while it was written.
 */
export async function writeUpdate(
  transport: Transport,
  client: SparqlClient,
  update: RemoteUpdate,
  history: HistoryInput,
  progress?: (quads: number) => void,
): Promise<Written> {
  const { base, except } = update;
  const copy = transport.copy?.bind(transport);
  if (copy === undefined)
    throw new Error(
      `an update goes into a remote store through Virtuoso's bulk loader (--virtuoso-bulk): ${transport.target} cannot copy graphs inside the store`,
    );
  await checkCurrent(client, base);
  // The copy runs once the version is begun, before its pieces (writeVersion reads them after).
  const pieces = async function* (): AsyncGenerator<readonly string[]> {
    await copy(
      base,
      except.map((graph) => descriptionGraph(base, graph)),
    );
    yield* update.pieces;
    await checkCurrent(client, base);
  };
  return writeVersion(transport, pieces(), update.entry, progress, history);
}
