import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { createBullmqQueue } from './bullmq/producer.js';
import { createInProcessQueue } from './in-process/queue.js';
import type { TaskQueue } from './task-queue.js';

/** Dependencies of {@link createTaskQueue}. */
interface TaskQueueDeps {
  log: Logger;
  /**
   * Embedded mode only: the module each worker thread runs. Default `src/worker/thread-entry.ts`
   * (kept as a path, not an import, so the queue does not depend on the worker).
   */
  threadEntry?: URL;
}

/** BullMQ on Redis when `REDIS_URL` is set, else the in-process queue on worker threads. */
export function createTaskQueue(config: Config, deps: TaskQueueDeps): TaskQueue {
  if (config.redisUrl)
    return createBullmqQueue(config.redisUrl, {
      queueName: config.queueName,
      log: deps.log,
      callTimeoutMs: config.brokerTimeoutMs,
      keepJobsSeconds: config.resultTtl,
      keepJobsCount: config.resultStoreMax,
      maxWaiting: config.queueMaxWaiting,
    });
  return createInProcessQueue(config, { log: deps.log, entry: deps.threadEntry });
}
