// The placing of a large N-Triples file in a thread of its own (placedNTriples.ts, rdfFile.ts):
// it plans the file's descriptions, then hands its lines over as placed N-Quads a piece at a time,
// making the next piece while the loading thread's store parses the last one.
import { workerData } from 'node:worker_threads';
import { serve } from '../threads/serve';
import { checkLiteral } from './limits';
import { placedPieces, planDescriptions, type PlacedPiece } from './placedNTriples';
import type { PlacingReply, PlacingRequest } from './placingClient';

// The file's descriptor is the asking thread's (threads share a process's descriptors, and every
// read here is at a position): it opens and closes it, whatever ends this thread.
const { file, fd, baseIri } = workerData as { file: string; fd: number; baseIri: string };
let pieces: Iterator<PlacedPiece> | undefined;

serve<PlacingRequest, PlacingReply>((request) => {
  if (request.op === 'plan') {
    const plan = planDescriptions(fd, baseIri, undefined, (line) => checkLiteral(file, line), true);
    if (plan) pieces = placedPieces(fd, plan, file);
    return plan !== undefined;
  }
  const next = pieces?.next();
  return !next || next.done ? null : next.value;
});
