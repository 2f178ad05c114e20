// What the BullMQ producer (producer.ts) and consumer (consumer.ts) share: connection options, the
// reply and presence messages on Redis, and their keys.
import type { RedisOptions as BullRedisOptions } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import type { TaskFailure } from '../task-types.js';

/**
 * How workers announce themselves on Redis, so that `/monitoring/celery/*` can list them:
 * each worker refreshes a JSON record with a TTL and its score in a sorted set every
 * {@link HEARTBEAT_MS}, and answers pings on a pub/sub channel.
 */
export interface WorkerPresence {
  /** `<hostname>:<pid>:<random>`; unique per process. */
  worker: string;
  hostname: string;
  pid: number;
  queues: string[];
  concurrency: number;
  /** Tasks running now. */
  active: number;
  /** Tasks finished since start (success or failure). */
  processed: number;
  failed: number;
  /** ISO 8601 UTC. */
  started_at: string;
  /** Models loaded, per stage: `{champion: {version, run_id}}`. */
  models: Record<string, { version: string; run_id: string }>;
}

/** Heartbeat period of a worker, ms. */
export const HEARTBEAT_MS = 5000;
/** A worker whose last heartbeat is older than this is gone. */
export const PRESENCE_TTL_MS = 3 * HEARTBEAT_MS;

export function presenceKeys(queueName: string) {
  return {
    set: `matchcast:${queueName}:workers`,
    record: (worker: string) => `matchcast:${queueName}:worker:${worker}`,
    ping: `matchcast:${queueName}:ping`,
    pong: `matchcast:${queueName}:pong`,
    /** The result channel of one API process. */
    reply: (id: string) => `matchcast:${queueName}:reply:${id}`,
  };
}

/** A ping request on the ping channel; workers answer `{nonce, worker}` on the pong channel. */
export interface PingMessage {
  nonce: string;
}

export interface PongMessage {
  nonce: string;
  worker: string;
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

/** host/port/credentials of a `redis://` URL, for BullMQ classes that open their own connections. */
export function redisUrlOptions(redisUrl: string): RedisOptions {
  const u = new URL(redisUrl);
  const db = u.pathname.replace(/^\//, '');
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: db ? Number(db) : 0,
    tls: u.protocol === 'rediss:' ? {} : undefined,
  };
}

/** Connection options for BullMQ classes that block (QueueEvents, Worker): their own connection. */
export function bullConnection(redisUrl: string): BullRedisOptions {
  return { ...redisOptions(redisUrlOptions(redisUrl)), maxRetriesPerRequest: null } as BullRedisOptions;
}
