// The default of MAX_CONNECTIONS, from the open-files limit: a setting's default, so it lives with
// the settings; src/process/connectionCap.ts enforces the cap.
/** Files the process keeps open besides its connections: the store's, the workers', the logs'. */
export const OWN_FILES = 256;
/** The cap when the open-files limit cannot be read, or is larger than it needs to be. */
export const MAX_CONNECTIONS_CEILING = 16_384;

/**
 * The default cap of each listener: half of what the open-files limit leaves past the process's
 * own files (the public and the staff listener may both fill theirs), at most
 * MAX_CONNECTIONS_CEILING, at least 16. Past the limit, the kernel's accepted connections were
 * reset, new clients' among them.
 */
export function defaultMaxConnections(openFiles: number | undefined): number {
  if (openFiles === undefined) return MAX_CONNECTIONS_CEILING;
  return Math.max(16, Math.min(MAX_CONNECTIONS_CEILING, Math.floor((openFiles - OWN_FILES) / 2)));
}
