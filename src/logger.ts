import pino, { type Logger } from 'pino';

export type { Logger };

/** Paths pino blanks out: the API key must never reach a log line, whatever logs a request. */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'headers["x-api-key"]',
  'apiKey',
  'api_key',
  'config.apiKey',
  'req.headers.authorization',
];

/**
 * Creates the process logger: JSON lines on stdout (pino).
 * @param level default `info`
 */
export function createLogger(level: string = 'info', name = 'matchcast'): Logger {
  return pino({ name, level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } });
}
