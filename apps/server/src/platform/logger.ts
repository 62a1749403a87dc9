import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

/** Level and destination of the logger. */
export interface LoggerOptions {
  /** fatal|error|warn|info|debug|trace|silent; default info. */
  level?: string | undefined;
  /** Where log lines go (default stdout); tests capture them. */
  stream?: { write(line: string): void } | undefined;
}

/** The process's structured logger (pino); the HTTP role's request logs and the workers' job logs share it. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    { level: options.level ?? 'info', redact: ['req.headers.authorization'] },
    options.stream as DestinationStream | undefined,
  );
}
