import { randomUUID } from 'node:crypto';
import { Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Config } from '../../config.js';
import { MatchcastError, withTimeout } from '../../domain/index.js';
import type { Logger } from '../../logger.js';
import { decodeTaskFailure, queueFull } from '../task-errors.js';
import { type TaskOutcome, type TaskQueue, taskStatus, type WorkerInfo } from '../task-queue.js';
import { TaskWaiters } from '../waiters.js';
import { redisOptions, replyChannelPrefix, type TaskReply } from './protocol.js';

/** The settings the producer reads (defaults: those of `src/config.ts`), and its logger. */
type BullmqQueueOptions = Partial<
  Pick<Config, 'queueName' | 'brokerTimeoutMs' | 'resultTtl' | 'resultStoreMax' | 'queueMaxWaiting'>
> & { log?: Logger };

/** `workers()` and `queueStats()` answers are shared by every caller for this long, ms. */
const MONITOR_CACHE_MS = 1000;
/** Kept results read to tell which models the connected workers hold. */
const RECENT_RESULTS = 100;

function unavailable(cause?: unknown): MatchcastError {
  return new MatchcastError('MC_ERR_BROKER_UNAVAILABLE', 'Task broker is unavailable', { cause });
}

/**
 * The BullMQ adapter of the task queue. `enableOfflineQueue: false` makes a call fail at once with Redis
 * down instead of hanging (every call is bounded anyway). Results come back on one channel per process.
 */
