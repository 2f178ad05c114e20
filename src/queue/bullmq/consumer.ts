import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import { MatchcastError, withTimeout } from '../../domain/index.js';
import type { Logger } from '../../logger.js';
import { expiredFailure, isExpiredPayload, isPermanentTaskError, toTaskFailure } from '../task-errors.js';
import type { TaskName, TaskRunner } from '../task-queue.js';
import { bullConnection, redisOptions, replyChannelPrefix, type TaskReply } from './protocol.js';

export interface StartWorkerOptions {
  /** Tasks run at once. Default `config.workerConcurrency`. */
  concurrency?: number;
  /** Called last when the worker has closed (e.g. to close the runtime's stores). Default none. */
  onClose?: () => Promise<void> | void;
}

export interface RunningWorker {
  readonly name: string;
  /** Stops taking jobs, lets running ones finish for at most `timeoutMs` (default config.shutdownTimeoutMs), closes. */
  close(timeoutMs?: number): Promise<void>;
}

/**
 * The BullMQ consumer: runs `ml` jobs with `runtime` (registry checked by the caller) and replies on the
 * producer's channel; listed by `/monitoring/celery/*` under `name`. Rejects when Redis cannot be reached.
 */
export async function startBullmqConsumer(
  config: Config,
  runtime: TaskRunner,
  log: Logger,
  options: StartWorkerOptions = {},
): Promise<RunningWorker> {
  if (!config.redisUrl)
    throw new Error('matchcast worker needs REDIS_URL (embedded mode runs workers in-process)');

  const name = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const concurrency = options.concurrency ?? config.workerConcurrency;
  const replyPrefix = replyChannelPrefix(config.queueName);

  const redis = new Redis(config.redisUrl, redisOptions({ maxRetriesPerRequest: 1 }));
  redis.on('error', () => undefined);
  const where = `Redis at ${safeUrl(config.redisUrl)}`;
  try {
    await withTimeout(redis.ping(), 3000, () => new Error(`${where} did not answer`));
  } catch (err) {
    redis.disconnect();
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`${where} cannot be reached: ${reason}`);
  }

  const reply = (replyTo: unknown, message: TaskReply) => {
    if (typeof replyTo !== 'string' || !replyTo.startsWith(replyPrefix)) return;
    redis.publish(replyTo, JSON.stringify(message)).catch(() => undefined);
  };
  const processor = async (job: Job) => {
    const replyTo = (job.data as { reply_to?: unknown } | undefined)?.reply_to;
    try {
      // A sync task whose caller has given up (deadline passed while it waited) is not run.
      const expiredAt = isExpiredPayload(job.data);
      if (expiredAt !== undefined)
        throw new MatchcastError('MC_ERR_TASK_EXPIRED', expiredFailure(expiredAt).error);
      const value = await runtime.run(job.name as TaskName, job.data);
      // The waiting API gets the result at once; BullMQ still stores it for task_status.
      reply(replyTo, { id: String(job.id), ok: true, value });
      return value;
    } catch (err) {
      const failure = toTaskFailure(err);
      reply(replyTo, { id: String(job.id), ok: false, failure });
      // BullMQ keeps only the message (`failedReason`) of a failed job.
      const reason = JSON.stringify(failure);
      // A missing match will be missing on every retry: fail for good.
      throw isPermanentTaskError(err) ? new UnrecoverableError(reason) : new Error(reason);
    }
  };

  const worker = new Worker(config.queueName, processor, {
    connection: bullConnection(config.redisUrl),
    concurrency,
    name,
    // A job whose worker died is retried after about lock + stalled interval.
    lockDuration: 10_000,
    stalledInterval: 5000,
    maxStalledCount: 1,
    skipVersionCheck: true,
  });
  worker.on('error', (err) => log.warn({ err: err.message }, 'worker connection error'));

  await worker.waitUntilReady();
  log.info({ worker: name, queue: config.queueName, concurrency }, 'worker started');

  let closing: Promise<void> | undefined;
  return {
    name,
    close(timeoutMs = config.shutdownTimeoutMs) {
      closing ??= (async () => {
        // Stop taking jobs and let running ones finish, but not forever.
        const finished = await Promise.race([
          worker.close().then(() => true),
          new Promise<boolean>((r) => setTimeout(() => r(false), timeoutMs).unref()),
        ]);
        if (!finished) {
          log.warn({ worker: name }, 'running tasks did not finish in time; handing them back');
          // worker.close(true) would only join the graceful close above, still waiting for them. Cutting
          // the connections lets their locks lapse instead: another worker takes them over (stalled check).
          await withTimeout(worker.disconnect(), 1000, () => new Error('disconnect timeout')).catch(
            () => undefined,
          );
        }
        redis.disconnect();
        await options.onClose?.();
        log.info({ worker: name }, 'worker stopped');
      })();
      return closing;
    },
  };
}

function safeUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}
