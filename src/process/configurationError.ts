// How the process stops on wrong settings: one line on stderr, exit code 2 (docs/operations.md).

/** One line and exit 2: the settings are wrong. */
export function configurationError(message: string): never {
  process.stderr.write(`configuration error: ${message}\n`);
  process.exit(2);
}
