// Errors across a thread boundary (src/threads/wire.ts): what a worker threw is what the asking
// thread sees, its code and its fields included, and a LoadError of the store's thread is a
// LoadError again (reviveLoadError in src/store/embedded/storeProtocol.ts).
import assert from 'node:assert/strict';
import { LoadError } from '../../../src/load/loadError';
import { reviveLoadError } from '../../../src/store/embedded/storeProtocol';
import { fromWire, toWire } from '../../../src/threads/wire';

/** The error as it arrives on the other side: serialized the way postMessage does it. */
const across = (error: unknown) => fromWire(structuredClone(toWire(error)), reviveLoadError);

describe('errors across the thread boundary', () => {
  it('a system error keeps its code', () => {
    const thrown: NodeJS.ErrnoException = new Error("EACCES: permission denied, open '/x'");
    thrown.code = 'EACCES';
    const error = across(thrown) as NodeJS.ErrnoException;
    assert.equal(error.code, 'EACCES');
    assert.equal(error.message, thrown.message);
    assert.equal(error.stack, thrown.stack);
  });

  it('an error without a code gets none', () =>
    assert.equal((across(new TypeError('x')) as NodeJS.ErrnoException).code, undefined));

  it('a code that is not a string is not taken for one', () =>
    assert.equal(
      (across(Object.assign(new Error('x'), { code: 42 })) as NodeJS.ErrnoException).code,
      undefined,
    ));

  it('keeps the name', () => assert.equal(across(new RangeError('x')).name, 'RangeError'));

  it('a LoadError is a LoadError again, with where and why, and its code', () => {
    const thrown = Object.assign(new LoadError('/d/x.nt', 3, 7, 'unexpected "."'), {
      code: 'EISDIR',
    });
    const error = across(thrown);
    assert.ok(error instanceof LoadError);
    assert.deepEqual(
      [error.file, error.line, error.column, error.reason, error.message],
      ['/d/x.nt', 3, 7, 'unexpected "."', thrown.message],
    );
    assert.equal((error as NodeJS.ErrnoException).code, 'EISDIR');
  });

  it('a subclass of LoadError arrives as a LoadError with its name', () => {
    class Empty extends LoadError {
      override name = 'Empty';
    }
    const error = across(new Empty('/d/x.nt', undefined, undefined, 'nothing to serve'));
    assert.ok(error instanceof LoadError);
    assert.equal(error.name, 'Empty');
  });

  it('own plain fields cross; without a reviver the class is a plain Error with its name', () => {
    const thrown = Object.assign(new LoadError('/d/x.nt', 3, 7, 'bad'), { code: 'E1' });
    const error = fromWire(structuredClone(toWire(thrown))) as Error & Record<string, unknown>;
    assert.ok(!(error instanceof LoadError));
    assert.deepEqual(
      [error.name, error.file, error.line, error.column, error.reason, error.code],
      ['LoadError', '/d/x.nt', 3, 7, 'bad', 'E1'],
    );
  });

  it('a thrown string becomes an Error with its text', () => {
    const error = across('broken');
    assert.ok(error instanceof Error);
    assert.equal(error.message, 'broken');
  });
});
