import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { Config } from '../../config.js';
import { siblingModule, startModuleThread, withTimeout } from '../../domain/index.js';
import type { Logger } from '../../logger.js';
import { expiredFailure, queueFull, taskFailureError } from '../task-errors.js';
import {
  type TaskName,
  type TaskOutcome,
  type TaskQueue,
  taskStatus,
  type WorkerInfo,
} from '../task-queue.js';
import type { TaskFailure } from '../task-types.js';
import { TaskWaiters } from '../waiters.js';
import type { FromThread, ThreadData, ToThread } from './thread-protocol.js';

interface InProcessQueueOptions {
  log?: Logger;
  /** Module each thread runs. Default `src/worker/thread-entry.ts`. */
  entry?: URL;
}

/** Delay before a thread that failed to start is started again, ms. */
const RESTART_DELAY_MS = 5000;

interface JobRecord {
  name: TaskName;
  payload: unknown;
  state: 'waiting' | 'active' | 'completed' | 'failed';
  /** Unix ms after which the task is skipped (its sync caller has gone). */
  expiresAt?: number;
  value?: unknown;
  failure?: TaskFailure;
  finishedAt?: number;
}

interface ThreadSlot {
  name: string;
  worker: Worker | null;
  ready: boolean;
  active: Set<string>;
  pings: Map<string, (models: WorkerInfo['models']) => void>;
}

// Compiled (dist/) or sources (tsx): the entry has this module's own extension.
const DEFAULT_ENTRY = siblingModule(import.meta.url, '../../worker/thread-entry');

