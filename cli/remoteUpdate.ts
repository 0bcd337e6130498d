// `npm run load -- --update FILE…` with STORE=remote: the update applied over the snapshot of the
// store's current version (DATASET: the snapshot that version was loaded from, or the last
// update's), the merged snapshot written beside it, then only the changed descriptions sent to the
// store (src/store/remote/updateWriter.ts) with the version's events, and the merged snapshot
// renamed into place once the store has published it: the next update's base.
import fs from 'node:fs';
import readline from 'node:readline';
import type { Config } from '../src/config/config';
import { writeMerged, StaleUpdateError } from '../src/update/commitUpdate';
import type { PreparedUpdate } from '../src/update/applyUpdate';
import { CHUNK_MARK } from '../src/load/snapshot/snapshot';
import { DATA_PATH } from '../src/rdf/iris';
import { StaleVersion, writeUpdate } from '../src/store/remote/updateWriter';
import { splitQuad, type Written } from '../src/store/remote/versionWriter';
import { transportOf, type RemoteTarget } from './remote';

/** Lines handed to the store at once, at a description's end. */
const BATCH_BYTES = 4 * 1024 * 1024;

/**
 * The lines of the snapshot `file` that an update sends: those of the descriptions of `isils`, and
 * those in no graph (the version's graph alone holds them); in batches that end between
 * descriptions, so no blank node spans two.
 */
export async function* changedPieces(
  file: string,
  isils: ReadonlySet<string>,
  baseIri: string,
): AsyncGenerator<string[]> {
  const mark = CHUNK_MARK.trimEnd();
  const graphStart = ` <${baseIri}${DATA_PATH}`;
  const input = fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
  let batch: string[] = [];
  let bytes = 0;
  let last: string | undefined;
  for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) {
    if (line === mark || line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(graphStart);
    const isil = at !== -1 && line.endsWith('> .') ? line.slice(at + graphStart.length, -3) : '';
    const wanted =
      isil !== '' && !isil.includes(' ') ? isils.has(isil) : splitQuad(line).graph === undefined;
    if (!wanted) continue;
    if (isil !== last && isil !== '' && bytes >= BATCH_BYTES) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    last = isil;
    batch.push(line);
    bytes += line.length + 1;
  }
  if (batch.length > 0) yield batch;
}

/**
 * Applies `update` to the remote store at `target`: its merged snapshot written beside DATASET,
 * the changed descriptions and the events sent, the version published, then the snapshot renamed
 * into place. A refusal or a failure leaves the store's current version and DATASET as they were.
 */
export async function updateRemote(
  update: PreparedUpdate,
  config: Pick<Config, 'baseIri' | 'dataset'>,
  target: RemoteTarget,
  sources: readonly string[],
  now?: Date,
): Promise<Written & { bytes: number; triples: number }> {
  const { baseIri, dataset } = config;
  const { merged, base } = update;
  const { file, bytes, triples } = writeMerged(update, { dataset, baseIri }, undefined);
  const { transport, client } = transportOf(target);
  try {
    const descriptions = update.loaded.history.descriptions;
    const written = await writeUpdate(
      transport,
      client,
      {
        base: base.trailer.version,
        entry: {
          version: merged.version,
          baseIri,
          triples,
          sources: `${dataset} (version ${base.trailer.version}) updated with ${sources.join(', ')}`,
        },
        except: [...merged.dropped].map((isil) => `${baseIri}${DATA_PATH}${isil}`),
        pieces: changedPieces(file.file, new Set(update.loaded.history.states.keys()), baseIri),
      },
      {
        client,
        states: merged.states,
        description: (isil) => descriptions.get(isil),
        ...(now ? { now } : {}),
      },
    );
    file.rename();
    return { ...written, bytes, triples };
  } catch (error) {
    if (error instanceof StaleVersion)
      throw new StaleUpdateError(dataset, undefined, undefined, error.message);
    throw error;
  } finally {
    file.discard();
    await transport.close();
    client.close();
  }
}
