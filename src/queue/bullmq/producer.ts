import { randomUUID } from 'node:crypto';
import { Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { MatchcastError } from '../../domain/index.js';
import type { Logger } from '../../logger.js';
import { decodeTaskFailure, queueFull, withTimeout } from '../task-errors.js';
import type {
  ModelInfoPayload,
  PredictMatchPayload,
  ResultStoreUsage,
  SubmitOptions,
  TaskName,
  TaskQueue,
  TaskState,
  TaskStatus,
  WorkerInfo,
  WorkerTaskCounts,
} from '../task-queue.js';
import { type TaskOutcome, TaskWaiters } from '../waiters.js';
import {
  type PongMessage,
  PRESENCE_TTL_MS,
  presenceKeys,
  redisOptions,
  type TaskReply,
  type WorkerPresence,
} from './protocol.js';

/** Options of {@link createBullmqQueue}. */
export interface BullmqQueueOptions {
  /** Queue name. Default `ml`. */
  queueName?: string;
  log?: Logger;
  /** Bound on one broker call made for a request (add, status, counts), ms. Default `500`. */
  callTimeoutMs?: number;
  /** Completed/failed jobs are kept this long for task_status, seconds (config.resultTtl). Default `86400`. */
  keepJobsSeconds?: number;
  /**
   * …within a memory cap of this many of each (config.resultStoreMax): only a flood beyond the budget
   * trims results younger than the TTL. Default `100000` (≈ 250 MB of Redis at ≈ 2.5 KB a result).
   */
  keepJobsCount?: number;
  /** Waiting tasks accepted; beyond it `submit` throws MC_ERR_QUEUE_FULL (config.queueMaxWaiting). Default `10000`. */
  maxWaiting?: number;
  /** How long `workers()` waits for ping answers, ms. Default `500`. */
  pingTimeoutMs?: number;
  /**
   * `workers()` and `queueStats()` answers are shared by every caller for this long, ms: a flood of
   * monitoring calls costs one round of broker calls per period. Default `1000`.
   */
  monitorCacheMs?: number;
}

function unavailable(cause?: unknown): MatchcastError {
  return new MatchcastError('MC_ERR_BROKER_UNAVAILABLE', 'Task broker is unavailable', { cause });
}

/**
 * The BullMQ adapter of the task queue. The producer connection has `enableOfflineQueue: false`, so
 * with Redis down a call fails in about a millisecond instead of hanging for minutes;
 * every call is bounded anyway. Results come back on one reply channel per process.
 */
export function createBullmqQueue(redisUrl: string, options: BullmqQueueOptions = {}): TaskQueue {
  const queueName = options.queueName ?? 'ml';
  const log = options.log;
  const callTimeoutMs = options.callTimeoutMs ?? 500;
  const keep = { age: options.keepJobsSeconds ?? 86_400, count: options.keepJobsCount ?? 100_000 };
  const maxWaiting = options.maxWaiting ?? 10_000;
  const monitorCacheMs = options.monitorCacheMs ?? 1000;
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
    sub.on('message', (channel: string, message: string) => {
      if (channel === keys.pong) {
        const pong = safeParse(message) as PongMessage | undefined;
        if (pong && typeof pong.nonce === 'string') pongs.get(pong.nonce)?.(pong);
        return;
      }
      const reply = safeParse(message) as TaskReply | undefined;
      if (!reply || typeof reply.id !== 'string') return;
      waiters.settle(
        reply.id,
        reply.ok
          ? { ok: true, value: reply.value }
          : { ok: false, failure: reply.failure ?? decodeTaskFailure(undefined) },
      );
    });
    sub.subscribe(replyChannel, keys.pong).catch(() => undefined);
  };
  // Pong collectors of the pings in flight, by nonce (answers arrive on the shared subscriber above).
  const pongs = new Map<string, (pong: PongMessage) => void>();
  producer.on('ready', startReplies);
  if (producer.status === 'ready') startReplies();

  const waiters = new TaskWaiters();
  const isUp = () => producer.status === 'ready';
  const bounded = <T>(p: Promise<T>): Promise<T> =>
    withTimeout(p, callTimeoutMs, () => unavailable('timeout'));

  /**
   * State first, then the job: a job read while active would miss the result it gets a moment later.
   * A result that finished more than `keepJobsSeconds` ago reads as `unknown`: BullMQ removes old
   * finished jobs only when a later job finishes, so without this check a result outlived its
   * RESULT_TTL for as long as the queue stayed idle.
   */
  async function readJob(taskId: string): Promise<{ state: string; job: Job | undefined }> {
    const state = await queue.getJobState(taskId);
    if (state !== 'completed' && state !== 'failed') return { state, job: undefined };
    const job = await Job.fromId(queue, taskId);
    if (!job || resultExpired(job.finishedOn, keep.age * 1000)) return { state: 'unknown', job: undefined };
    return { state, job };
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

  /**
   * Publishes one ping and collects answers for up to `pingTimeoutMs` (or until all expected answered),
   * on the process's one subscriber: no connection is opened per call.
   */
  async function ping(expected: Set<string>): Promise<Map<string, number>> {
    const latencies = new Map<string, number>();
    if (expected.size === 0 || sub?.status !== 'ready') return latencies;
    const nonce = randomUUID();
    const start = performance.now();
    try {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pingTimeoutMs ?? 500);
        pongs.set(nonce, (pong) => {
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
      pongs.delete(nonce);
    }
    return latencies;
  }

  /** Waiting tasks, read from Redis at most every 250 ms and counted up locally between reads. */
  let waitingSeen = { count: 0, at: Number.NEGATIVE_INFINITY };
  let waitingRead: Promise<void> | null = null;
  async function waitingCount(): Promise<number> {
    if (Date.now() - waitingSeen.at > 250) {
      waitingRead ??= bounded(queue.count())
        .then((count) => {
          waitingSeen = { count, at: Date.now() };
        })
        .finally(() => {
          waitingRead = null;
        });
      await waitingRead;
    }
    return waitingSeen.count;
  }

  const workersCache = sharedFor<WorkerInfo[]>(monitorCacheMs);
  const statsCache = sharedFor<Awaited<ReturnType<TaskQueue['queueStats']>>>(monitorCacheMs);

  async function readWorkers(): Promise<WorkerInfo[]> {
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
  }

  return {
    kind: 'bullmq',
    async submit(
      name: TaskName,
      payload: PredictMatchPayload | ModelInfoPayload,
      submitOptions: SubmitOptions = {},
    ): Promise<string> {
      if (!isUp()) throw unavailable(lastError || producer.status);
      const waiting = await waitingCount().catch((err) => {
        throw err instanceof MatchcastError ? err : unavailable(err);
      });
      if (waiting >= maxWaiting) throw queueFull(waiting, maxWaiting);
      const jobId = randomUUID();
      waiters.track(jobId, name, { awaited: submitOptions.awaited });
      const data =
        submitOptions.expiresAt === undefined
          ? { ...payload, reply_to: replyChannel }
          : { ...payload, reply_to: replyChannel, expires_at: submitOptions.expiresAt };
      try {
        await bounded(
          queue.add(name, data, {
            jobId,
            attempts: 1,
            removeOnComplete: keep,
            removeOnFail: keep,
          }),
        );
      } catch (err) {
        throw err instanceof MatchcastError ? err : unavailable(err);
      }
      waitingSeen.count++;
      return jobId;
    },
    onOutcome: (listener) => waiters.onOutcome(listener),
    async usage(): Promise<ResultStoreUsage> {
      if (!isUp()) throw unavailable(lastError || producer.status);
      try {
        // BullMQ trims results by age only when a later job finishes: an idle queue would keep (and
        // count) results past RESULT_TTL. Each sample removes up to 1,000 of each kind first.
        await bounded(
          Promise.all([
            queue.clean(keep.age * 1000, 1000, 'completed'),
            queue.clean(keep.age * 1000, 1000, 'failed'),
          ]),
        );
        const [counts, info] = await bounded(
          Promise.all([
            queue.getJobCounts('completed', 'failed', 'waiting', 'prioritized', 'delayed'),
            producer.info('memory'),
          ]),
        );
        const used = /^used_memory:(\d+)/m.exec(info);
        return {
          results: (counts.completed ?? 0) + (counts.failed ?? 0),
          waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0),
          brokerMemoryBytes: used ? Number(used[1]) : null,
        };
      } catch (err) {
        throw err instanceof MatchcastError ? err : unavailable(err);
      }
    },
    wait<T>(taskId: string, timeoutMs: number): Promise<T> {
      return waiters.wait<T>(taskId, timeoutMs, () => pollOutcome(taskId));
    },
    async status(taskId: string): Promise<TaskStatus> {
      if (!isUp()) throw unavailable(lastError || producer.status);
      const { state, job } = await bounded(readJob(taskId)).catch((err) => {
        throw err instanceof MatchcastError ? err : unavailable(err);
      });
      if (state === 'active') return { task_id: taskId, status: 'STARTED', result: null, state: 'active' };
      if (state === 'completed' && job)
        return { task_id: taskId, status: 'SUCCESS', result: job.returnvalue ?? null, state: 'completed' };
      if (state === 'failed' && job)
        return {
          task_id: taskId,
          status: 'FAILURE',
          result: decodeTaskFailure(job.failedReason),
          state: 'failed',
        };
      // waiting, delayed, prioritized → queued; 'unknown' → never submitted, or removed after RESULT_TTL.
      const where: TaskState = state === 'unknown' || !state ? 'unknown' : 'waiting';
      return { task_id: taskId, status: 'pending', result: null, state: where };
    },
    queueStats() {
      if (!isUp()) return Promise.reject(unavailable(lastError || producer.status));
      return statsCache(async () => {
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
      });
    },
    workers(): Promise<WorkerInfo[]> {
      if (!isUp()) return Promise.reject(unavailable(lastError || producer.status));
      return workersCache(() => readWorkers());
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

/**
 * One answer shared by every caller for `ttlMs` (and one call in flight at a time): a flood of
 * monitoring requests costs one round of broker calls per period. A failure is not cached.
 */
export function sharedFor<T>(ttlMs: number): (load: () => Promise<T>) => Promise<T> {
  let cached: { value: T; at: number } | undefined;
  let inflight: Promise<T> | undefined;
  return (load) => {
    if (cached && Date.now() - cached.at < ttlMs) return Promise.resolve(cached.value);
    inflight ??= load()
      .then((value) => {
        cached = { value, at: Date.now() };
        return value;
      })
      .finally(() => {
        inflight = undefined;
      });
    return inflight;
  };
}

/**
 * Whether a result that finished at `finishedOn` (Unix ms, the worker's clock) is older than `ttlMs`
 * now: expiry by age is exact from the outside, whatever the broker has trimmed yet. A job with no
 * finish time is not expired.
 */
export function resultExpired(finishedOn: number | undefined, ttlMs: number, now = Date.now()): boolean {
  return typeof finishedOn === 'number' && Number.isFinite(finishedOn) && now - finishedOn > ttlMs;
}

function safeParse(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
