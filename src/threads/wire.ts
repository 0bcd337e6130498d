// Errors across a thread boundary. A structured clone keeps an Error's message and name, but not
// its class or its own fields (a system error's `code`, where a file breaks), and those are what
// an operator reads in the log and what the caller's handling depends on.

/** An error as it crosses the boundary: its name, message, code and own plain fields. */
export interface WireError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  /** A system error's code (`ENOENT`, `EACCES`), or a project error's. */
  readonly code?: string;
  /** The error's other own fields whose values are strings, numbers, booleans or undefined. */
  readonly fields: Readonly<Record<string, string | number | boolean | undefined>>;
}

/** Turns the wire form back into an error of the right class; undefined leaves it a plain Error. */
export type Reviver = (wire: WireError) => Error | undefined;

const PLAIN = new Set(['string', 'number', 'boolean', 'undefined']);

export function toWire(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, string | number | boolean | undefined> = {};
  for (const [name, value] of Object.entries(error))
    if (name !== 'code' && name !== 'name' && PLAIN.has(typeof value))
      fields[name] = value as string | number | boolean | undefined;
  const { code } = error as { code?: unknown };
  return {
    name: error.name,
    message: error.message,
    ...(error.stack === undefined ? {} : { stack: error.stack }),
    ...(typeof code === 'string' ? { code } : {}),
    fields,
  };
}

/** The error again on the receiving side: of its class where `revive` knows it; code kept. */
export function fromWire(wire: WireError, revive?: Reviver): Error {
  const error: NodeJS.ErrnoException = revive?.(wire) ?? plainError(wire);
  error.name = wire.name;
  if (wire.code !== undefined) error.code = wire.code;
  return error;
}

function plainError(wire: WireError): Error {
  const error = new Error(wire.message);
  if (wire.stack !== undefined) error.stack = wire.stack;
  Object.assign(error, wire.fields);
  return error;
}