/** Worker threads run the handlers of `matchcast worker`; a dying thread hands its tasks back (stalled). */
export function createInProcessQueue(config: Config, options: InProcessQueueOptions = {}): TaskQueue {
  const { log, entry = DEFAULT_ENTRY } = options;
  // Finished tasks are kept for task_status this long, within a memory cap of `resultStoreMax`.
  const keepMs = config.resultTtl * 1000;
  const keepCount = config.resultStoreMax;
  const jobs = new Map<string, JobRecord>();
  const pending: string[] = [];
  const finished: string[] = [];
  const waiters = new TaskWaiters();
  const concurrency = config.workerConcurrency;
  let closed = false;

  const slots: ThreadSlot[] = Array.from({ length: config.embeddedWorkerThreads }, (_, index) => ({
    name: `embedded-${index + 1}@${hostname()}:${process.pid}`,
    worker: null,
    ready: false,
    active: new Set<string>(),
    pings: new Map(),
  }));

  function spawn(slot: ThreadSlot): void {
    if (closed) return;
    const data = { config: JSON.parse(JSON.stringify(config)), workerName: slot.name };
    const worker = startModuleThread(entry, data satisfies Omit<ThreadData, 'entry' | 'tsxApi'>);
    slot.worker = worker;
    slot.ready = false;
    let initError: string | undefined;
    worker.on('message', (msg: FromThread) => {
      if (msg.t === 'init-error') initError = msg.message;
      else if (msg.t === 'pong') slot.pings.get(msg.nonce)?.(msg.models);
      else if (msg.t === 'started') {
        const job = jobs.get(msg.id);
        if (job) job.state = 'active';
      } else if (msg.t === 'ready') {
        slot.ready = true;
        dispatch();
      } else {
        slot.active.delete(msg.id);
        finish(msg.id, msg.ok ? { ok: true, value: msg.value } : { ok: false, failure: msg.failure });
        dispatch();
      }
    });
    worker.on('error', (err) => {
      initError ??= err.message;
    });
    worker.on('exit', (code) => {
      slot.ready = false;
      slot.worker = null;
      // Tasks the thread was running go back to the front of the queue (stalled-job recovery).
      for (const id of [...slot.active].reverse()) {
        const job = jobs.get(id);
        if (job && job.state !== 'completed' && job.state !== 'failed') {
          job.state = 'waiting';
          pending.unshift(id);
        }
      }
      slot.active.clear();
      if (closed) return;
      log?.error({ worker: slot.name, code, err: initError }, 'embedded worker thread stopped; restarting');
      setTimeout(() => spawn(slot), initError ? RESTART_DELAY_MS : 100).unref();
      dispatch();
    });
  }

  function finish(id: string, outcome: TaskOutcome): void {
    const job = jobs.get(id);
    if (!job) return;
    job.state = outcome.ok ? 'completed' : 'failed';
    if (outcome.ok) job.value = outcome.value;
    else job.failure = outcome.failure;
    job.finishedAt = Date.now();
    job.payload = undefined;
    finished.push(id);
    prune();
    waiters.settle(id, outcome);
  }

  function prune(): void {
    const cutoff = Date.now() - keepMs;
    while (finished.length > 0) {
      const first = jobs.get(finished[0]);
      if (finished.length <= keepCount && first?.finishedAt !== undefined && first.finishedAt >= cutoff)
        break;
      jobs.delete(finished[0]);
      finished.shift();
    }
  }

  function dispatch(): void {
    while (pending.length > 0) {
      // The least busy thread with a free slot.
      const best = slots
        .filter((s) => s.ready && s.worker && s.active.size < concurrency)
        .reduce<ThreadSlot | undefined>((b, s) => (b && b.active.size <= s.active.size ? b : s), undefined);
      if (!best?.worker) return;
      const id = pending.shift()!;
      const job = jobs.get(id);
      if (job?.state !== 'waiting') continue;
      if (job.expiresAt !== undefined && Date.now() > job.expiresAt) {
        // Its synchronous caller has given up: running it would be wasted work.
        finish(id, { ok: false, failure: expiredFailure(job.expiresAt) });
        continue;
      }
      best.active.add(id);
      best.worker.postMessage({ t: 'run', id, name: job.name, payload: job.payload } satisfies ToThread);
    }
  }

  for (const slot of slots) spawn(slot);

  return {
    kind: 'in-process',
    async submit(name, payload, submitOptions = {}) {
      if (pending.length >= config.queueMaxWaiting) throw queueFull(pending.length, config.queueMaxWaiting);
      const id = randomUUID();
      const expiresAt = submitOptions.expiresAt;
      jobs.set(id, {
        name,
        payload: expiresAt === undefined ? payload : { ...payload, expires_at: expiresAt },
        state: 'waiting',
        expiresAt,
      });
      waiters.track(id, name, { awaited: submitOptions.awaited });
      pending.push(id);
      dispatch();
      return id;
    },
    async wait<T>(taskId: string, timeoutMs: number) {
      prune();
      const job = jobs.get(taskId);
      // A finished task is answered from its record.
      if (job?.state === 'completed') return job.value as T;
      if (job?.state === 'failed' && job.failure) throw taskFailureError(job.failure);
      return waiters.wait<T>(taskId, timeoutMs);
    },
    async status(taskId) {
      prune(); // results older than RESULT_TTL go even when nothing else finishes
      const job = jobs.get(taskId);
      // Never submitted, trimmed, or older than RESULT_TTL (checked on the record, so expiry is exact).
      if (!job || (job.finishedAt !== undefined && Date.now() - job.finishedAt > keepMs))
        return taskStatus(taskId, 'unknown');
      return taskStatus(taskId, job.state, job.value ?? job.failure ?? null);
    },
    onOutcome: (listener) => waiters.onOutcome(listener),
    async usage() {
      prune();
      return { results: finished.length, waiting: pending.length, brokerMemoryBytes: null };
    },
    async queueStats() {
      const active = slots.reduce((n, s) => n + s.active.size, 0);
      const states = finished.map((id) => jobs.get(id)?.state);
      const count = (state: string) => states.filter((s) => s === state).length;
      return {
        queue: config.queueName,
        counts: {
          waiting: pending.length,
          active,
          delayed: 0,
          prioritized: 0,
          completed: count('completed'),
          failed: count('failed'),
        },
        workers: slots
          .filter((s) => s.ready)
          .map((s) => ({ worker: s.name, active: s.active.size, scheduled: 0, reserved: 0 })),
      };
    },
    async workers() {
      return Promise.all(
        slots.map(async (s): Promise<WorkerInfo> => {
          const base = { worker: s.name, queues: [config.queueName], concurrency, active: s.active.size };
          if (!s.ready || !s.worker) return { ...base, ping: { ok: false, latency_ms: null } };
          const nonce = randomUUID();
          const start = performance.now();
          let models: WorkerInfo['models'];
          const answered = new Promise<boolean>((resolve) => {
            s.pings.set(nonce, (m) => {
              models = m;
              resolve(true);
            });
          });
          s.worker.postMessage({ t: 'ping', nonce } satisfies ToThread);
          const ok = await withTimeout(answered, 500, () => new Error('no pong')).catch(() => false);
          s.pings.delete(nonce);
          const latency = Math.round((performance.now() - start) * 100) / 100;
          return { ...base, ping: { ok, latency_ms: ok ? latency : null }, ...(models ? { models } : {}) };
        }),
      );
    },
    async ready() {
      return !closed;
    },
    async close() {
      closed = true;
      waiters.close();
      await Promise.allSettled(slots.map((s) => s.worker?.terminate()));
    },
  };
}
