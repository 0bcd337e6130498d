// How a worker thread loads this project's modules: compiled ones (`.js`, in dist/) as they are,
// the sources (`.ts`: npm start, the tests) through tsx, which the worker registers itself, since
// Node 20 does not hand the parent's `--import` loaders to a worker thread.
import path from 'node:path';

/** The module `name` in `dir`, with the extension the running code has (`.js` or `.ts`). */
export function moduleIn(dir: string, name: string): string {
  return path.join(dir, `${name}${path.extname(__filename)}`);
}

/** A CommonJS expression, for a worker's eval'd code, that loads the module `file`. */
export function requireIn(file: string): string {
  const call = `require(${JSON.stringify(file)})`;
  return file.endsWith('.ts') ? `(require('tsx/cjs/api').register(), ${call})` : call;
}