export function createBullmqQueue(redisUrl: string, options: BullmqQueueOptions = {}): TaskQueue {
  const { log, queueName = 'ml' } = options;
  const callTimeoutMs = options.brokerTimeoutMs ?? 2000;
  // Kept for task_status; only a flood beyond the count (100k ≈ 250 MB of Redis) trims younger results.
  const keep = { age: options.resultTtl ?? 86_400, count: options.resultStoreMax ?? 100_000 };
  const maxWaiting = options.queueMaxWaiting ?? 10_000;

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

  // Workers publish to the job's `reply_to`, so the API parses only its own results (`wait` polls for a
  // reply lost in a reconnect); subscribed once Redis answers, so a queue never connected closes at once.
  const replyChannel = `${replyChannelPrefix(queueName)}${randomUUID()}`;
  let sub: Redis | undefined;
  let closed = false;
  const startReplies = () => {
    if (sub || closed) return;
    sub = producer.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    sub.on('error', () => undefined);
    sub.on('message', (_channel: string, message: string) => {
      let reply: TaskReply | undefined;
      try {
        reply = JSON.parse(message);
      } catch {
        return;
      }
      if (typeof reply?.id !== 'string') return;
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
  const assertUp = () => {
    if (!isUp()) throw unavailable(lastError || producer.status);
  };
  /** One broker call: bounded in time, any failure of the broker an MC_ERR_BROKER_UNAVAILABLE. */
  const bounded = <T>(p: Promise<T>): Promise<T> =>
    withTimeout(p, callTimeoutMs, () => unavailable('timeout')).catch((err) => {
      throw err instanceof MatchcastError ? err : unavailable(err);
    });

  // State first, then the job: a job read while active would miss the result it gets a moment later. A
  // result older than RESULT_TTL is `unknown`: BullMQ removes old jobs only when a later one finishes.
  async function readJob(taskId: string): Promise<{ state: string; job: Job | undefined }> {
    const state = await queue.getJobState(taskId);
    if (state !== 'completed' && state !== 'failed') return { state, job: undefined };
    const job = await Job.fromId(queue, taskId);
    const expired = typeof job?.finishedOn === 'number' && Date.now() - job.finishedOn > keep.age * 1000;
    if (!job || expired) return { state: 'unknown', job: undefined };
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

  // Waiting tasks, read at most every 250 ms and counted up locally between reads: one holder updated in
  // place, so a submit's bump lands on the newest count even when a read ends during its add.
  const waiting = { count: 0 };
  const waitingCache = sharedFor<typeof waiting>(250);
  const waitingCount = () =>
    waitingCache(async () => {
      waiting.count = await bounded(queue.count());
      return waiting;
    });
  const workersCache = sharedFor<WorkerInfo[]>(MONITOR_CACHE_MS);
  const statsCache = sharedFor<Awaited<ReturnType<TaskQueue['queueStats']>>>(MONITOR_CACHE_MS);

  // The workers connected to the queue (`getWorkers`), with their active jobs and the models their latest
  // kept results show loaded (workers load lazily: a model a worker holds is one it has answered with).
  async function readWorkers(): Promise<WorkerInfo[]> {
    const [clients, active, recent] = await bounded(
      Promise.all([queue.getWorkers(), queue.getActive(0, 999), queue.getCompleted(0, RECENT_RESULTS - 1)]),
    );
    return workerNames(clients).map((worker) => ({
      worker,
      queues: [queueName],
      // Listed = connected to the broker; no per-worker round trip is measured.
      ping: { ok: true, latency_ms: null },
      ...hostAndPid(worker),
      active: activeOn(active, worker),
      models: modelsShownBy(recent, worker),
    }));
  }

  return {
    kind: 'bullmq',
    async submit(name, payload, submitOptions = {}) {
      assertUp();
      const { count } = await waitingCount();
      if (count >= maxWaiting) throw queueFull(count, maxWaiting);
      const jobId = randomUUID();
      waiters.track(jobId, name, { awaited: submitOptions.awaited });
      // An undefined `expires_at` is left out of the job's JSON.
      const data = { ...payload, reply_to: replyChannel, expires_at: submitOptions.expiresAt };
      await bounded(
        queue.add(name, data, { jobId, attempts: 1, removeOnComplete: keep, removeOnFail: keep }),
      );
      waiting.count++;
      return jobId;
    },
    onOutcome: (listener) => waiters.onOutcome(listener),
    async usage() {
      assertUp();
      // BullMQ trims by age only when a later job finishes: remove up to 1,000 expired of each kind first.
      const kinds = ['completed', 'failed'] as const;
      await bounded(Promise.all(kinds.map((kind) => queue.clean(keep.age * 1000, 1000, kind))));
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
    },
    wait(taskId, timeoutMs) {
      return waiters.wait(taskId, timeoutMs, () => pollOutcome(taskId));
    },
    async status(taskId) {
      assertUp();
      const { state, job } = await bounded(readJob(taskId));
      if (state === 'active') return taskStatus(taskId, 'active');
      if (state === 'completed' && job) return taskStatus(taskId, state, job.returnvalue ?? null);
      if (state === 'failed' && job) return taskStatus(taskId, state, decodeTaskFailure(job.failedReason));
      // waiting, delayed, prioritized → queued; 'unknown' → never submitted, or removed after RESULT_TTL.
      return taskStatus(taskId, state === 'unknown' || !state ? 'unknown' : 'waiting');
    },
    async queueStats() {
      assertUp();
      return statsCache(async () => {
        const [counts, clients, active] = await bounded(
          Promise.all([queue.getJobCounts(), queue.getWorkers(), queue.getActive(0, 999)]),
        );
        const workers = workerNames(clients).map((worker) => ({
          worker,
          active: activeOn(active, worker),
          // BullMQ has no per-worker ETA tasks and fetches a job only when a slot is free.
          scheduled: 0,
          reserved: 0,
        }));
        return { queue: queueName, counts: counts as Record<string, number>, workers };
      });
    },
    async workers() {
      assertUp();
      return workersCache(readWorkers);
    },
    async ready(timeoutMs) {
      if (!isUp()) return false;
      return withTimeout(producer.ping(), timeoutMs, () => unavailable('timeout')).then(
        () => true,
        () => false,
      );
    },
    async close() {
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

/** One answer shared by every caller for `ttlMs`, one call in flight at a time; a failure is not cached. */
function sharedFor<T>(ttlMs: number): (load: () => Promise<T>) => Promise<T> {
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

/** Worker names from BullMQ's connection names (`<prefix>:<queue>:w:<name>`), else their address. */
function workerNames(clients: Record<string, string>[]): string[] {
  const names = clients.flatMap((c) => {
    const at = c.rawname?.indexOf(':w:') ?? -1;
    return at >= 0 ? [c.rawname!.slice(at + 3)] : c.rawname && c.addr ? [c.addr] : [];
  });
  return [...new Set(names)].sort();
}

function activeOn(active: (Job | undefined)[], worker: string): number {
  return active.filter((job) => job?.processedBy === worker).length;
}

/** `hostname` and `pid` of a worker named as the consumer names it (`<hostname>:<pid>:<hex>`). */
function hostAndPid(worker: string): { hostname?: string; pid?: number } {
  const m = /^(.+):(\d+):[0-9a-f]+$/.exec(worker);
  return m ? { hostname: m[1], pid: Number(m[2]) } : {};
}

/** The model per stage of `worker`'s newest `predict_match` / `model_info` results among `jobs`. */
function modelsShownBy(
  jobs: (Job | undefined)[],
  worker: string,
): Record<string, { version: string; run_id: string }> {
  const models: Record<string, { version: string; run_id: string }> = {};
  for (const job of jobs) {
    if (job?.processedBy !== worker || (job.name !== 'predict_match' && job.name !== 'model_info')) continue;
    const model = (job.returnvalue as { model?: { stage?: unknown; version?: unknown; run_id?: unknown } })
      ?.model;
    if (typeof model?.stage !== 'string' || typeof model.version !== 'string' || model.stage in models)
      continue;
    models[model.stage] = { version: model.version, run_id: String(model.run_id ?? '') };
  }
  return models;
}
