// What the BullMQ producer and consumer share: connection options, and result replies and their channels.
import type { RedisOptions as BullRedisOptions } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import type { TaskFailure } from '../task-types.js';

/** What the reply channel of every API process starts with (a worker publishes to no other channel). */
export function replyChannelPrefix(queueName: string): string {
  return `matchcast:${queueName}:reply:`;
}

/** A task result a worker publishes on the job's `reply_to` channel. */
export interface TaskReply {
  id: string;
  ok: boolean;
  value?: unknown;
  failure?: TaskFailure;
}

/** Connection options shared by every connection we open: fail fast, reconnect in the background. */
export function redisOptions(extra: RedisOptions = {}): RedisOptions {
  return {
    connectTimeout: 500,
    retryStrategy: (times: number) => Math.min(times * 200, 2000),
    ...extra,
  };
}

/** Jobs of a job scheduler: the last 100 outcomes kept, none retried (the next firing runs again). */
export const SCHEDULED_JOB_OPTS = { removeOnComplete: 100, removeOnFail: 100, attempts: 1 };

/** Connection options for BullMQ classes that block (Worker): their own connection, opened from the URL. */
export function bullConnection(redisUrl: string): BullRedisOptions {
  return { url: redisUrl, ...redisOptions(), maxRetriesPerRequest: null } as BullRedisOptions;
}
