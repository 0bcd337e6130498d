// Errors across the thread boundary (src/store/storeProtocol.ts): what the store's thread threw is
// what the HTTP thread sees, its code and its LoadError fields included.
import assert from 'node:assert/strict';
import { LoadError } from '../../src/load/loadError';
import { fromWire, toWire } from '../../src/store/embedded/storeProtocol';

/** The error as it arrives on the other side: serialized the way postMessage does it. */
const across = (error: unknown) => fromWire(structuredClone(toWire(error)));

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

  it('a thrown string becomes an Error with its text', () => {
    const error = across('broken');
    assert.ok(error instanceof Error);
    assert.equal(error.message, 'broken');
  });
});
