import { parseArgs } from 'node:util';
import { parseConfig } from '../config.js';
import { MatchcastError } from '../domain/index.js';
import { createLogger } from '../logger.js';
import { createDefaultWorkerDeps, startWorker } from '../worker/index.js';

const HELP = `matchcast worker [--concurrency N] — an ml worker consuming the task queue

Runs the tasks predict_match and model_info from the BullMQ queue QUEUE_NAME (default ml) on REDIS_URL.
Loads each stage's model lazily through the registry (object store) and keeps the features parquet in
memory. Refuses to start when Redis or the registry cannot be reached. SIGTERM/SIGINT: stops taking
tasks, lets running ones finish (at most SHUTDOWN_TIMEOUT_MS), exits.

Options:
  --concurrency N   tasks run at once (default WORKER_CONCURRENCY, 4)`;

/** `matchcast worker`: resolves with the exit code once the worker has shut down. */
export async function workerCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { help: { type: 'boolean', short: 'h' }, concurrency: { type: 'string', short: 'c' } },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const config = parseConfig();
  let concurrency = config.workerConcurrency;
  if (values.concurrency !== undefined) {
    concurrency = Number(values.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) {
      throw new MatchcastError('MC_ERR_CONFIG', 'Invalid option --concurrency: expected an integer 1..256');
    }
  }
  if (!config.redisUrl) {
    throw new MatchcastError(
      'MC_ERR_CONFIG',
      'Invalid setting REDIS_URL: `matchcast worker` needs Redis (embedded mode runs its workers inside `matchcast start`)',
    );
  }
  const log = createLogger(config.logLevel, 'matchcast-worker');
  const deps = createDefaultWorkerDeps(config, log);
  let worker: Awaited<ReturnType<typeof startWorker>>;
  try {
    worker = await startWorker(config, deps, { concurrency });
  } catch (err) {
    await deps.close?.().catch(() => undefined);
    const reason = err instanceof Error ? err.message : String(err);
    log.fatal({ err: reason }, 'worker failed to start');
    throw new MatchcastError('MC_ERR_CONFIG', `worker failed to start: ${reason}`);
  }
  return new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      log.info({ signal }, 'shutting down');
      worker.close().then(
        () => resolve(0),
        () => resolve(1),
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
}
