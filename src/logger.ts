import { isMainThread } from 'node:worker_threads';
import pino, { type DestinationStream, type Logger } from 'pino';

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

let stdoutDestination: DestinationStream | undefined;

/**
 * The main thread's stdout destination, shared by every logger so that their lines keep their order:
 * pino's asynchronous destination, which buffers lines while a write is in flight and writes them
 * together (no `write(2)` per line under load); pino flushes it synchronously at process exit. Writes
 * of at most 4096 bytes (PIPE_BUF): a pipe never interleaves them with another writer's, and the
 * destination re-measures a shorter pending chunk per line (16 KB cost ~1 µs more per line).
 * Worker threads keep pino's default synchronous stdout: a terminated worker gets no `exit` event to
 * flush in.
 */
function stdout(): DestinationStream | undefined {
  if (!isMainThread) return undefined;
  stdoutDestination ??= pino.destination({ dest: 1, sync: false, maxWrite: 4096 });
  return stdoutDestination;
}

/**
 * Creates the process logger: JSON lines on stdout (pino).
 * @param level default `info`
 */
export function createLogger(level: string = 'info', name = 'matchcast'): Logger {
  const options = { name, level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
  const destination = stdout();
  return destination ? pino(options, destination) : pino(options);
}
