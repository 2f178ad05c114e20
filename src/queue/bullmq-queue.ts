import { randomUUID } from 'node:crypto';
import { type RedisOptions as BullRedisOptions, Job, Queue } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { MatchcastError } from '../domain/index.js';
import type { Logger } from '../logger.js';
import { decodeTaskFailure, withTimeout } from './task-errors.js';
import type {
  ModelInfoPayload,
  PredictMatchPayload,
  TaskName,
  TaskQueue,
  TaskStatus,
  WorkerInfo,
  WorkerTaskCounts,
} from './task-queue.js';
import { type TaskOutcome, TaskWaiters } from './waiters.js';
import {
  type PongMessage,
  PRESENCE_TTL_MS,
  presenceKeys,
  type TaskReply,
  type WorkerPresence,
} from './worker-presence.js';

/** Options of {@link createBullmqQueue}. */
export interface BullmqQueueOptions {
  /** Queue name. Default `ml`. */
  queueName?: string;
  log?: Logger;
  /** Bound on one broker call made for a request (add, status, counts), ms. Default `500`. */
  callTimeoutMs?: number;
  /** Completed/failed jobs are kept this long for task_status, seconds. Default `3600`. */
  keepJobsSeconds?: number;
  /** …and at most this many of each. Default `10000`. */
  keepJobsCount?: number;
  /** How long `workers()` waits for ping answers, ms. Default `500`. */
  pingTimeoutMs?: number;
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

function unavailable(cause?: unknown): MatchcastError {
  return new MatchcastError('MC_ERR_BROKER_UNAVAILABLE', 'Task broker is unavailable', { cause });
}

/**
 * The BullMQ adapter of the task queue. The producer connection has `enableOfflineQueue: false`, so
 * with Redis down a call fails in about a millisecond instead of hanging for minutes (LIBRARY-NOTES);
 * every call is bounded anyway. Results come back on one reply channel per process.
 */
export function createBullmqQueue(redisUrl: string, options: BullmqQueueOptions = {}): TaskQueue {
  const queueName = options.queueName ?? 'ml';
  const log = options.log;
  const callTimeoutMs = options.callTimeoutMs ?? 500;
  const keep = { age: options.keepJobsSeconds ?? 3600, count: options.keepJobsCount ?? 10_000 };
  const keys = presenceKeys(queueName);

  const producer = new Redis(redisUrl, redisOptions({ enableOfflineQueue: false, maxRetriesPerRequest: 1 }));
  producer.setMaxListeners(0);
  let lastError = '';
  producer.on('error', (err: Error) => {
    if (err.message !== lastError) log?.warn({ err: err.message }, 'task broker connection error');
    lastError = err.message;
  });
  producer.on('ready', () => {
    lastError = '';
  });

  const queue = new Queue(queueName, { connection: producer, skipVersionCheck: true });
  queue.on('error', () => undefined);

  // Results come back on a pub/sub channel of this process (the worker publishes each result to the
  // job's `reply_to`), so the API parses only its own results instead of every event of the queue;
  // polling in `wait` covers a reply lost while the subscriber reconnects. The subscriber is created
  // only once Redis has answered, so a queue whose Redis never came up still closes at once.
  const replyChannel = presenceKeys(queueName).reply(randomUUID());
  let sub: Redis | undefined;
  let closed = false;
  const startReplies = () => {
    if (sub || closed) return;
    sub = producer.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    sub.on('error', () => undefined);
    sub.on('message', (_channel: string, message: string) => {
      const reply = safeParse(message) as TaskReply | undefined;
      if (!reply || typeof reply.id !== 'string') return;
      waiters.settle(
        reply.id,
        reply.ok
          ? { ok: true, value: reply.value }
          : { ok: false, failure: reply.failure ?? decodeTaskFailure(undefined) },
      );
    });
    sub.subscribe(replyChannel).catch(() => undefined);
  };
  producer.on('ready', startReplies);
  if (producer.status === 'ready') startReplies();

  const waiters = new TaskWaiters();
  const isUp = () => producer.status === 'ready';
  const bounded = <T>(p: Promise<T>): Promise<T> =>
    withTimeout(p, callTimeoutMs, () => unavailable('timeout'));

  /** State first, then the job: a job read while active would miss the result it gets a moment later. */
  async function readJob(taskId: string): Promise<{ state: string; job: Job | undefined }> {
    const state = await queue.getJobState(taskId);
    if (state !== 'completed' && state !== 'failed') return { state, job: undefined };
    const job = await Job.fromId(queue, taskId);
    return job ? { state, job } : { state: 'unknown', job: undefined };
  }

  async function pollOutcome(taskId: string): Promise<TaskOutcome | undefined> {
    if (!isUp()) return undefined;
    const { state, job } = await bounded(readJob(taskId));
    if (!job) return undefined;
    if (state === 'completed') return { ok: true, value: job.returnvalue };
    if (state === 'failed') return { ok: false, failure: decodeTaskFailure(job.failedReason) };
    return undefined;
  }

  async function presence(): Promise<WorkerPresence[]> {
    const now = Date.now();
    await producer.zremrangebyscore(keys.set, '-inf', now - PRESENCE_TTL_MS);
    const names = await producer.zrangebyscore(keys.set, now - PRESENCE_TTL_MS, '+inf');
    if (names.length === 0) return [];
    const raw = await producer.mget(...names.map(keys.record));
    return raw.filter((r): r is string => r !== null).map((r) => JSON.parse(r) as WorkerPresence);
  }

  /** Publishes one ping and collects answers for up to `pingTimeoutMs` (or until all expected answered). */
  async function ping(expected: Set<string>): Promise<Map<string, number>> {
    const latencies = new Map<string, number>();
    if (expected.size === 0) return latencies;
    const sub = producer.duplicate({ enableOfflineQueue: true, lazyConnect: true });
    sub.on('error', () => undefined);
    const nonce = randomUUID();
    try {
      await withTimeout(sub.connect(), callTimeoutMs, () => unavailable('timeout'));
      await withTimeout(sub.subscribe(keys.pong), callTimeoutMs, () => unavailable('timeout'));
      const start = performance.now();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pingTimeoutMs ?? 500);
        sub.on('message', (_channel: string, message: string) => {
          const pong = safeParse(message) as PongMessage | undefined;
          if (!pong || pong.nonce !== nonce) return;
          latencies.set(pong.worker, Math.round((performance.now() - start) * 100) / 100);
          if ([...expected].every((w) => latencies.has(w))) {
            clearTimeout(timer);
            resolve();
          }
        });
        producer.publish(keys.ping, JSON.stringify({ nonce })).catch(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    } finally {
      sub.disconnect();
    }
    return latencies;
  }

  return {
    kind: 'bullmq',
    async submit(name: TaskName, payload: PredictMatchPayload | ModelInfoPayload): Promise<string> {
      if (!isUp()) throw unavailable(lastError || producer.status);
      const jobId = randomUUID();
      waiters.track(jobId);
      try {
        await bounded(
          queue.add(
            name,
            { ...payload, reply_to: replyChannel },
            {
              jobId,
              attempts: 1,
              removeOnComplete: keep,
              removeOnFail: keep,
            },
          ),
        );
      } catch (err) {
        throw err instanceof MatchcastError ? err : unavailable(err);
      }
      return jobId;
    },
    wait<T>(taskId: string, timeoutMs: number): Promise<T> {
      return waiters.wait<T>(taskId, timeoutMs, () => pollOutcome(taskId));
    },
    async status(taskId: string): Promise<TaskStatus> {
      if (!isUp()) throw unavailable(lastError || producer.status);
      const { state, job } = await bounded(readJob(taskId)).catch((err) => {
        throw err instanceof MatchcastError ? err : unavailable(err);
      });
      if (state === 'active') return { task_id: taskId, status: 'STARTED', result: null };
      if (state === 'completed' && job)
        return { task_id: taskId, status: 'SUCCESS', result: job.returnvalue ?? null };
      if (state === 'failed' && job)
        return { task_id: taskId, status: 'FAILURE', result: decodeTaskFailure(job.failedReason) };
      return { task_id: taskId, status: 'pending', result: null };
    },
    async queueStats() {
      if (!isUp()) throw unavailable(lastError || producer.status);
      try {
        const [counts, workers] = await bounded(Promise.all([queue.getJobCounts(), presence()]));
        const perWorker: WorkerTaskCounts[] = workers.map((w) => ({
          worker: w.worker,
          active: w.active,
          // BullMQ has no per-worker ETA tasks and fetches a job only when a slot is free.
          scheduled: 0,
          reserved: 0,
        }));
        return { queue: queueName, counts: counts as Record<string, number>, workers: perWorker };
      } catch (err) {
        throw err instanceof MatchcastError ? err : unavailable(err);
      }
    },
    async workers(): Promise<WorkerInfo[]> {
      if (!isUp()) throw unavailable(lastError || producer.status);
      let list: WorkerPresence[];
      try {
        list = await bounded(presence());
      } catch (err) {
        throw err instanceof MatchcastError ? err : unavailable(err);
      }
      const latencies = await ping(new Set(list.map((w) => w.worker))).catch(() => new Map<string, number>());
      return list.map((w) => ({
        worker: w.worker,
        queues: w.queues,
        ping: { ok: latencies.has(w.worker), latency_ms: latencies.get(w.worker) ?? null },
        pid: w.pid,
        hostname: w.hostname,
        concurrency: w.concurrency,
        active: w.active,
        processed: w.processed,
        failed: w.failed,
        started_at: w.started_at,
        models: w.models,
      }));
    },
    async ready(timeoutMs: number): Promise<boolean> {
      if (!isUp()) return false;
      try {
        await withTimeout(producer.ping(), timeoutMs, () => unavailable('timeout'));
        return true;
      } catch {
        return false;
      }
    },
    async close(): Promise<void> {
      closed = true;
      waiters.close();
      // close() waits for a connection that may be gone: bound it, then cut the socket.
      sub?.disconnect();
      await withTimeout(Promise.allSettled([queue.close()]), 1000, () => new Error('close timeout')).catch(
        () => undefined,
      );
      producer.disconnect();
    },
  };
}

function safeParse(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
