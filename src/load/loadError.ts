// The error of a source file that cannot be loaded, with the line and column where it breaks.
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

/**
 * A load whose result holds no institution to serve (`LoadOptions.requireInstitutions`): the
 * loader command refuses it unless given --allow-empty.
 */
export class NoInstitutionError extends LoadError {
  override name = 'NoInstitutionError';
}
