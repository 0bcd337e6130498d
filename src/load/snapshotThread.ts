// The thread that writes a snapshot's file while the loading thread writes the change log
// (snapshotWriter.ts): it is handed the pieces as the deflated blocks they are held in.
import { serve } from '../threads/serve';
import { writeSnapshotFile } from './snapshotFile';
import { inflated } from './snapshotPieces';

/** The file to write, the target it is for (named in errors), and what it holds. */
export interface SnapshotRequest {
  readonly file: string;
  readonly target: string;
  readonly header: string;
  readonly blocks: readonly Uint8Array[];
  readonly trailer: string;
}

serve<SnapshotRequest, number>(({ file, target, header, blocks, trailer }) =>
  writeSnapshotFile(file, target, { header, pieces: inflated(blocks), trailer }),
);
