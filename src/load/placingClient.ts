// The asking side of the placing thread (placingThread.ts): the plan first, then the placed
// pieces one by one, the next asked for before the last is loaded.
import { WorkerClient } from '../threads/client';
import { moduleIn } from '../threads/workerRequire';
import { reviveLoadError } from './loadError';
import type { PlacedPiece } from './placedNTriples';

export type PlacingRequest = { readonly op: 'plan' } | { readonly op: 'next' };
/** `plan`: whether the file is one the placing vouches for; `next`: a piece, or null after the last. */
export type PlacingReply = boolean | PlacedPiece | null;

const WORKER = moduleIn(__dirname, 'placingThread');

export class PlacingThread {
  private readonly client: WorkerClient<PlacingRequest, PlacingReply>;

  /** `fd`: the file open for reading, which the thread reads at positions and never closes. */
  constructor(file: string, fd: number, baseIri: string) {
    this.client = new WorkerClient(WORKER, {
      name: 'the placing thread',
      workerData: { file, fd, baseIri },
      revive: reviveLoadError,
    });
  }

  /** Plans the file's descriptions; false when the placing cannot vouch for the file. */
  async plan(): Promise<boolean> {
    return (await this.client.ask({ op: 'plan' })) as boolean;
  }

  /** The next placed piece (its bytes arrive as a Uint8Array), or null after the last. */
  async next(): Promise<PlacedPiece | null> {
    return (await this.client.ask({ op: 'next' })) as PlacedPiece | null;
  }

  async close(): Promise<void> {
    await this.client.terminate(new Error('the placing is over'));
  }
}
