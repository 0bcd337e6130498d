// The asking side of the placing thread (placingThread.ts): its part of the plan first, then the
// whole plan joined from the two parts, then the placed pieces one by one, the next asked for
// before the last is loaded.
import { WorkerClient } from '../threads/client';
import { moduleIn } from '../threads/workerRequire';
import type { DescriptionPlan } from './descriptionPlan';
import { reviveLoadError } from './loadError';
import type { PlacedPiece } from './placedNTriples';

export type PlacingRequest =
  /** Plans the lines from byte `start` to `end`. */
  | { readonly op: 'part'; readonly start: number; readonly end: number }
  /** Joins the plan of the lines before the thread's part (this thread made it) and its own. */
  | { readonly op: 'join'; readonly first: DescriptionPlan }
  | { readonly op: 'next' };
/**
 * `part`: whether its lines are ones the placing vouches for; `join`: true, or the first refusal of
 * the thread's part thrown; `next`: a piece, or null after the last.
 */
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

  /** Plans the lines from byte `start` to `end`; false when the placing cannot vouch for them. */
  async part(start: number, end: number): Promise<boolean> {
    return (await this.client.ask({ op: 'part', start, end })) as boolean;
  }

  /** Joins `first`, the plan of the lines before the thread's part, and its own. */
  async join(first: DescriptionPlan): Promise<void> {
    await this.client.ask({ op: 'join', first });
  }

  /** The next placed piece (its bytes arrive as a Uint8Array), or null after the last. */
  async next(): Promise<PlacedPiece | null> {
    return (await this.client.ask({ op: 'next' })) as PlacedPiece | null;
  }

  async close(): Promise<void> {
    await this.client.terminate(new Error('the placing is over'));
  }
}
