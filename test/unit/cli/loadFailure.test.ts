// What `npm run load` says when it fails: one line, and for the embedded store's WebAssembly limit
// (measured at about 315,000 generated institutions, 13 million triples: RuntimeError:
// unreachable), where a larger dataset goes instead.
import assert from 'node:assert/strict';
import { failure } from '../../../cli/loadCommand';
import { LoadError } from '../../../src/load/loadSources';

describe('a failed load, in one line', () => {
  it("names STORE=remote when the embedded store's WebAssembly memory runs out", () => {
    const error = new WebAssembly.RuntimeError('unreachable');
    assert.match(
      failure(error),
      /^the embedded store failed: unreachable \(out of memory\?.*STORE=remote/,
    );
    assert.match(
      failure(error, true),
      /^the loader's store failed: unreachable .*docs\/scaling\.md/,
    );
  });

  it("keeps a LoadError's own message, and a defect's stack", () => {
    assert.equal(
      failure(new LoadError('a.nt', 3, 1, 'bad')),
      new LoadError('a.nt', 3, 1, 'bad').message,
    );
    assert.match(failure(new TypeError('oops')), /^TypeError: oops\n\s+at /);
  });
});
