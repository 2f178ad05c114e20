import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { createInProcessQueue } from './in-process/queue.js';
import type { TaskQueue } from './task-queue.js';

/** BullMQ on Redis when `REDIS_URL` is set, else the in-process queue on worker threads. */
export async function createTaskQueue(config: Config, { log }: { log: Logger }): Promise<TaskQueue> {
  if (config.redisUrl) {
    // Loaded only here: an embedded process never pays for BullMQ and ioredis.
    const { createBullmqQueue } = await import('./bullmq/producer.js');
    return createBullmqQueue(config.redisUrl, { ...config, log });
  }
  return createInProcessQueue(config, { log });
}
