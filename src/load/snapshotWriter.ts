// A snapshot written by a thread of its own (snapshotThread.ts) while the loading thread writes the
// change log, so that neither waits for the other (docs/loading.md, Phases); `commitVersion`
// renames it into place only once the log is flushed, as when one followed the other.
import fs from 'node:fs';
import path from 'node:path';
import { SMALL_YOUNG_GENERATION, WorkerClient } from '../threads/client';
import { moduleIn } from '../threads/workerRequire';
import { reviveLoadError } from './loadError';
import type { Loaded } from './report';
import { snapshotParts, type SnapshotHistory, type WrittenSnapshot } from './snapshot';
import { temporaryOf } from './snapshotFile';
import type { SnapshotRequest } from './snapshotThread';

const WORKER = moduleIn(__dirname, 'snapshotThread');

/** A snapshot being written to the temporary file beside its target. */
export class SnapshotWriting {
  private readonly thread: WorkerClient<SnapshotRequest, number>;
  private readonly written: Promise<number>;
  private readonly temporary: string;
  private readonly version: string;

  /**
   * Starts writing `loaded` for `target`, naming the change log's `history`: the request leaves
   * when the event loop next turns (src/threads/client.ts), which it does before this resolves.
   */
  static async start(
    loaded: Pick<Loaded, 'dataset' | 'rows' | 'canonical'>,
    target: string,
    history: SnapshotHistory,
  ): Promise<SnapshotWriting> {
    const writing = new SnapshotWriting(loaded, target, history);
    await new Promise((resolve) => setImmediate(resolve));
    return writing;
  }

  private constructor(
    loaded: Pick<Loaded, 'dataset' | 'rows' | 'canonical'>,
    private readonly target: string,
    history: SnapshotHistory,
  ) {
    const { header, pieces, trailer, version } = snapshotParts(loaded, history);
    this.version = version;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    this.temporary = temporaryOf(target);
    this.thread = new WorkerClient(WORKER, {
      name: "the snapshot's thread",
      revive: reviveLoadError,
      resourceLimits: SMALL_YOUNG_GENERATION,
    });
    const file = this.temporary;
    this.written = this.thread.ask({ file, target, header, blocks: pieces.blocks, trailer });
    // Awaited by `done` or `abandon`; a failure meanwhile is not unhandled.
    this.written.catch(() => undefined);
  }

  /** Waits for the file to be written and flushed, then renames it over the target. */
  async done(beforeRename?: () => void): Promise<WrittenSnapshot> {
    try {
      const bytes = await this.written;
      beforeRename?.();
      fs.renameSync(this.temporary, this.target);
      return { bytes, version: this.version };
    } catch (error) {
      fs.rmSync(this.temporary, { force: true });
      throw error;
    } finally {
      await this.thread.terminate(new Error('the snapshot is written'));
    }
  }

  /** Nothing goes live (the change log could not be written): the thread ends, its file goes. */
  async abandon(): Promise<void> {
    await this.thread.terminate(new Error('the version does not go live'));
    fs.rmSync(this.temporary, { force: true });
  }
}
