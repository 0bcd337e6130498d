// How the process stops on wrong settings (src/process/configurationError.ts): one line on
// stderr and exit code 2, as docs/operations.md says.
import assert from 'node:assert/strict';
import { configurationError } from '../../../src/process/configurationError';

class Exited extends Error {
  constructor(readonly code: number | string | null | undefined) {
    super(`exit ${code}`);
  }
}

describe('configurationError', () => {
  const exit = process.exit;
  const write = process.stderr.write;
  let written: string[];
  beforeEach(() => {
    written = [];
    process.exit = ((code) => {
      throw new Exited(code);
    }) as typeof process.exit;
    process.stderr.write = ((text: string) =>
      written.push(text) > 0) as typeof process.stderr.write;
  });
  afterEach(() => {
    process.exit = exit;
    process.stderr.write = write;
  });

  it('writes one line naming the problem, then exits with code 2', () => {
    assert.throws(
      () => configurationError('PORT: not a port number (got "http")'),
      (error) => error instanceof Exited && error.code === 2,
    );
    assert.deepEqual(written, ['configuration error: PORT: not a port number (got "http")\n']);
  });
});
