// Progress of long commands: a bar on a terminal, plain periodic lines elsewhere, nothing with
// --quiet; each line says the phase, the count, the rate and the time left.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { duration, Progress, progressMode } from '../../../cli/progress';

/** A stream that keeps what is written, and says whether it is a terminal. */
function sink(isTTY: boolean): NodeJS.WriteStream & { text: () => string } {
  const stream = new PassThrough() as unknown as NodeJS.WriteStream & { text: () => string };
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  Object.assign(stream, { isTTY, columns: 120, cursorTo: () => true, clearLine: () => true });
  stream.text = () => text;
  return stream;
}

describe('progress', () => {
  it('chooses a bar on a terminal, lines elsewhere, nothing with --quiet', () => {
    assert.equal(progressMode(false, sink(true)), 'bar');
    assert.equal(progressMode(undefined, sink(false)), 'lines');
    assert.equal(progressMode(true, sink(true)), 'quiet');
  });

  it('writes a line every interval with count, total, rate and time left, and one at the end of a phase', async () => {
    const out = sink(false);
    let now = 0;
    const progress = new Progress('load', 'lines', out, () => now, 10_000);
    progress.report('reading', 0, 400, 'MiB');
    now = 5_000;
    progress.report('reading', 50, 400, 'MiB');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(out.text(), '', 'nothing before the interval');
    now = 10_000;
    progress.report('reading', 100, 400, 'MiB');
    now = 40_000;
    progress.report('validating', 10, 17_000, 'institutions');
    now = 42_000;
    progress.end();
    progress.end();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(out.text().split('\n').filter(Boolean), [
      'load: reading: 100 of 400 MiB (25%), 10/s, about 30 s left',
      'load: reading done, 100 MiB in 40 s',
      'load: validating done, 10 institutions in 2 s',
    ]);
  });

  it('claims no phase done when the work failed', async () => {
    const out = sink(false);
    const progress = new Progress('load', 'lines', out, () => 0, 10_000);
    progress.report('reading', 3, 400, 'MiB');
    progress.end(false);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(out.text(), '');
  });

  it('says nothing when quiet', async () => {
    const out = sink(false);
    let now = 0;
    const progress = new Progress('load', 'quiet', out, () => now, 1);
    for (let i = 0; i < 10; i++) {
      now += 1000;
      progress.report('reading', i, 10, 'MiB');
    }
    progress.end();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(out.text(), '');
  });

  it('draws a bar on a terminal and leaves its last state', async () => {
    const out = sink(true);
    const progress = new Progress('generate', 'bar', out);
    progress.report('generating', 0, 1000, 'institutions');
    progress.report('generating', 1000, 1000, 'institutions');
    progress.end();
    await new Promise((resolve) => setImmediate(resolve));
    assert.match(out.text(), /generate: generating \[=+\] 1,000 of 1,000 institutions/);
  });

  it('writes durations as a person reads them', () => {
    assert.equal(duration(4.4), '4 s');
    assert.equal(duration(245), '4 min 05 s');
    assert.equal(duration(3720), '1 h 02 min');
    assert.equal(duration(Infinity), 'unknown');
  });
});
