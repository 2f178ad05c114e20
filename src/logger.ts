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

/** Longest a line waits in the buffer: it is then written even when no other line follows. */
const FLUSH_MS = 100;

/**
 * The main thread's stdout destination, shared by every logger so that their lines keep their order:
 * pino's destination, buffering lines up to ~4 KB and writing them with one synchronous `write(2)`
 * (at most 4096 bytes, PIPE_BUF: a pipe never interleaves them with another writer's), every
 * {@link FLUSH_MS} whatever the buffer holds, and at process exit. Its asynchronous mode hands each chunk to
 * libuv's thread pool and back, one chunk per event-loop turn: under load that cost the precomputed
 * route ~10 % of its throughput and tripled its p99 (docs/benchmarks.md). Worker threads keep pino's
 * default synchronous stdout: a terminated worker gets no `exit` event to flush in.
 */
function stdout(): DestinationStream | undefined {
  if (!isMainThread) return undefined;
  if (!stdoutDestination) {
    const destination = pino.destination({
      dest: 1,
      sync: true,
      minLength: 4000,
      maxWrite: 4096,
      periodicFlush: FLUSH_MS,
    });
    process.on('exit', () => {
      try {
        destination.flushSync();
      } catch {
        // stdout closed: nothing left to write to
      }
    });
    stdoutDestination = destination;
  }
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
