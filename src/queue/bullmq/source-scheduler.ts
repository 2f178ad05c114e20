import { type Job, Queue, Worker } from 'bullmq';
import type { Logger } from '../../logger.js';
import { bullConnection, SCHEDULED_JOB_OPTS } from './protocol.js';

interface SourceSchedulerOptions {
  redisUrl: string;
  queueName: string;
  /** The configured sources and their periods (read again every `syncMs`). */
  sources: () => Promise<{ name: string; everyMs: number }[]>;
  /** Polls one source; a rejection fails the job (logged; the next firing polls again). */
  poll: (name: string) => Promise<unknown>;
  log: Logger;
  /** How often the schedulers are brought in line with the configured sources, ms. Default 60 s. */
  syncMs?: number;
}

const PREFIX = 'source:';

/**
 * The sources' schedules in distributed mode: one idempotent job scheduler per row of `sources` (removed
 * with it); a poll holds its source's lease in the database, so it runs once at a time in the cluster.
 */
export async function startSourceScheduler(
  options: SourceSchedulerOptions,
): Promise<{ close(): Promise<void> }> {
  const { log } = options;
  const connection = bullConnection(options.redisUrl);
  const queue = new Queue(options.queueName, { connection, skipVersionCheck: true });
  const sync = async () => {
    const wanted = await options.sources();
    const names = new Set(wanted.map((s) => `${PREFIX}${s.name}`));
    for (const s of wanted)
      await queue.upsertJobScheduler(
        `${PREFIX}${s.name}`,
        { every: s.everyMs },
        { name: 'source-poll', data: { source: s.name }, opts: SCHEDULED_JOB_OPTS },
      );
    for (const s of await queue.getJobSchedulers())
      if (s.key.startsWith(PREFIX) && !names.has(s.key)) await queue.removeJobScheduler(s.key);
  };
  await sync();
  const timer = setInterval(() => {
    sync().catch((err: unknown) => log.warn({ err: (err as Error).message }, 'source schedulers not synced'));
  }, options.syncMs ?? 60_000).unref();
  const worker = new Worker(
    options.queueName,
    async (job: Job<{ source: string }>) => {
      await options.poll(job.data.source);
    },
    { connection, concurrency: 1, skipVersionCheck: true },
  );
  worker.on('failed', (job, err) =>
    log.error({ job: job?.id, err: err.message }, 'scheduled source poll failed'),
  );
  worker.on('error', (err) => log.warn({ err: err.message }, 'source scheduler connection error'));
  return {
    async close() {
      clearInterval(timer);
      await Promise.allSettled([worker.close(), queue.close()]);
    },
  };
}
