import { type Config, parseConfig } from '../config.js';
import { MatchcastError } from '../domain/index.js';
import { createLogger, type Logger } from '../logger.js';
import type { PipelineSchedule } from '../pipeline/index.js';
import { type SchedulerRepeat, startPipelineScheduler, startSourceScheduler } from '../queue/index.js';
import { createDefaultWorkerDeps, startWorker } from '../worker/index.js';
import { intOption, parseCliArgs, showHelp } from './usage-error.js';

function schedulerRepeat(s: PipelineSchedule): SchedulerRepeat {
  return s.kind === 'cron' ? { pattern: s.pattern } : { every: s.ms };
}

const HELP = `matchcast worker [--concurrency N] — an ml worker consuming the task queue

Runs the tasks predict_match and model_info from the BullMQ queue QUEUE_NAME (default ml) on REDIS_URL.
Loads each stage's model lazily through the registry (object store) and keeps the features parquet in
memory. Refuses to start when Redis or the registry cannot be reached. SIGTERM/SIGINT: stops taking
tasks, lets running ones finish (at most SHUTDOWN_TIMEOUT_MS), exits.

Options:
  --concurrency N   tasks run at once, 1..256 (default WORKER_CONCURRENCY, 4)`;

/** `matchcast worker`: resolves with the exit code once the worker has shut down. */
export async function workerCommand(argv: string[]): Promise<number> {
  const { values } = parseCliArgs(argv, { strings: ['concurrency'], short: { concurrency: 'c' } });
  if (values.help) return showHelp(HELP);
  const option = intOption('concurrency', values.concurrency, 1, 256);
  const config = parseConfig();
  if (!config.redisUrl) {
    throw new MatchcastError(
      'MC_ERR_CONFIG',
      'Invalid setting REDIS_URL: `matchcast worker` needs Redis (embedded mode runs its workers inside `matchcast start`)',
    );
  }
  const log = createLogger(config.logLevel, 'matchcast-worker');
  const deps = await createDefaultWorkerDeps(config, log);
  let worker: Awaited<ReturnType<typeof startWorker>>;
  try {
    worker = await startWorker(config, deps, { concurrency: option ?? config.workerConcurrency });
  } catch (err) {
    await deps.close?.().catch(() => undefined);
    const reason = err instanceof Error ? err.message : String(err);
    log.fatal({ err: reason }, 'worker failed to start');
    throw new MatchcastError('MC_ERR_CONFIG', `worker failed to start: ${reason}`);
  }
  // PIPELINE_SCHEDULE: the scheduled `pipeline run` as a BullMQ job scheduler, one run at a time
  // across the cluster (docs/operations.md); the Kubernetes CronJob is the alternative.
  const scheduler = config.pipelineSchedule
    ? await startPipelineScheduler({
        redisUrl: config.redisUrl,
        queueName: `${config.queueName}-pipeline`,
        // The pipeline module is loaded only when this worker also runs the schedule.
        repeat: schedulerRepeat(
          (await import('../pipeline/index.js')).parseSchedule(config.pipelineSchedule),
        ),
        log,
        run: async () => {
          const { pipelineCommand } = await import('./pipeline.js');
          const argv = ['run', ...(config.pipelineSource ? ['--source', config.pipelineSource] : [])];
          const code = await pipelineCommand(argv);
          if (code !== 0) throw new Error(`pipeline run exited with ${code}`);
        },
      })
    : null;
  // SOURCE_POLLING: each configured source polled on its period by whichever worker takes the job.
  const sources = config.sourcePolling ? await startWorkerSources(config, log) : null;
  return new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      log.info({ signal }, 'shutting down');
      void scheduler?.close();
      void sources?.close();
      worker.close().then(
        () => resolve(0),
        () => resolve(1),
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
}

/** The source schedulers of a worker; the database is opened only when this worker polls sources. */
async function startWorkerSources(config: Config, log: Logger): Promise<{ close(): Promise<void> }> {
  const { openDatabase } = await import('../db/index.js');
  const { SourcesRepository } = await import('../sources/index.js');
  const db = await openDatabase(config);
  const scheduler = await startSourceScheduler({
    redisUrl: config.redisUrl as string,
    queueName: `${config.queueName}-sources`,
    log,
    sources: async () =>
      (await new SourcesRepository(db).list()).map((s) => ({ name: s.name, everyMs: s.everyMs })),
    poll: async (name) => {
      const { sourcesCommand } = await import('./sources.js');
      const code = await sourcesCommand(['poll', name], { config });
      if (code !== 0) throw new Error(`sources poll ${name} exited with ${code}`);
    },
  });
  return {
    async close() {
      await scheduler.close();
      await db.close().catch(() => undefined);
    },
  };
}
