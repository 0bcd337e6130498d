// The placing of a large N-Triples file in a thread of its own (placedNTriples.ts, rdfFile.ts):
// it plans the file's descriptions, then hands its lines over as placed N-Quads a piece at a time,
// making the next piece while the loading thread's store parses the last one.
import fs from 'node:fs';
import { workerData } from 'node:worker_threads';
import { serve } from '../threads/serve';
import { checkLiteral } from './limits';
import { placedPieces, planDescriptions, type PlacedPiece } from './placedNTriples';
import type { PlacingReply, PlacingRequest } from './placingClient';

const { file, baseIri } = workerData as { file: string; baseIri: string };
let pieces: Iterator<PlacedPiece> | undefined;
let fd: number | undefined;

serve<PlacingRequest, PlacingReply>((request) => {
  if (request.op === 'plan') {
    fd = fs.openSync(file, 'r');
    const plan = planDescriptions(fd, baseIri, undefined, (line) => checkLiteral(file, line), true);
    if (plan) pieces = placedPieces(fd, plan);
    return plan !== undefined;
  }
  const next = pieces?.next();
  if (!next || next.done) {
    if (fd !== undefined) fs.closeSync(fd);
    fd = undefined;
    return null;
  }
  return next.value;
});
