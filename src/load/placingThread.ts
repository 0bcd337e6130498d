// The placing of a large N-Triples file in a thread of its own (placedNTriples.ts, rdfFile.ts):
// it plans the second half of the file's lines while the loading thread plans the first, joins
// the two, then hands the lines over as placed N-Quads a piece at a time, making the next piece
// while the loading thread's store parses the last one.
import { workerData } from 'node:worker_threads';
import { serve } from '../threads/serve';
import { DescriptionPlan } from './descriptionPlan';
import { checkLiteral } from './limits';
import { placedPieces, planPart, type PlacedPiece, type PlanPart } from './placedNTriples';
import type { PlacingReply, PlacingRequest } from './placingClient';

// The file's descriptor is the asking thread's (threads share a process's descriptors, and every
// read here is at a position): it opens and closes it, whatever ends this thread.
const { file, fd, baseIri } = workerData as { file: string; fd: number; baseIri: string };
let part: PlanPart | undefined;
let pieces: Iterator<PlacedPiece> | undefined;

serve<PlacingRequest, PlacingReply>((request) => {
  if (request.op === 'part') {
    part = planPart(fd, baseIri, request.start, request.end, (line) => checkLiteral(file, line));
    return part.vouched;
  }
  if (request.op === 'join') {
    if (!part) throw new Error('join before part');
    const plan = DescriptionPlan.revive(request.first);
    plan.append(part.plan);
    part.plan.lastLines?.clear();
    if (part.refused !== undefined) throw part.refused;
    part = undefined;
    plan.close();
    pieces = placedPieces(fd, plan, file);
    return true;
  }
  const next = pieces?.next();
  return !next || next.done ? null : next.value;
});
