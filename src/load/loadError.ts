// The error of a source file that cannot be loaded, with the line and column where it breaks.
import fs from 'node:fs';
import type { Reviver } from '../threads/wire';
import { chunks, countLines } from './reading';
/** A file that cannot be loaded: where, and why. */
export class LoadError extends Error {
  override name = 'LoadError';
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly column: number | undefined,
    readonly reason: string,
  ) {
    super(`${file}${line !== undefined ? `:${line}:${column ?? 1}` : ''}: ${reason}`);
  }
}

/** A file refused as a whole, at no line of it. */
export function refused(file: string, reason: string): LoadError {
  return new LoadError(file, undefined, undefined, reason);
}

/**
 * A LoadError is a LoadError again on the thread that asked for the load, with where the file
 * breaks (a subclass arrives as a LoadError that keeps the subclass's name).
 */
export const reviveLoadError: Reviver = ({ fields }) => {
  const { file, line, column, reason } = fields;
  if (typeof file !== 'string' || typeof reason !== 'string') return undefined;
  const at = (n: unknown) => (typeof n === 'number' ? n : undefined);
  return new LoadError(file, at(line), at(column), reason);
};

/**
 * A load whose result holds no institution to serve (`LoadOptions.requireInstitutions`): the
 * loader command refuses it unless given --allow-empty.
 */
export class NoInstitutionError extends LoadError {
  override name = 'NoInstitutionError';
}

/**
 * Reads the position out of Oxigraph's message (`line L between columns C and …`); one without a
 * position is placed at the end of the file, counted in pieces (never one string of the file).
 */
export function locate(file: string, error: Error, lineOffset = 0): LoadError {
  const message = error.message;
  const at = /line (\d+)(?: between columns (\d+) and \d+| column (\d+))?/i.exec(message);
  if (at) {
    return new LoadError(file, Number(at[1]) + lineOffset, Number(at[2] ?? at[3] ?? 1), message);
  }
  let lines = 1;
  let column = 1;
  const fd = fs.openSync(file, 'r');
  try {
    for (const chunk of chunks(fd)) {
      lines += countLines(chunk);
      const last = chunk.lastIndexOf(0x0a);
      if (last !== -1) column = 1;
      // Characters: the bytes that do not continue a UTF-8 sequence.
      for (let i = last + 1; i < chunk.length; i++) if ((chunk[i]! & 0xc0) !== 0x80) column++;
    }
  } finally {
    fs.closeSync(fd);
  }
  return new LoadError(file, lines, column, `${message} (at the end of the file)`);
}
