// A suite for test/integration/testCommand.test.ts, run by the test command as a file named: one
// test passes, the others skip for want of a package (a suite's and a test's own) or as marked.
import { skipWithout } from './missing';

describe('a suite without its package', function () {
  before(function () {
    skipWithout(this, 'package-a', 'install package-a');
  });
  it('one', () => undefined);
  describe('inside it', () => {
    it('two', () => undefined);
    it('three', () => undefined);
  });
});

describe('a test without its package', () => {
  it('skips itself', function () {
    skipWithout(this, 'package-b', 'install package-b');
  });
  it('runs', () => undefined);
  it.skip('is marked to skip', () => undefined);
});
