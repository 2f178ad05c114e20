import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type LogArgs = Parameters<FastifyBaseLogger['info']>;

/**
 * `request.log` created on first use. Fastify builds a pino child (with the request id bound) for
 * every request; with the access line written by the observability hook, most requests never log
 * through it, so building it per request was pure cost (an object and a serialised binding per
 * request). The first call builds a child of the service's logger with the same bindings. It has
 * pino's serialisers only, not Fastify's `req`/`res` ones: with `disableRequestLogging` Fastify never
 * logs a request or reply object through it (only strings and `{err}`).
 */
export class LazyRequestLogger implements FastifyBaseLogger {
  private real: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** The pino child, built now if it was not yet. */
  get logger(): FastifyBaseLogger {
    if (this.real === undefined) this.real = this.parent.child(this.bindings, this.options);
    return this.real;
  }

  get level(): string {
    return this.real?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  fatal(...args: LogArgs): void {
    this.logger.fatal(...args);
  }
  error(...args: LogArgs): void {
    this.logger.error(...args);
  }
  warn(...args: LogArgs): void {
    this.logger.warn(...args);
  }
  info(...args: LogArgs): void {
    this.logger.info(...args);
  }
  debug(...args: LogArgs): void {
    this.logger.debug(...args);
  }
  trace(...args: LogArgs): void {
    this.logger.trace(...args);
  }
  silent(...args: LogArgs): void {
    this.logger.silent(...args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/**
 * Fastify's `childLoggerFactory` option: {@link LazyRequestLogger} children of `parent` instead of
 * eager pino children of Fastify's logger (the app gives Fastify none of its own).
 */
export function lazyChildLogger(parent: FastifyBaseLogger) {
  return (_logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger =>
    new LazyRequestLogger(parent, bindings, options);
}
