import { type Job, Queue, Worker } from 'bullmq';
import type { Logger } from '../../logger.js';
import { bullConnection, SCHEDULED_JOB_OPTS } from './protocol.js';

/** When the scheduled pipeline runs: a cron pattern (UTC) or a fixed interval in ms. */
export type SchedulerRepeat = { pattern: string } | { every: number };

interface PipelineSchedulerOptions {
  redisUrl: string;
  /** Queue of the scheduled runs (the caller's `<QUEUE_NAME>-pipeline`). */
  queueName: string;
  repeat: SchedulerRepeat;
  /** Runs one scheduled pipeline run; a rejection fails the job (logged, retried at the next firing). */
  run: (job: { id: string; firedAt: Date }) => Promise<unknown>;
  log: Logger;
}

/** The scheduler's id in Redis: one per queue, so every worker upserting it converges on one schedule. */
export const PIPELINE_SCHEDULER_ID = 'pipeline-run';

/**
 * `PIPELINE_SCHEDULE` in distributed mode: one job scheduler (every worker upserts it) feeding a queue of
 * global concurrency 1. An alternative to deploy/k8s/pipeline-cronjob.yaml; run one or the other.
 */
export async function startPipelineScheduler(
  options: PipelineSchedulerOptions,
): Promise<{ close(): Promise<void> }> {
  const { log } = options;
  const connection = bullConnection(options.redisUrl);
  const queue = new Queue(options.queueName, { connection, skipVersionCheck: true });
  await queue.setGlobalConcurrency(1);
  await queue.upsertJobScheduler(
    PIPELINE_SCHEDULER_ID,
    'pattern' in options.repeat
      ? { pattern: options.repeat.pattern, tz: 'UTC' }
      : { every: options.repeat.every },
    { name: 'pipeline-run', data: {}, opts: SCHEDULED_JOB_OPTS },
  );
  const worker = new Worker(
    options.queueName,
    async (job: Job) => {
      const firedAt = new Date(job.timestamp);
      log.info({ job: job.id, fired_at: firedAt.toISOString() }, 'scheduled pipeline run started');
      const started = performance.now();
      await options.run({ id: String(job.id), firedAt });
      log.info(
        { job: job.id, seconds: Math.round(performance.now() - started) / 1000 },
        'scheduled pipeline run done',
      );
    },
    {
      connection,
      concurrency: 1,
      // How long a worker holds a run's lock without renewing it before another may take the job
      // over: a pipeline run blocks the event loop during training, far beyond BullMQ's 30 s default.
      lockDuration: 15 * 60_000,
      skipVersionCheck: true,
    },
  );
  worker.on('failed', (job, err) =>
    log.error({ job: job?.id, err: err.message }, 'scheduled pipeline run failed'),
  );
  worker.on('error', (err) => log.warn({ err: err.message }, 'pipeline scheduler connection error'));
  return {
    async close() {
      // The schedule stays in Redis for the other workers; only this consumer stops.
      await Promise.allSettled([worker.close(), queue.close()]);
    },
  };
}
