// The default of MAX_CONNECTIONS (src/config/maxConnections.ts), from the open-files limit.
import assert from 'node:assert/strict';
import {
  defaultMaxConnections,
  MAX_CONNECTIONS_CEILING,
  OWN_FILES,
} from '../../../src/config/maxConnections';

describe('defaultMaxConnections', () => {
  it('leaves half of what the open-files limit leaves past the process’s own files', () => {
    assert.equal(defaultMaxConnections(1024), (1024 - OWN_FILES) / 2);
  });

  it('keeps at least 16 and at most the ceiling', () => {
    assert.equal(defaultMaxConnections(OWN_FILES), 16);
    assert.equal(defaultMaxConnections(10_000_000), MAX_CONNECTIONS_CEILING);
  });

  it('takes the ceiling when the limit cannot be read', () => {
    assert.equal(defaultMaxConnections(undefined), MAX_CONNECTIONS_CEILING);
  });
});
