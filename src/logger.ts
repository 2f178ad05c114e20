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
 * The main thread's stdout, shared so lines keep their order: ~4 KB buffered, one synchronous write(2) of
 * ≤ PIPE_BUF (never interleaved; async mode costs throughput, docs/benchmarks.md). Worker threads keep
 * pino's synchronous default: a terminated worker gets no `exit` event to flush in.
 */
function stdout(): DestinationStream | undefined {
  if (!isMainThread || stdoutDestination) return stdoutDestination;
  // periodicFlush: ms a line may wait for others.
  const destination = pino.destination({
    dest: 1,
    sync: true,
    minLength: 4000,
    maxWrite: 4096,
    periodicFlush: 100,
  });
  process.on('exit', () => {
    try {
      destination.flushSync();
    } catch {
      // stdout closed: nothing left to write to
    }
  });
  stdoutDestination = destination;
  return destination;
}

/** Creates the process logger: JSON lines on stdout (pino). */
export function createLogger(level: string = 'info', name = 'matchcast'): Logger {
  const options = { name, level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
  const destination = stdout();
  return destination ? pino(options, destination) : pino(options);
}
