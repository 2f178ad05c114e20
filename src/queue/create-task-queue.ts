import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { createBullmqQueue } from './bullmq/producer.js';
import { createInProcessQueue } from './in-process/queue.js';
import type { TaskQueue } from './task-queue.js';

/** BullMQ on Redis when `REDIS_URL` is set, else the in-process queue on worker threads. */
export function createTaskQueue(config: Config, { log }: { log: Logger }): TaskQueue {
  if (config.redisUrl) return createBullmqQueue(config.redisUrl, { ...config, log });
  return createInProcessQueue(config, { log });
}
