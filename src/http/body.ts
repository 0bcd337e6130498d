// A request's body, read whole up to a bound: for the few routes that take POST (the staff SPARQL
// endpoint, reconciliation).
import type { Request } from 'express';
import { badRequest, contentTooLarge, HttpError } from './errors';

/** The body as bytes, refused with 413 past `max` (by its Content-Length, or as it arrives). */
export async function requestBody(req: Request, max: number, setting?: string): Promise<Buffer> {
  const tooLarge = () =>
    contentTooLarge(
      `A request body is at most ${max} bytes here${setting ? ` (${setting})` : ''}.`,
      {
        Connection: 'close',
      },
    );
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > max) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof HttpError) throw error;
    // The client closed the connection before its body was whole: its doing, not a failure here.
    throw badRequest('The request body ended before it was whole.', {
      Connection: 'close',
    });
  }
  return Buffer.concat(chunks);
}
