import { buildApp } from '../api/index.js';
import type { RuntimeContext } from '../runtime.js';

/** Options of {@link runServer}. */
export interface RunServerOptions {
  /** Printed once the server listens, e.g. the API key banner of `matchcast start`. */
  banner?: (url: string) => string;
  /** Resolves when the server should shut down. Default: the first SIGTERM or SIGINT. */
  until?: Promise<unknown>;
  /** Called once the server listens (e.g. `start` records itself for the CLI handoff). Default none. */
  onListening?: (info: { url: string; port: number }) => void | Promise<void>;
  /** Called after the HTTP server closed, before the adapters close (stop schedules). Default none. */
  beforeClose?: () => Promise<void>;
}

/** Resolves on the first SIGTERM or SIGINT. */
export function shutdownSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
      resolve(signal);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
  });
}

/**
 * Serves the API until a signal, then shuts down gracefully: stop accepting connections, let in-flight
 * requests finish (bounded by SHUTDOWN_TIMEOUT_MS), then close queue, cache, store and database.
 */
export async function runServer(ctx: RuntimeContext, options: RunServerOptions = {}): Promise<number> {
  const { config, log } = ctx;
  // A request in flight at shutdown has its keep-alive connection closed once answered: else the
  // connection stays open after the response and app.close() waits for it until the shutdown bound.
  const shutdown = { draining: false };
  const app = await buildApp(ctx, { shutdown });
  await ctx.views.start();
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://localhost:${port}`;
  log.info({ url, pid: process.pid }, 'listening');
  await options.onListening?.({ url, port });
  // The banner (it names the API key) goes to stderr, apart from the JSON log lines on stdout.
  if (options.banner) process.stderr.write(`${options.banner(url)}\n`);

  const reason = await (options.until ?? shutdownSignal());
  log.info({ reason }, 'shutting down');
  shutdown.draining = true;
  let timer: NodeJS.Timeout | undefined;
  const bounded = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), config.shutdownTimeoutMs);
  });
  const closed = await Promise.race([app.close().then(() => 'closed' as const), bounded]);
  clearTimeout(timer);
  if (closed === 'timeout')
    log.warn({ ms: config.shutdownTimeoutMs }, 'in-flight requests cut at the shutdown bound');
  await options.beforeClose?.().catch((err: unknown) => log.warn({ err }, 'shutdown hook failed'));
  await ctx.close();
  log.info('stopped');
  return 0;
}
