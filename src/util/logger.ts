// The process's JSON logger (pino).
import pino from 'pino';
import type { LogLevel } from './config';

export type Logger = pino.Logger;

export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    { level, base: { service: 'isil-ld' }, timestamp: pino.stdTimeFunctions.isoTime },
    destination,
  );
}
