// The process's JSON logger (pino).
import pino from 'pino';

export type Logger = pino.Logger;

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    { level, base: { service: 'isil-ld' }, timestamp: pino.stdTimeFunctions.isoTime },
    destination,
  );
}
