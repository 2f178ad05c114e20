import net from 'node:net';
import { buildApp } from '../api/index.js';
import { MatchcastError, withTimeout } from '../domain/index.js';
import type { RuntimeContext } from '../runtime.js';
import { useLeanHeap } from './batch-process.js';

/** The one-line error of a port another process holds (or that may not be bound). */
function portError(port: number, host: string, err: NodeJS.ErrnoException): MatchcastError {
  const why =
    err.code === 'EADDRINUSE'
      ? 'is in use by another process (another matchcast?)'
      : err.code === 'EACCES'
        ? 'may not be bound by this user'
        : `cannot be bound (${err.code ?? err.message})`;
  return new MatchcastError(
    'MC_ERR_CONFIG',
    `Invalid setting PORT: port ${port} on ${host} ${why}; pick another with --port or PORT`,
  );
}

// Binds `port` and releases it: a port in use is reported before minutes of first-start work, not at listen.
export async function assertPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (err: NodeJS.ErrnoException) => reject(portError(port, host, err)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

export interface RunServerOptions {
  /** Printed once the server listens, after `beforeBanner`, e.g. the API key banner of `matchcast start`. */
  banner?: (url: string) => string;
  beforeBanner?: () => Promise<void>;
  /** Resolves when the server should shut down. Default: the first SIGTERM or SIGINT. */
  until?: Promise<unknown>;
  onListening?: (info: { url: string; port: number }) => void | Promise<void>;
  /** Called after the HTTP server closed, before the adapters close (stop schedules). */
  beforeClose?: () => Promise<void>;
}

function shutdownSignal(): Promise<NodeJS.Signals> {
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

// Serves until a signal, then stops accepting, lets in-flight requests finish (at most
// SHUTDOWN_TIMEOUT_MS) and closes queue, cache, store and database.
export async function runServer(ctx: RuntimeContext, options: RunServerOptions = {}): Promise<number> {
  const { config, log } = ctx;
  useLeanHeap();
  // A request in flight at shutdown has its keep-alive connection closed once answered: else the
  // connection stays open after the response and app.close() waits for it until the shutdown bound.
  const shutdown = { draining: false };
  const app = await buildApp(ctx, { shutdown });
  // The views first: the app's ready hook starts the analyst rows' process, which should not compete
  // with a views build for the CPU and memory.
  await ctx.views.start();
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    // Taken since the check at start (a race): one line, and everything opened is closed again.
    await app.close().catch(() => undefined);
    await options.beforeClose?.().catch(() => undefined);
    await ctx.close().catch(() => undefined);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES')
      throw portError(config.port, config.host, err as NodeJS.ErrnoException);
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://localhost:${port}`;
  log.info({ url, pid: process.pid }, 'listening');
  await options.onListening?.({ url, port });
  // The banner (it names the API key) goes to stderr, apart from the JSON log lines, and comes last.
  if (options.banner) {
    await options.beforeBanner?.().catch(() => undefined);
    log.flush();
    process.stderr.write(`${options.banner(url)}\n`);
  }

  const reason = await (options.until ?? shutdownSignal());
  log.info({ reason }, 'shutting down');
  shutdown.draining = true;
  const cut = new Error('shutdown bound');
  await withTimeout(app.close(), config.shutdownTimeoutMs, () => cut).catch((err: unknown) => {
    if (err !== cut) throw err;
    log.warn({ ms: config.shutdownTimeoutMs }, 'in-flight requests cut at the shutdown bound');
  });
  await options.beforeClose?.().catch((err: unknown) => log.warn({ err }, 'shutdown hook failed'));
  await ctx.close();
  log.info('stopped');
  return 0;
}
