// The canonical reading's own thread (canonicalDataset.ts): it makes each description canonical
// from its graph's N-Triples, as the reading in the loading thread would, and holds the snapshot's
// pieces, which go back with each answer to be held there, with the batch's canonical texts
// deflated as one block. The loading thread meanwhile reads the next graphs from
// the store and checks them: on two cores, the two halves of the reading run side by side.
import { workerData } from 'node:worker_threads';
import { serve } from '../threads/serve';
import { describedCanonically, quadsIn } from './canonicalDataset';
import type { CanonicalReply, CanonicalRequest } from './canonicalClient';
import { deflateBlock } from './deflatedTexts';
import { PieceWriter } from './snapshotPieces';

const { baseIri } = workerData as { baseIri: string };
/** The pieces ended since the last answer: they go with it. */
let ended: string[] = [];
const writer = new PieceWriter({ put: (text) => ended.push(text) });

/** The pieces ended since the last answer, taken. */
function taken(): string[] {
  const pieces = ended;
  ended = [];
  return pieces;
}

serve<CanonicalRequest, CanonicalReply>((request) => {
  if (request.op === 'end') {
    writer.add(request.tail);
    writer.flush();
    return taken();
  }
  const texts: string[] = [];
  const described = request.batch.map(({ subject, n, text, linked }) => {
    const made = describedCanonically(subject, n, quadsIn(text, subject.graph), linked, baseIri);
    writer.add(made.lines);
    texts.push(made.text);
    return [subject.isil, made.state] as const;
  });
  const keys = described.map(([isil]) => isil);
  return { described, texts: deflateBlock(keys, texts), pieces: taken() };
});
