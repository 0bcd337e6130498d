// The canonical reading's own thread (canonicalDataset.ts): it makes each description canonical
// from its graph's N-Triples, as the reading in the loading thread would, and holds the snapshot's
// pieces until the rest's lines end them. The loading thread meanwhile reads the next graphs from
// the store and checks them: on two cores, the two halves of the reading run side by side.
import { workerData } from 'node:worker_threads';
import { serve } from '../threads/serve';
import { describedCanonically, quadsIn } from './canonicalDataset';
import type { CanonicalReply, CanonicalRequest } from './canonicalClient';
import { PieceWriter } from './snapshotPieces';

const { baseIri } = workerData as { baseIri: string };
const writer = new PieceWriter();

serve<CanonicalRequest, CanonicalReply>((request) => {
  if (request.op === 'end') {
    writer.add(request.tail);
    return writer.endBlocks();
  }
  return request.batch.map(({ subject, n, text, linked }) => {
    const made = describedCanonically(subject, n, quadsIn(text, subject.graph), linked, baseIri);
    writer.add(made.lines);
    return [subject.isil, made.text, made.state] as const;
  });
});
