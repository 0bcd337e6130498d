// The bound on bulk exports (src/http/searchExport.ts): past `MAX_EXPORTS` running, another is
// refused with 503 and Retry-After before it asks the index for anything.
import assert from 'node:assert/strict';
import type { Request, Response } from 'express';
import { HttpError } from '../../../src/http/errors';
import { ExportSlots, MAX_EXPORTS, searchExport } from '../../../src/http/searchExport';
import type { RouteDeps } from '../../../src/http/deps';

describe('bulk exports', () => {
  it(`refuses one past the ${MAX_EXPORTS} running with 503 and Retry-After, and counts it in no slot`, async () => {
    const slots = new ExportSlots();
    slots.running = MAX_EXPORTS;
    await assert.rejects(
      searchExport({} as Request, {} as Response, {} as RouteDeps, slots, {
        request: { q: '' },
        format: 'jsonl',
        fields: ['isil'],
        context: { baseIri: '', pagePattern: '' },
        asker: { client: 'test' },
      }),
      (e: unknown) =>
        e instanceof HttpError &&
        e.status === 503 &&
        e.headers['Retry-After'] === '5' &&
        /At most 4 bulk exports/.test(e.message),
    );
    assert.equal(slots.running, MAX_EXPORTS);
  });
});
