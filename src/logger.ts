import { isMainThread } from 'node:worker_threads';
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Paths pino blanks out: the API and admin keys must never reach a log line, whatever logs a request. */
export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'headers["x-api-key"]',
  'req.headers["x-admin-key"]',
  'headers["x-admin-key"]',
  'apiKey',
  'api_key',
  'adminKey',
  'config.apiKey',
  'config.adminKey',
  'req.headers.authorization',
];

/** Largest write that a pipe never interleaves with another writer's (PIPE_BUF on Linux). */
export const ATOMIC_WRITE_BYTES = 4096;

/**
 * Joins lines into chunks of at most `limit` bytes (a longer line is a chunk of its own), so that two
 * threads writing whole chunks to one pipe never tear each other's lines. Self-contained, with no
 * inner function (a bundler's name helpers would land in it): the access-log thread runs its source.
 */
export function atomicChunks(lines: readonly string[], limit: number): string[] {
  const chunks: string[] = [];
  let chunk = '';
  let bytes = 0;
  for (const line of lines) {
    const n = Buffer.byteLength(line);
    if (bytes > 0 && bytes + n > limit) {
      chunks.push(chunk);
      chunk = '';
      bytes = 0;
    }
    chunk += line;
    bytes += n;
  }
  if (bytes > 0) chunks.push(chunk);
  return chunks;
}

/**
 * A pino destination that hands every line written during one event-loop turn to `out` in one
 * write (in a `setImmediate`), and whatever is pending at process exit synchronously. pino's own
 * stdout destination makes one `write(2)` per line and measures the byte length of its pending
 * buffer on each line: about 5 µs per line under load, more than serialising the line
 * (docs/benchmarks.md). Lines keep their order and are written in chunks a pipe keeps whole
 * ({@link atomicChunks}); nothing else about them changes.
 */
export class TurnBatchedDestination implements DestinationStream {
  private lines: string[] = [];
  private scheduled = false;
  private readonly run = () => this.flushSync();

  constructor(private readonly out: { write(chunk: string): unknown }) {}

  write(line: string): void {
    this.lines.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.run);
    }
  }

  /** Writes what is pending now. */
  flushSync(): void {
    this.scheduled = false;
    const n = this.lines.length;
    if (n === 0) return;
    const lines = this.lines;
    this.lines = [];
    if (n === 1) this.out.write(lines[0]!);
    else for (const chunk of atomicChunks(lines, ATOMIC_WRITE_BYTES)) this.out.write(chunk);
  }

  /** pino's `logger.flush(cb)`. */
  flush(cb?: (err?: Error) => void): void {
    this.flushSync();
    cb?.();
  }
}

let stdoutDestination: TurnBatchedDestination | undefined;

/**
 * The one stdout destination of the main thread (shared by every logger, so lines of different
 * loggers keep their order), flushed on `exit`. Worker threads keep pino's synchronous destination:
 * a worker may be terminated without an `exit` event in which to flush.
 */
function stdout(): DestinationStream | undefined {
  if (!isMainThread) return undefined;
  if (!stdoutDestination) {
    const destination = new TurnBatchedDestination(pino.destination({ dest: 1, sync: true }));
    process.once('exit', () => destination.flushSync());
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
